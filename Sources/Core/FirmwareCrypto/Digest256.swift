/// A 32-byte digest or HMAC-SHA256 tag, stored inline (no heap).
///
/// Equality is constant-time: tags are compared against what a peer sent, and an early-exit
/// comparison would leak how many leading bytes matched.
public struct Digest256: Equatable {
    public static let byteCount = 32
    public var bytes: InlineArray<32, UInt8>

    public init() { bytes = .init(repeating: 0) }

    /// The digest held in the first 32 bytes of `raw` (shorter input is zero-padded).
    public init(_ raw: UnsafeRawBufferPointer) {
        bytes = .init(repeating: 0)
        for index in 0..<min(raw.count, Self.byteCount) { bytes[index] = raw[index] }
    }

    public func withUnsafeBytes<Result, Failure: Error>(
        _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let copy = bytes
        return try copy.span.withUnsafeBytes { raw throws(Failure) in try body(raw) }
    }

    public static func == (lhs: Digest256, rhs: Digest256) -> Bool {
        var difference: UInt8 = 0
        for index in 0..<byteCount { difference |= lhs.bytes[index] ^ rhs.bytes[index] }
        return difference == 0
    }
}
