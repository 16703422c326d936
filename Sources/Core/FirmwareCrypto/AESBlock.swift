/// A 128-bit AES block or key, most significant byte first (as FIPS 197 and the Bluetooth
/// Core's cryptographic toolbox write them), stored inline.
///
/// Equality is constant-time: confirm values and DHKey checks are compared with what a peer sent.
public struct AESBlock: Equatable, Sendable {
    public static let byteCount = 16
    public var bytes: InlineArray<16, UInt8>

    public init() { bytes = InlineArray(repeating: 0) }
    public init(bytes: InlineArray<16, UInt8>) { self.bytes = bytes }

    /// The first 16 bytes of `raw` in the order given (shorter input is zero-padded).
    public init(_ raw: UnsafeRawBufferPointer) {
        self.init()
        for i in 0..<min(raw.count, Self.byteCount) { bytes[i] = raw[i] }
    }

    /// The first 16 bytes of `raw` reversed: a little-endian value from a Bluetooth PDU
    /// (least significant octet first) as the toolbox's big-endian block.
    public init(reversing raw: UnsafeRawBufferPointer) {
        self.init()
        let n = min(raw.count, Self.byteCount)
        for i in 0..<n { bytes[Self.byteCount - 1 - i] = raw[i] }
    }

    /// The block reversed: back to a PDU's least-significant-first order.
    public var reversed: AESBlock {
        var out = AESBlock()
        for i in 0..<Self.byteCount { out.bytes[i] = bytes[Self.byteCount - 1 - i] }
        return out
    }

    public static func ^ (lhs: AESBlock, rhs: AESBlock) -> AESBlock {
        var out = lhs
        for i in 0..<byteCount { out.bytes[i] ^= rhs.bytes[i] }
        return out
    }

    public static func == (lhs: AESBlock, rhs: AESBlock) -> Bool {
        var difference: UInt8 = 0
        for i in 0..<byteCount { difference |= lhs.bytes[i] ^ rhs.bytes[i] }
        return difference == 0
    }
}
