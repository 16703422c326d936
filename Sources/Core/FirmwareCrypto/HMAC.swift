/// HMAC-SHA256 (RFC 2104, FIPS 198-1) over the in-house ``SHA256``: the band's authentication
/// proofs and the DRBG's primitive on the firmware, where OpenSSL is not available.
///
/// HMAC(K, m) = H((K0 ⊕ opad) ‖ H((K0 ⊕ ipad) ‖ m)), K0 = K padded to the block size with zeros,
/// or H(K) padded when K is longer than a block (RFC 2104 §2). Checked against RFC 4231's test
/// cases and OpenSSL (FirmwareCryptoTests).
public struct HMAC {
    private var inner: SHA256
    /// K0 ⊕ opad, kept for the outer hash.
    private var outerPad: InlineArray<64, UInt8>

    /// Starts a MAC under `key` (any length).
    public init(key: UnsafeRawBufferPointer) {
        var paddedKey = InlineArray<64, UInt8>(repeating: 0)
        if key.count > SHA256.blockByteCount {
            let hashed = SHA256.hash(key)
            for index in 0..<Digest256.byteCount { paddedKey[index] = hashed.bytes[index] }
        } else {
            for index in 0..<key.count { paddedKey[index] = key[index] }
        }
        inner = SHA256()
        outerPad = .init(repeating: 0)
        for index in 0..<SHA256.blockByteCount {
            inner.update(byte: paddedKey[index] ^ 0x36)
            outerPad[index] = paddedKey[index] ^ 0x5c
        }
    }

    /// Starts a MAC under a 32-byte key (the DRBG's K).
    public init(key: Digest256) {
        self = key.withUnsafeBytes { HMAC(key: $0) }
    }

    /// Feeds the next part of the message.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) { inner.update(bytes) }
    public mutating func update(byte: UInt8) { inner.update(byte: byte) }
    public mutating func update(_ text: StaticString) { inner.update(text) }
    public mutating func update(_ digest: Digest256) {
        for index in 0..<Digest256.byteCount { inner.update(byte: digest.bytes[index]) }
    }

    /// The 32-byte tag.
    public consuming func finalize() -> Digest256 {
        let innerDigest = inner.finalize()
        var outer = SHA256()
        for index in 0..<SHA256.blockByteCount { outer.update(byte: outerPad[index]) }
        for index in 0..<Digest256.byteCount { outer.update(byte: innerDigest.bytes[index]) }
        return outer.finalize()
    }

    /// One-shot: the tag of `message` under `key`.
    public static func authenticationCode(for message: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer) -> Digest256 {
        var mac = HMAC(key: key)
        mac.update(message)
        return mac.finalize()
    }
}
