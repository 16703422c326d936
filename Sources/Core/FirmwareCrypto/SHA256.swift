/// SHA-256 (FIPS 180-4 §6.2), written for the band's firmware: no heap, no C, no tables built at
/// run time — it compiles with Embedded Swift for a Cortex-M4 (`scripts/check-embedded.sh`).
///
/// Streaming: ``update(_:)`` any number of times, then ``finalize()``. State is the eight working
/// words H0…H7 (§5.3.3), one 64-byte block being filled and the message length in bytes.
///
/// | step | FIPS 180-4 |
/// |---|---|
/// | padding: 0x80, zeros, 64-bit big-endian bit length | §5.1.1 |
/// | message schedule W0…W63 | §6.2.2 step 1 |
/// | 64 rounds with K0…K63 | §6.2.2 steps 2–4, §4.2.2 |
///
/// Checked against FIPS 180-4's examples and OpenSSL (FirmwareCryptoTests).
public struct SHA256 {
    public static let blockByteCount = 64
    public static let digestByteCount = 32

    private var state: InlineArray<8, UInt32>
    private var block: InlineArray<64, UInt8>
    private var blockFill: Int
    /// Message length so far in bytes; FIPS 180-4 limits messages to 2^64 − 1 bits.
    private var byteCount: UInt64

    public init() {
        state = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]
        block = .init(repeating: 0)
        blockFill = 0
        byteCount = 0
    }

    /// Feeds the next part of the message.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        for byte in bytes { update(byte: byte) }
    }

    /// Feeds one byte.
    @inline(__always)
    public mutating func update(byte: UInt8) {
        block[blockFill] = byte
        blockFill += 1
        byteCount &+= 1
        if blockFill == Self.blockByteCount {
            compressBlock()
            blockFill = 0
        }
    }

    /// Feeds the bytes of a static string (labels in the firmware's protocol).
    public mutating func update(_ text: StaticString) {
        text.withUTF8Buffer { update(UnsafeRawBufferPointer($0)) }
    }

    /// Pads (§5.1.1) and returns the 32-byte digest.
    public consuming func finalize() -> Digest256 {
        let bitLength = byteCount &* 8
        update(byte: 0x80)
        while blockFill != 56 { update(byte: 0) }
        for shift in stride(from: 56, through: 0, by: -8) { update(byte: UInt8(truncatingIfNeeded: bitLength >> UInt64(shift))) }
        var digest = Digest256()
        for word in 0..<8 {
            for byte in 0..<4 {
                digest.bytes[word * 4 + byte] = UInt8(truncatingIfNeeded: state[word] >> UInt32(24 - 8 * byte))
            }
        }
        return digest
    }

    /// One-shot: the digest of `message`.
    public static func hash(_ message: UnsafeRawBufferPointer) -> Digest256 {
        var hasher = SHA256()
        hasher.update(message)
        return hasher.finalize()
    }

    // MARK: - Compression (§6.2.2)

    private mutating func compressBlock() {
        var schedule = InlineArray<64, UInt32>(repeating: 0)
        for t in 0..<16 {
            schedule[t] = UInt32(block[4 * t]) << 24 | UInt32(block[4 * t + 1]) << 16
                | UInt32(block[4 * t + 2]) << 8 | UInt32(block[4 * t + 3])
        }
        for t in 16..<64 {
            let w15 = schedule[t - 15], w2 = schedule[t - 2]
            let sigma0 = rotateRight(w15, 7) ^ rotateRight(w15, 18) ^ (w15 >> 3)
            let sigma1 = rotateRight(w2, 17) ^ rotateRight(w2, 19) ^ (w2 >> 10)
            schedule[t] = sigma1 &+ schedule[t - 7] &+ sigma0 &+ schedule[t - 16]
        }
        var a = state[0], b = state[1], c = state[2], d = state[3]
        var e = state[4], f = state[5], g = state[6], h = state[7]
        for t in 0..<64 {
            let bigSigma1 = rotateRight(e, 6) ^ rotateRight(e, 11) ^ rotateRight(e, 25)
            let choose = (e & f) ^ (~e & g)
            let temp1 = h &+ bigSigma1 &+ choose &+ Self.roundConstant(t) &+ schedule[t]
            let bigSigma0 = rotateRight(a, 2) ^ rotateRight(a, 13) ^ rotateRight(a, 22)
            let majority = (a & b) ^ (a & c) ^ (b & c)
            let temp2 = bigSigma0 &+ majority
            h = g; g = f; f = e; e = d &+ temp1
            d = c; c = b; b = a; a = temp1 &+ temp2
        }
        state[0] &+= a; state[1] &+= b; state[2] &+= c; state[3] &+= d
        state[4] &+= e; state[5] &+= f; state[6] &+= g; state[7] &+= h
    }

    @inline(__always)
    private func rotateRight(_ value: UInt32, _ count: UInt32) -> UInt32 {
        (value >> count) | (value << (32 - count))
    }

    /// K_t (§4.2.2): the first 32 bits of the fractional parts of the cube roots of the first
    /// 64 primes. Held in a tuple of constants, which the compiler lays out as read-only data; a
    /// `static let` array would be built on the heap at first use, which the firmware must not do.
    private static func roundConstant(_ t: Int) -> UInt32 {
        withUnsafeBytes(of: roundConstants) { $0.load(fromByteOffset: t * 4, as: UInt32.self) }
    }

    private static let roundConstants: (
        UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32,
        UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32,
        UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32,
        UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32
    ) = (
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2
    )
}
