import BandWire

/// Acknowledge (reader → band, History Control Point write): "I have stored everything before
/// `endSequence`; you may erase it."
///
/// The band accepts it only when a transfer completed on this connection ends exactly at
/// `endSequence` and had CRC `crc`: the reader proves it received (and checked) the data it is
/// releasing. An acknowledgement of anything the band has not sent is refused with
/// ``HistoryStatus/acknowledgementRejected`` and nothing is erased. A reader commits records and
/// its cursor in one transaction *before* sending this (peers.md (d)4).
///
/// | offset | bytes | field |
/// |---|---|---|
/// | 0 | 1 | opcode 0x02 |
/// | 1 | 4 | end sequence (exclusive): first seq + count of the transfer, uint32 LE |
/// | 5 | 4 | CRC-32 of that transfer, uint32 LE |
public struct HistoryAcknowledgeRequest: Hashable, Sendable, WireCodable {
    public static let size = 9
    public var endSequence: UInt32
    public var crc: UInt32

    public init(endSequence: UInt32, crc: UInt32) {
        self.endSequence = endSequence
        self.crc = crc
    }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        try expectOpcode(.acknowledge, in: &input)
        endSequence = try input.readUInt32LE("end sequence")
        crc = try input.readUInt32LE("transfer CRC")
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(HistoryOpcode.acknowledge.rawValue)
        output.writeUInt32LE(endSequence)
        output.writeUInt32LE(crc)
    }
}
