import CCrypto

/// A 32-byte SHA-256-sized value (an HMAC-SHA256 tag), stored inline.
///
/// Equality is constant-time (`CRYPTO_memcmp`): these values are compared against what a
/// peer sent, and a early-exit comparison would leak how many leading bytes matched.
public struct SHA256Digest: Sendable, Equatable, CustomStringConvertible {
    public static let byteCount = 32
    @usableFromInline var storage: InlineArray<32, UInt8>

    public init() { storage = InlineArray(repeating: 0) }

    /// Copies exactly 32 bytes (a programming error otherwise).
    public init(_ bytes: UnsafeRawBufferPointer) {
        precondition(bytes.count == Self.byteCount, "SHA256Digest needs 32 bytes, got \(bytes.count)")
        self.init()
        for i in 0..<Self.byteCount { storage[i] = bytes[i] }
    }

    public subscript(index: Int) -> UInt8 { storage[index] }

    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        let copy = storage
        return try copy.span.withUnsafeBufferPointer { (buffer) throws(E) -> R in
            try body(UnsafeRawBufferPointer(buffer))
        }
    }

    /// The bytes as an array (cold paths, tests).
    public var array: [UInt8] { (0..<Self.byteCount).map { storage[$0] } }

    public static func == (lhs: SHA256Digest, rhs: SHA256Digest) -> Bool {
        lhs.withUnsafeBytes { l in rhs.withUnsafeBytes { r in constantTimeEqual(l, r) } }
    }

    public var description: String {
        let digits = Array("0123456789abcdef")
        return String(array.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]] })
    }
}

/// Compares two byte runs in time that depends only on their length (`CRYPTO_memcmp`).
/// Runs of different lengths are unequal (the length is not secret).
public func constantTimeEqual(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Bool {
    guard lhs.count == rhs.count else { return false }
    guard lhs.count > 0, let l = lhs.baseAddress, let r = rhs.baseAddress else { return true }
    return CRYPTO_memcmp(l, r, lhs.count) == 0
}
