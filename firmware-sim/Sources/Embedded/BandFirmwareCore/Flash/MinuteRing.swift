import BandProtocol
import BandWire
import ChipRuntime

/// The minute-record ring in the band's flash: `capacity` fixed 16-byte slots addressed by
/// record sequence number (`seq % capacity`).
///
/// Sequence numbers start at 0 when the flash is formatted and are never reused. `oldest` is
/// the first one still stored, `next` the one the next record gets. Writing into a full ring
/// overwrites the oldest record whether or not a reader acknowledged it (the band cannot stop
/// counting); ``erase(before:)`` drops acknowledged records. Storage is one buffer allocated at
/// boot; appending and reading never allocate.
public struct MinuteRing {
    /// Which records are stored and where: ChipRuntime's ``MinuteRingIndex``, the bookkeeping
    /// the firmware core shares; this type adds the slots.
    public private(set) var index: MinuteRingIndex
    public var capacity: Int { index.capacity }
    public var oldest: UInt32 { index.oldest }
    public var next: UInt32 { index.next }
    /// Records overwritten before anyone acknowledged them, since this process started.
    public var overwrittenUnacknowledged: UInt64 { index.overwrittenUnacknowledged }
    /// Everything before this was acknowledged by a reader.
    public var acknowledgedThrough: UInt32 { index.acknowledgedThrough }
    private var slots: [UInt8]

    public init(capacity: Int) {
        precondition(capacity > 0, "the ring needs at least one slot")
        index = MinuteRingIndex(capacity: capacity)
        slots = [UInt8](repeating: 0xFF, count: capacity * MinuteRecord.size)
    }

    public var count: Int { index.count }
    public var isEmpty: Bool { index.isEmpty }

    /// Stores `record` as sequence number `next` and returns that number.
    @discardableResult
    public mutating func append(_ record: MinuteRecord) -> UInt32 {
        let sequence = index.append()
        let base = slot(of: sequence)
        slots.withUnsafeMutableBytes { raw in
            var writer = ByteWriter(UnsafeMutableRawBufferPointer(rebasing: raw[base..<base + MinuteRecord.size]))
            record.encode(into: &writer)
        }
        return sequence
    }

    /// The stored bytes of record `sequence`, which must be in `oldest..<next`.
    public func withRecordBytes<R>(_ sequence: UInt32, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        precondition(contains(sequence), "record \(sequence) is not stored (\(oldest)..<\(next))")
        let base = slot(of: sequence)
        return slots.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[base..<base + MinuteRecord.size])) }
    }

    /// Record `sequence` decoded (cold paths, tests).
    ///
    /// Every way into the ring checks its records — ``append(_:)`` encodes a `MinuteRecord`,
    /// ``FlashImage``'s parser and ``FlashMinuteLog``'s recovery decode each one (a CRC-valid flash
    /// slot whose record does not parse is a damaged slot, counted and never restored) — so the
    /// stored bytes always parse and the precondition guards this type's invariant, not its input.
    public func record(_ sequence: UInt32) -> MinuteRecord {
        withRecordBytes(sequence) { raw in
            do throws(ParseError) { return try MinuteRecord(parsingAll: raw) } catch {
                preconditionFailure("ring slot \(sequence) holds a record that does not parse (every way in checks them): \(error)")
            }
        }
    }

    public func contains(_ sequence: UInt32) -> Bool { index.contains(sequence) }

    /// Drops every record before `sequence` (acknowledged by a reader).
    public mutating func erase(before sequence: UInt32) {
        precondition(sequence <= next, "cannot erase records that do not exist yet")
        index.erase(before: sequence)
    }

    /// Empties the ring and makes it hold `oldest..<next` (at most `capacity`), for the chip's
    /// rebuild from flash pages (``FlashMinuteLog``); the slots are filled by ``restoreRecord(_:_:)``.
    package mutating func restore(oldest: UInt32, next: UInt32, acknowledgedThrough: UInt32) {
        index = MinuteRingIndex(capacity: capacity, oldest: oldest, next: next, acknowledgedThrough: acknowledgedThrough)
    }

    /// Puts record `sequence`'s stored bytes in its slot; ignored when it is not in the ring.
    package mutating func restoreRecord(_ sequence: UInt32, _ bytes: UnsafeRawBufferPointer) {
        guard contains(sequence), bytes.count == MinuteRecord.size else { return }
        let base = slot(of: sequence)
        slots.withUnsafeMutableBytes { raw in
            for index in 0..<MinuteRecord.size { raw[base + index] = bytes[index] }
        }
    }

    /// Restores a ring from flash contents (``FlashImage``).
    init(capacity: Int, oldest: UInt32, next: UInt32, acknowledgedThrough: UInt32, records: UnsafeRawBufferPointer) {
        self.init(capacity: capacity)
        index = MinuteRingIndex(capacity: capacity, oldest: oldest, next: next, acknowledgedThrough: acknowledgedThrough)
        let skip = (Int(next &- oldest) - index.count) * MinuteRecord.size
        for i in 0..<index.count {
            let base = skip + i * MinuteRecord.size
            let slotBase = slot(of: index.oldest &+ UInt32(i))
            slots.withUnsafeMutableBytes { raw in
                raw.baseAddress!.advanced(by: slotBase).copyMemory(from: records.baseAddress!.advanced(by: base), byteCount: MinuteRecord.size)
            }
        }
    }

    private func slot(of sequence: UInt32) -> Int { index.slot(of: sequence) * MinuteRecord.size }
}
