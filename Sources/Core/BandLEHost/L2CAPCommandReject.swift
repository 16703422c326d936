import BandWire

/// Command Reject's data (Core 5.4 Vol 3 Part A §4.1): why a signaling command was refused.
///
/// | bytes | field |
/// |---|---|
/// | u16 LE | reason: 0 command not understood, 1 signaling MTU exceeded, 2 invalid CID |
/// | 0–4 | reason data (the CIDs for reason 2, the MTU for reason 1) |
public struct L2CAPCommandReject: WireCodable, Equatable, Sendable {
    public static let commandNotUnderstood: UInt16 = 0x0000
    public static let signalingMTUExceeded: UInt16 = 0x0001
    public static let invalidCID: UInt16 = 0x0002

    public var reason: UInt16
    /// The reason's data as one little-endian value (0 bytes for reason 0).
    public var data: FixedBytes<4>

    public init(reason: UInt16, data: FixedBytes<4> = FixedBytes()) {
        self.reason = reason
        self.data = data
    }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        reason = try input.readUInt16LE("reject reason")
        let rest = input.readRemaining()
        data = try FixedBytes(copying: rest, offset: input.offset - rest.count)
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt16LE(reason)
        data.write(to: &output)
    }
}
