import BandWire

/// LE Set Data Length (Core 5.4 Vol 4 Part E §7.8.33): asks the controller to use longer
/// link-layer data PDUs on a link (LE Data Packet Length Extension), so a 247-byte ATT PDU
/// crosses the air in one packet instead of ten. The controller answers with Command Complete
/// (status, handle), and later LE Data Length Change once the peer agreed.
///
/// | bytes | field |
/// |---|---|
/// | u16 LE | connection handle (12 bits) |
/// | u16 LE | TxOctets, 27–251 |
/// | u16 LE | TxTime, 328–17040 µs |
public struct LESetDataLength: HCICommandParameters, WireDecodable, Equatable, Sendable {
    public var opcode: HCIOpcode { .leSetDataLength }
    public var handle: UInt16
    public var octets: UInt16
    public var time: UInt16

    public static let octetRange: ClosedRange<UInt16> = 27...251
    public static let timeRange: ClosedRange<UInt16> = 328...17040

    /// `octets` per packet, with the time they take on the 1M PHY ((octets + 14) × 8 µs).
    public init(handle: UInt16, octets: UInt16) {
        self.handle = handle & 0x0FFF
        self.octets = min(max(octets, Self.octetRange.lowerBound), Self.octetRange.upperBound)
        time = (self.octets + 14) * 8
    }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        handle = try input.readUInt16LE("connection handle") & 0x0FFF
        let octetsOffset = input.offset
        octets = try input.readUInt16LE("TxOctets")
        guard Self.octetRange.contains(octets) else { throw ParseError(.invalidValue, at: octetsOffset, field: "TxOctets") }
        let timeOffset = input.offset
        time = try input.readUInt16LE("TxTime")
        guard Self.timeRange.contains(time) else { throw ParseError(.invalidValue, at: timeOffset, field: "TxTime") }
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt16LE(handle)
        output.writeUInt16LE(octets)
        output.writeUInt16LE(time)
    }
}
