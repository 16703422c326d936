import BandProtocol
import BandWire

/// Everything the band keeps across reboots, and its `--state` file format.
///
/// | offset | bytes | field |
/// |---|---|---|
/// | 0 | 8 | magic `BKFLASH` 0x02 (format version 2; version 1 is read too) |
/// | 8 | 4 | history ID, uint32 LE |
/// | 12 | 2 | boot epoch, uint16 LE |
/// | 14 | 1 | battery level, percent |
/// | 15 | 4 | ring capacity, uint32 LE |
/// | 19 | 4 | oldest sequence, uint32 LE |
/// | 23 | 4 | next sequence, uint32 LE |
/// | 27 | 4 | acknowledged-through sequence (by every paired reader), uint32 LE |
/// | 31 | 1 | key count k (≤ 4) |
/// | 32 | 32·k | keys: reader ID uint64 LE, key 16 bytes, last-used uint32 LE, that reader's acknowledged position uint32 LE (version 1: 28·k, without the position; read as `oldest`) |
/// | … | 16·(next − oldest) | minute records, oldest first (``MinuteRecord``) |
/// | … | 4 | CRC-32 of all bytes before it, uint32 LE |
///
/// Written atomically (temporary file, `fsync`, `rename`) so a crash leaves the old image or
/// the new one, never half of each; the CRC catches a file damaged some other way.
public struct FlashImage {
    public static let magic: [UInt8] = Array("BKFLASH".utf8) + [0x02]
    /// Version 1 (one acknowledged position for all readers), still read.
    static let magicVersion1: [UInt8] = Array("BKFLASH".utf8) + [0x01]

    public var historyID: UInt32
    public var bootEpoch: UInt16
    public var batteryLevel: UInt8
    public var ring: MinuteRing
    public var keys: KeyStore

    /// A freshly formatted flash.
    public init(historyID: UInt32, capacity: Int) {
        self.historyID = historyID
        bootEpoch = 0
        batteryLevel = 100
        ring = MinuteRing(capacity: capacity)
        keys = KeyStore()
    }

    /// The file's bytes.
    public func serialized() -> [UInt8] {
        let size = 32 + keys.entries.count * 32 + ring.count * MinuteRecord.size + 4
        var out = [UInt8](repeating: 0, count: size)
        out.withUnsafeMutableBytes { raw in
            var w = ByteWriter(raw)
            w.writeBytes(Self.magic)
            w.writeUInt32LE(historyID)
            w.writeUInt16LE(bootEpoch)
            w.writeUInt8(batteryLevel)
            w.writeUInt32LE(UInt32(ring.capacity))
            w.writeUInt32LE(ring.oldest)
            w.writeUInt32LE(ring.next)
            w.writeUInt32LE(ring.acknowledgedThrough)
            w.writeUInt8(UInt8(keys.entries.count))
            for entry in keys.entries {
                w.writeUInt64LE(entry.readerID)
                entry.key.write(to: &w)
                w.writeUInt32LE(entry.lastUsed)
                w.writeUInt32LE(entry.acknowledged)
            }
            var sequence = ring.oldest
            while sequence != ring.next {
                ring.withRecordBytes(sequence) { w.writeBytes($0) }
                sequence &+= 1
            }
            var crc = CRC32()
            crc.update(w.written)
            w.writeUInt32LE(crc.value)
            precondition(!w.overflowed && w.count == size, "flash image size miscomputed")
        }
        return out
    }

    /// Reads a state file. `capacity` is the ring size wanted now; if it is smaller than the
    /// stored history, the newest records are kept.
    public init(parsing bytes: UnsafeRawBufferPointer, capacity: Int) throws(ParseError) {
        guard bytes.count >= 4 else { throw ParseError(.truncated, at: bytes.count, field: "flash image") }
        var crc = CRC32()
        crc.update(UnsafeRawBufferPointer(rebasing: bytes[0..<bytes.count - 4]))
        var tail = ByteCursor(UnsafeRawBufferPointer(rebasing: bytes[(bytes.count - 4)...]), baseOffset: bytes.count - 4)
        var input = ByteCursor(UnsafeRawBufferPointer(rebasing: bytes[0..<bytes.count - 4]))
        let magicAt = input.offset
        let magic = try input.readBytes(8, "magic")
        let version1 = magic.elementsEqual(Self.magicVersion1)
        guard version1 || magic.elementsEqual(Self.magic) else {
            throw ParseError(.invalidValue, at: magicAt, field: "magic (not a BandKit flash image, version 1 or 2)")
        }
        guard try tail.readUInt32LE("CRC-32") == crc.value else {
            throw ParseError(.invalidValue, at: bytes.count - 4, field: "CRC-32 (the state file is damaged)")
        }
        historyID = try input.readUInt32LE("history ID")
        bootEpoch = try input.readUInt16LE("boot epoch")
        batteryLevel = min(100, try input.readUInt8("battery level"))
        _ = try input.readUInt32LE("ring capacity")
        let oldest = try input.readUInt32LE("oldest sequence")
        let nextAt = input.offset
        let next = try input.readUInt32LE("next sequence")
        guard next >= oldest else { throw ParseError(.invalidValue, at: nextAt, field: "next sequence (before oldest)") }
        let acknowledged = try input.readUInt32LE("acknowledged sequence")
        let keyCountAt = input.offset
        let keyCount = Int(try input.readUInt8("key count"))
        guard keyCount <= KeyStore.slotCount else { throw ParseError(.invalidValue, at: keyCountAt, field: "key count") }
        var entries: [KeyStore.Entry] = []
        for _ in 0..<keyCount {
            let readerID = try input.readUInt64LE("reader ID")
            let keyAt = input.offset
            let key = try BandKey(copying: try input.readBytes(16, "key"), offset: keyAt)
            let lastUsed = try input.readUInt32LE("key last used")
            let acknowledged = version1 ? oldest : try input.readUInt32LE("reader's acknowledged position")
            entries.append(KeyStore.Entry(readerID: readerID, key: key, lastUsed: lastUsed, acknowledged: acknowledged))
        }
        keys = KeyStore(entries: entries)
        let recordCount = Int(next - oldest)
        let recordsAt = input.offset
        let records = try input.readBytes(recordCount * MinuteRecord.size, "minute records")
        for i in 0..<recordCount {
            var cursor = ByteCursor(UnsafeRawBufferPointer(rebasing: records[(i * 16)..<(i * 16 + 16)]), baseOffset: recordsAt + i * 16)
            _ = try MinuteRecord(parsing: &cursor)
        }
        try input.expectEnd("flash image")
        ring = MinuteRing(capacity: capacity, oldest: oldest, next: next, acknowledgedThrough: acknowledged, records: records)
    }
}
