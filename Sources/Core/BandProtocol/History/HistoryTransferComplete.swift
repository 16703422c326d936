import BandWire

/// Transfer complete (band → reader, History Control Point indication), after the last data packet.
///
/// `crc` is CRC-32 (``CRC32``, as zlib's `crc32()`) over the concatenated 16-byte records of
/// the transfer in sequence order — the data packets' payloads without their 2-byte headers. It
/// catches a corrupted notification; a dropped one shows as a jump in packet numbers and a
/// record count short of `recordCount`. Gadgetbridge leaves the Huami CRC unchecked ("TODO
/// actually check it", peers.md); this one is checked, and repeated in the acknowledgement.
///
/// | offset | bytes | field |
/// |---|---|---|
/// | 0 | 1 | opcode 0x82 |
/// | 1 | 1 | status: success, or aborted (``HistoryStatus``) |
/// | 2 | 4 | data packets sent, uint32 LE |
/// | 6 | 4 | records sent, uint32 LE |
/// | 10 | 4 | CRC-32 of the records sent, uint32 LE |
public struct HistoryTransferComplete: Hashable, Sendable, WireCodable {
    public static let size = 14
    public var status: HistoryStatus
    public var packetCount: UInt32
    public var recordCount: UInt32
    public var crc: UInt32

    public init(status: HistoryStatus, packetCount: UInt32, recordCount: UInt32, crc: UInt32) {
        self.status = status
        self.packetCount = packetCount
        self.recordCount = recordCount
        self.crc = crc
    }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        try expectOpcode(.transferComplete, in: &input)
        status = HistoryStatus(rawValue: try input.readUInt8("history status"))
        packetCount = try input.readUInt32LE("packet count")
        recordCount = try input.readUInt32LE("record count")
        crc = try input.readUInt32LE("transfer CRC")
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(HistoryOpcode.transferComplete.rawValue)
        output.writeUInt8(status.rawValue)
        output.writeUInt32LE(packetCount)
        output.writeUInt32LE(recordCount)
        output.writeUInt32LE(crc)
    }
}
