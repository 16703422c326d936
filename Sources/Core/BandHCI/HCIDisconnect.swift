import BandWire

/// Disconnect (Core 5.4 Vol 4 Part E §7.1.6): the host ends a link. The controller answers
/// with Command Status, then Disconnection Complete.
///
/// | bytes | field |
/// |---|---|
/// | u16 LE | connection handle (12 bits) |
/// | u8 | reason (an HCI error code, e.g. 0x13 Remote User Terminated Connection) |
public struct HCIDisconnect: HCICommandParameters, WireDecodable, Equatable, Sendable {
    public var opcode: HCIOpcode { .disconnect }
    public var handle: UInt16
    public var reason: UInt8

    public init(handle: UInt16, reason: UInt8) {
        self.handle = handle & 0x0FFF
        self.reason = reason
    }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        let offset = input.offset
        let raw = try input.readUInt16LE("connection handle")
        guard raw <= 0x0EFF else { throw ParseError(.invalidValue, at: offset, field: "connection handle") }
        handle = raw
        reason = try input.readUInt8("reason")
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt16LE(handle)
        output.writeUInt8(reason)
    }
}
