import BandWire

/// One 256-bit value of LE Secure Connections — a P-256 public key coordinate or a DHKey —
/// held as SMP and HCI carry it: least significant octet first.
public struct P256Coordinate: Equatable, Sendable {
    public static let byteCount = 32
    public var bytes: InlineArray<32, UInt8>

    public init() { bytes = InlineArray(repeating: 0) }

    /// The first 32 bytes of `raw`, least significant first.
    public init(_ raw: UnsafeRawBufferPointer) {
        self.init()
        for i in 0..<min(raw.count, Self.byteCount) { bytes[i] = raw[i] }
    }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        self.init(try input.readBytes(Self.byteCount, "P-256 coordinate"))
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        for i in 0..<byteCount where lhs.bytes[i] != rhs.bytes[i] { return false }
        return true
    }

    public func encode(into output: inout ByteWriter) {
        for i in 0..<Self.byteCount { output.writeUInt8(bytes[i]) }
    }
}
