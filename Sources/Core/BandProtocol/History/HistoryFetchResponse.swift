import BandWire

/// Fetch response (band → reader, History Control Point indication), sent before any data.
///
/// `historyID` names this band's flash history: it is drawn at random when the flash is
/// formatted and never changes after, so a cursor saved against another band, or against this
/// band before its flash was wiped, is recognised (the reader compares it with the ID it stored
/// next to its cursor) instead of silently skipping or repeating records.
///
/// `firstSequence` is `max(cursor, oldest available)`; `gap` is how many records the reader asked
/// for that no longer exist (`oldest − cursor` when the cursor is older than the oldest record:
/// overwritten by overflow, or erased after an acknowledgement), so loss is reported, never
/// silent. `count` records follow in ``HistoryDataPacket``s, then ``HistoryTransferComplete``.
/// With ``HistoryStatus/cursorAhead`` the sequence fields describe what the band has
/// (`firstSequence` = oldest available, `count` = records available) and no transfer follows.
///
/// | offset | bytes | field |
/// |---|---|---|
/// | 0 | 1 | opcode 0x81 |
/// | 1 | 1 | status (``HistoryStatus``) |
/// | 2 | 1 | record size in bytes (16, ``MinuteRecord/size``) |
/// | 3 | 4 | history ID, uint32 LE |
/// | 7 | 4 | first sequence, uint32 LE |
/// | 11 | 4 | count, uint32 LE |
/// | 15 | 4 | gap, uint32 LE |
public struct HistoryFetchResponse: Hashable, Sendable, WireCodable {
    public static let size = 19
    public var status: HistoryStatus
    public var recordSize: UInt8
    public var historyID: UInt32
    public var firstSequence: UInt32
    public var count: UInt32
    public var gap: UInt32

    public init(status: HistoryStatus, recordSize: UInt8 = UInt8(MinuteRecord.size), historyID: UInt32,
                firstSequence: UInt32, count: UInt32, gap: UInt32) {
        self.status = status
        self.recordSize = recordSize
        self.historyID = historyID
        self.firstSequence = firstSequence
        self.count = count
        self.gap = gap
    }

    /// The sequence number after the last record of the transfer.
    public var endSequence: UInt32 { firstSequence &+ count }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        try expectOpcode(.fetchResponse, in: &input)
        status = HistoryStatus(rawValue: try input.readUInt8("history status"))
        recordSize = try input.readUInt8("record size")
        historyID = try input.readUInt32LE("history ID")
        firstSequence = try input.readUInt32LE("first sequence")
        count = try input.readUInt32LE("record count")
        gap = try input.readUInt32LE("gap")
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(HistoryOpcode.fetchResponse.rawValue)
        output.writeUInt8(status.rawValue)
        output.writeUInt8(recordSize)
        output.writeUInt32LE(historyID)
        output.writeUInt32LE(firstSequence)
        output.writeUInt32LE(count)
        output.writeUInt32LE(gap)
    }
}
