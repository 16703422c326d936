import BandKitSystem
import BandWire

/// The spool file's format, with no I/O: an 8-byte header, then records appended one after
/// another. ``LiveSpool`` does the file work; ``decode(_:)`` is pure, so the fuzzer
/// (fuzz/spool) and the broken-fixture tests drive it on bytes.
///
/// Header: `BKSPOOL` then the format version `1` (8 bytes). Each record, little-endian:
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 1 | marker 0xB5 (where a reader resynchronises after damage) |
/// | 1 | 1 | kind (``SpoolEntry/Kind``) |
/// | 2 | 2 | payload length *n* (≤ ``SpoolEntry/maximumPayloadSize``) |
/// | 4 | *n* | payload (``SpoolEntry``) |
/// | 4 + *n* | 4 | CRC-32 (IEEE) of bytes 0 ..< 4 + *n* |
///
/// Reading never fails on damage and never traps. A record whose marker, length, CRC or payload
/// is wrong is skipped: the reader scans for the next marker that starts a whole, valid record
/// (one linear pass), and counts the stretch it skipped. A record cut short at the end of the
/// file (a write torn by a crash or power cut) is the torn tail: counted, not used. Only a missing or foreign header
/// refuses the file as a whole (it is not a spool).
public enum SpoolFile {
    public static let header: [UInt8] = Array("BKSPOOL1".utf8)
    public static let marker: UInt8 = 0xB5
    /// Marker, kind, length and CRC around each payload.
    public static let recordOverhead = 8

    /// What a spool file held.
    public struct Contents: Equatable, Sendable {
        public var entries: [SpoolEntry] = []
        /// Stretches of damage skipped (bad marker, length, CRC or payload), each counted once.
        public var damagedStretches = 0
        /// Bytes in those stretches.
        public var damagedBytes = 0
        /// Bytes of a last record cut short (0: the file ends on a record boundary).
        public var tornTailBytes = 0
        /// Where the first damage starts (byte offset in the file), for the report.
        public var firstDamageOffset: Int?

        public init() {}

        public var isClean: Bool { damagedStretches == 0 && tornTailBytes == 0 }
        public var minuteCount: Int { entries.reduce(0) { if case .minute = $1 { $0 + 1 } else { $0 } } }
    }

    public enum FileError: Error, Equatable, Sendable, CustomStringConvertible {
        /// The first bytes are not a spool header (or the file is shorter than one).
        case notASpool
        public var description: String { "not a BandKit spool file (no BKSPOOL1 header)" }
    }

    /// One record's bytes.
    public static func encode(_ entry: SpoolEntry) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: recordOverhead + SpoolEntry.maximumPayloadSize)
        let count = out.withUnsafeMutableBytes { raw -> Int in
            var writer = ByteWriter(raw)
            encode(entry, into: &writer)
            return writer.count
        }
        out.removeSubrange(count...)
        return out
    }

    /// Appends one record to what `writer` holds, which must have room for
    /// `recordOverhead + SpoolEntry.maximumPayloadSize` more bytes.
    public static func encode(_ entry: SpoolEntry, into writer: inout ByteWriter) {
        let start = writer.count
        writer.writeUInt8(marker)
        writer.writeUInt8(entry.kind.rawValue)
        writer.writeUInt16LE(0)
        entry.encode(into: &writer)
        let payload = writer.count - start - 4
        precondition(!writer.overflowed, "a spool entry is larger than SpoolEntry.maximumPayloadSize")
        writer.patchUInt16LE(UInt16(payload), at: start + 2)
        writer.writeUInt32LE(CRC32.checksum(UnsafeRawBufferPointer(rebasing: writer.written[start...])))
        precondition(!writer.overflowed, "a spool entry is larger than SpoolEntry.maximumPayloadSize")
    }

    /// The entries of a whole file's bytes (header included).
    public static func decode(_ bytes: [UInt8]) throws(FileError) -> Contents {
        guard bytes.count >= header.count, bytes[0..<header.count].elementsEqual(header) else { throw .notASpool }
        return bytes.withUnsafeBytes { raw in decodeRecords(raw, from: header.count) }
    }

    /// The records in `raw` from `start` on.
    static func decodeRecords(_ raw: UnsafeRawBufferPointer, from start: Int) -> Contents {
        var examined = 0
        return decodeRecords(raw, from: start, examined: &examined)
    }

    /// The records in `raw` from `start` on; `examined` counts the positions tried as a record's
    /// start (the tests' measure of the recovery's cost).
    ///
    /// After damage the reader resynchronises on the marker: every record starts with one, so
    /// a record can only start at a marker byte, and the bytes between two markers are skipped
    /// by one linear scan, never tried one by one. Each marker in a damaged stretch costs at most
    /// one record check (header fields, then at most one CRC over at most
    /// `recordOverhead + SpoolEntry.maximumPayloadSize` bytes): linear in the file's size
    /// whatever it holds, and for garbage whose markers rarely pass the header checks, about
    /// one pass over it.
    static func decodeRecords(_ raw: UnsafeRawBufferPointer, from start: Int, examined: inout Int) -> Contents {
        var contents = Contents()
        var position = start
        var damageStart: Int?
        /// The stretch began with a record running past the end: if nothing valid follows, it
        /// is the tail a crash tore, not damage.
        var startedTruncated = false
        func endDamage(at end: Int) {
            guard let from = damageStart else { return }
            if contents.firstDamageOffset == nil { contents.firstDamageOffset = from }
            if end == raw.count, startedTruncated {
                contents.tornTailBytes = end - from
            } else {
                contents.damagedStretches += 1
                contents.damagedBytes += end - from
            }
            damageStart = nil
        }
        while position < raw.count {
            examined += 1
            let found = record(in: raw, at: position)
            if case .entry(let entry, let length) = found {
                endDamage(at: position)
                contents.entries.append(entry)
                position += length
                continue
            }
            // Damaged or cut short: the next whole record starts at a later marker (a record
            // torn by a crash is followed by the records appended after the restart, or by
            // nothing).
            if damageStart == nil {
                damageStart = position
                if case .truncated = found { startedTruncated = true } else { startedTruncated = false }
            }
            position = nextMarker(in: raw, after: position)
        }
        endDamage(at: raw.count)
        return contents
    }

    /// The offset of the first marker byte after `position`, or the end of `raw`.
    private static func nextMarker(in raw: UnsafeRawBufferPointer, after position: Int) -> Int {
        var next = position + 1
        while next < raw.count, raw[next] != marker { next += 1 }
        return next
    }

    private enum Record {
        case entry(SpoolEntry, length: Int)
        /// The record's declared length runs past the end of the bytes.
        case truncated
        case damaged
    }

    private static func record(in raw: UnsafeRawBufferPointer, at position: Int) -> Record {
        let available = raw.count - position
        guard raw[position] == marker else { return .damaged }
        guard available >= 4 else { return .truncated }
        let length = Int(raw[position + 2]) | Int(raw[position + 3]) << 8
        guard SpoolEntry.Kind(rawValue: raw[position + 1]) != nil, length <= SpoolEntry.maximumPayloadSize else { return .damaged }
        guard available >= recordOverhead + length else { return .truncated }
        let body = UnsafeRawBufferPointer(rebasing: raw[position..<position + 4 + length])
        let storedAt = position + 4 + length
        let stored = UInt32(raw[storedAt]) | UInt32(raw[storedAt + 1]) << 8 | UInt32(raw[storedAt + 2]) << 16 | UInt32(raw[storedAt + 3]) << 24
        guard CRC32.checksum(body) == stored else { return .damaged }
        var cursor = ByteCursor(UnsafeRawBufferPointer(rebasing: raw[position + 4..<storedAt]), baseOffset: position + 4)
        do {
            return .entry(try SpoolEntry(kind: raw[position + 1], parsing: &cursor), length: recordOverhead + length)
        } catch {
            return .damaged
        }
    }
}
