import BandWire

/// History Data (`b5c00004-…`, notify): one packet of a transfer.
///
/// A 2-byte packet number, then as many whole ``MinuteRecord``s as the notification holds:
/// `(min(ATT_MTU − 3, 512) − 2) / 16` — 1 at the default ATT_MTU of 23, 15 at 247, 31 at 517
/// (``recordCapacity(mtu:)``). Packet numbers start at 0 for each transfer and count up by one
/// (mod 2¹⁶); records run on from the fetch response's first sequence, so packet *n*'s records
/// need no sequence field of their own. A reader that sees a packet number out of order has lost
/// a notification and fetches again from its cursor.
///
/// | offset | bytes | field |
/// |---|---|---|
/// | 0 | 2 | packet number, uint16 LE |
/// | 2 | 16·n | n ≥ 1 minute records (``MinuteRecord``) |
///
/// The records are kept as raw bytes (inline, no allocation) and decoded on demand with
/// ``record(at:)``; a payload that is not a whole, non-zero number of records is
/// ``ParseError/Kind/invalidValue``.
public struct HistoryDataPacket: Equatable, Sendable, WireCodable {
    public static let headerSize = 2

    /// How many records one packet carries at `mtu` (a notification's value is ATT_MTU − 3 bytes).
    public static func recordCapacity(mtu: Int) -> Int {
        max(0, (min(mtu, 515) - 3 - headerSize) / MinuteRecord.size)
    }

    public var packetNumber: UInt16
    /// The records' wire bytes, `recordCount × 16`.
    public private(set) var recordBytes: FixedBytes<512>

    public var recordCount: Int { recordBytes.count / MinuteRecord.size }

    public init(packetNumber: UInt16, records: some Collection<MinuteRecord>) {
        precondition(!records.isEmpty && records.count <= 31, "a data packet carries 1...31 records")
        self.packetNumber = packetNumber
        var raw = [UInt8](repeating: 0, count: records.count * MinuteRecord.size)
        raw.withUnsafeMutableBytes { buffer in
            var writer = ByteWriter(buffer)
            for record in records { record.encode(into: &writer) }
        }
        recordBytes = FixedBytes(raw)
    }

    /// Decodes record `index` (0-based).
    public func record(at index: Int) throws(ParseError) -> MinuteRecord {
        precondition(index >= 0 && index < recordCount, "record index out of range")
        return try recordBytes.withUnsafeBytes { (all) throws(ParseError) -> MinuteRecord in
            let base = index * MinuteRecord.size
            var cursor = ByteCursor(UnsafeRawBufferPointer(rebasing: all[base..<base + MinuteRecord.size]),
                                    baseOffset: Self.headerSize + base)
            return try MinuteRecord(parsing: &cursor)
        }
    }

    /// All records decoded (allocates; for readers and tests).
    public func records() throws(ParseError) -> [MinuteRecord] {
        var out: [MinuteRecord] = []
        out.reserveCapacity(recordCount)
        for i in 0..<recordCount { out.append(try record(at: i)) }
        return out
    }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        packetNumber = try input.readUInt16LE("packet number")
        let at = input.offset
        guard input.remaining >= MinuteRecord.size else {
            throw ParseError(.truncated, at: at, field: "minute record")
        }
        guard input.remaining % MinuteRecord.size == 0 else {
            throw ParseError(.invalidValue, at: at + input.remaining / MinuteRecord.size * MinuteRecord.size,
                             field: "data packet (not a whole number of 16-byte records)")
        }
        recordBytes = try FixedBytes(copying: input.readRemaining(), offset: at)
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt16LE(packetNumber)
        recordBytes.write(to: &output)
    }
}
