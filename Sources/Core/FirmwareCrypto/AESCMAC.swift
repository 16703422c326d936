/// AES-CMAC with a 128-bit key (RFC 4493, NIST SP 800-38B): the MAC under the LE Secure
/// Connections functions f4, f5, f6 and g2 (Core 5.4 Vol 3 Part H §2.2.5).
///
/// Streaming: ``update(_:)`` in any split, ``finalize()`` once. The last block is held back
/// until the end, since CMAC treats it differently (K1 for a full block, K2 padded).
public struct AESCMAC {
    @usableFromInline let cipher: AES128
    @usableFromInline var subkey1 = AESBlock()
    @usableFromInline var subkey2 = AESBlock()
    /// The running chaining value.
    @usableFromInline var chain = AESBlock()
    /// The pending (possibly last) block.
    @usableFromInline var pending = AESBlock()
    @usableFromInline var pendingCount = 0

    public init(key: AESBlock) {
        cipher = AES128(key: key)
        let zero = cipher.encrypt(AESBlock())
        subkey1 = Self.shiftLeft(zero)
        subkey2 = Self.shiftLeft(subkey1)
    }

    /// One AES-CMAC over a whole message.
    public static func mac(key: AESBlock, _ message: UnsafeRawBufferPointer) -> AESBlock {
        var cmac = AESCMAC(key: key)
        cmac.update(message)
        return cmac.finalize()
    }

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        for byte in bytes { update(byte: byte) }
    }

    public mutating func update(byte: UInt8) {
        if pendingCount == AESBlock.byteCount {
            chain = cipher.encrypt(chain ^ pending)
            pendingCount = 0
        }
        pending.bytes[pendingCount] = byte
        pendingCount += 1
    }

    /// Adds the 16 bytes of `block` in order.
    public mutating func update(_ block: AESBlock) {
        for i in 0..<AESBlock.byteCount { update(byte: block.bytes[i]) }
    }

    /// The tag (RFC 4493 §2.4: the last block XOR K1 when complete, padded with 10…0 XOR K2 otherwise).
    public func finalize() -> AESBlock {
        var last = pending
        if pendingCount == AESBlock.byteCount {
            last = last ^ subkey1
        } else {
            last.bytes[pendingCount] = 0x80
            for i in (pendingCount + 1)..<AESBlock.byteCount { last.bytes[i] = 0 }
            last = last ^ subkey2
        }
        return cipher.encrypt(chain ^ last)
    }

    /// The subkey derivation's doubling in GF(2^128) (RFC 4493 §2.3).
    static func shiftLeft(_ block: AESBlock) -> AESBlock {
        var out = AESBlock()
        var carry: UInt8 = 0
        for i in stride(from: AESBlock.byteCount - 1, through: 0, by: -1) {
            out.bytes[i] = block.bytes[i] << 1 | carry
            carry = block.bytes[i] >> 7
        }
        if carry != 0 { out.bytes[AESBlock.byteCount - 1] ^= 0x87 }
        return out
    }
}
