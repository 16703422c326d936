import BandWire

/// The return parameters of LE Read Buffer Size after its status (Core 5.4 Vol 4 Part E
/// §7.8.2): how long an ACL packet to the controller may be and how many it holds at once.
/// Version 2 adds the ISO buffers, which a peripheral host reads past.
///
/// | bytes | field |
/// |---|---|
/// | u16 LE | LE ACL data packet length (0: use the BR/EDR buffers) |
/// | u8 | total number of LE ACL data packets |
/// | u16 LE | ISO data packet length (v2 only) |
/// | u8 | total number of ISO data packets (v2 only) |
public struct LEBufferSize: WireCodable, Hashable, Sendable {
    public var aclDataPacketLength: UInt16
    public var aclDataPacketCount: UInt8
    /// The ISO buffers, for version 2.
    public var isoDataPacketLength: UInt16?
    public var isoDataPacketCount: UInt8?

    public init(aclDataPacketLength: UInt16, aclDataPacketCount: UInt8, isoDataPacketLength: UInt16? = nil, isoDataPacketCount: UInt8? = nil) {
        self.aclDataPacketLength = aclDataPacketLength
        self.aclDataPacketCount = aclDataPacketCount
        self.isoDataPacketLength = isoDataPacketLength
        self.isoDataPacketCount = isoDataPacketCount
    }

    /// Version 1 when nothing follows the ACL fields, version 2 otherwise.
    public init(parsing input: inout ByteCursor) throws(ParseError) {
        aclDataPacketLength = try input.readUInt16LE("LE ACL data packet length")
        aclDataPacketCount = try input.readUInt8("total number of LE ACL data packets")
        if input.isAtEnd {
            isoDataPacketLength = nil
            isoDataPacketCount = nil
        } else {
            isoDataPacketLength = try input.readUInt16LE("ISO data packet length")
            isoDataPacketCount = try input.readUInt8("total number of ISO data packets")
        }
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt16LE(aclDataPacketLength)
        output.writeUInt8(aclDataPacketCount)
        if let isoDataPacketLength, let isoDataPacketCount {
            output.writeUInt16LE(isoDataPacketLength)
            output.writeUInt8(isoDataPacketCount)
        }
    }
}
