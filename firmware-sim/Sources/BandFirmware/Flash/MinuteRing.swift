import BandProtocol
import BandWire

/// The minute-record ring in the band's flash: `capacity` fixed 16-byte slots addressed by
/// record sequence number (`seq % capacity`).
///
/// Sequence numbers start at 0 when the flash is formatted and are never reused. `oldest` is
/// the first one still stored, `next` the one the next record gets. Writing into a full ring
/// overwrites the oldest record whether or not a reader acknowledged it (the band cannot stop
/// counting); ``erase(before:)`` drops acknowledged records. Storage is one buffer allocated at
/// boot; appending and reading never allocate.
public struct MinuteRing {
    public let capacity: Int
    public private(set) var oldest: UInt32 = 0
    public private(set) var next: UInt32 = 0
    /// Records overwritten before anyone acknowledged them, since this process started.
    public private(set) var overwrittenUnacknowledged: UInt64 = 0
    /// Everything before this was acknowledged by a reader.
    public private(set) var acknowledgedThrough: UInt32 = 0
    private var slots: [UInt8]

    public init(capacity: Int) {
        precondition(capacity > 0, "the ring needs at least one slot")
        self.capacity = capacity
        slots = [UInt8](repeating: 0xFF, count: capacity * MinuteRecord.size)
    }

    public var count: Int { Int(next &- oldest) }
    public var isEmpty: Bool { next == oldest }

    /// Stores `record` as sequence number `next` and returns that number.
    @discardableResult
    public mutating func append(_ record: MinuteRecord) -> UInt32 {
        if count == capacity {
            if oldest >= acknowledgedThrough { overwrittenUnacknowledged += 1 }
            oldest &+= 1
        }
        let sequence = next
        let base = slot(of: sequence)
        slots.withUnsafeMutableBytes { raw in
            var writer = ByteWriter(UnsafeMutableRawBufferPointer(rebasing: raw[base..<base + MinuteRecord.size]))
            record.encode(into: &writer)
        }
        next &+= 1
        return sequence
    }

    /// The stored bytes of record `sequence`, which must be in `oldest..<next`.
    public func withRecordBytes<R>(_ sequence: UInt32, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        precondition(contains(sequence), "record \(sequence) is not stored (\(oldest)..<\(next))")
        let base = slot(of: sequence)
        return slots.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[base..<base + MinuteRecord.size])) }
    }

    /// Record `sequence` decoded (cold paths, tests).
    public func record(_ sequence: UInt32) -> MinuteRecord {
        withRecordBytes(sequence) { raw in
            do throws(ParseError) { return try MinuteRecord(parsingAll: raw) } catch {
                preconditionFailure("flash slot \(sequence) holds an invalid record: \(error)")
            }
        }
    }

    public func contains(_ sequence: UInt32) -> Bool { sequence >= oldest && sequence < next }

    /// Drops every record before `sequence` (acknowledged by a reader).
    public mutating func erase(before sequence: UInt32) {
        precondition(sequence <= next, "cannot erase records that do not exist yet")
        acknowledgedThrough = max(acknowledgedThrough, sequence)
        if sequence > oldest { oldest = sequence }
    }

    /// Restores a ring from flash contents (``FlashImage``).
    init(capacity: Int, oldest: UInt32, next: UInt32, acknowledgedThrough: UInt32, records: UnsafeRawBufferPointer) {
        self.init(capacity: capacity)
        let stored = Int(next &- oldest)
        let kept = min(stored, capacity)
        self.oldest = next &- UInt32(kept)
        self.next = self.oldest
        self.acknowledgedThrough = acknowledgedThrough
        let skip = (stored - kept) * MinuteRecord.size
        for i in 0..<kept {
            let base = skip + i * MinuteRecord.size
            let sequence = self.next
            let slotBase = slot(of: sequence)
            slots.withUnsafeMutableBytes { raw in
                raw.baseAddress!.advanced(by: slotBase).copyMemory(from: records.baseAddress!.advanced(by: base), byteCount: MinuteRecord.size)
            }
            self.next &+= 1
        }
    }

    private func slot(of sequence: UInt32) -> Int { Int(sequence % UInt32(capacity)) * MinuteRecord.size }
}
