/// The bookkeeping of the band's minute-record ring, without its storage: which sequence numbers
/// are stored, where each one's slot is, what a reader acknowledged, what was overwritten unread.
/// Shared by the Linux band (BandFirmware's `MinuteRing`, slots in an array) and the firmware core
/// (slots in flash pages, next), so both count and overwrite the same way. Embedded-Swift-clean:
/// no storage, no allocation, no traps on any input (callers check ``contains(_:)``).
///
/// Sequence numbers start at 0 when the flash is formatted and are never reused; `oldest` is
/// the first still stored, `next` the one the next record gets. Appending to a full ring drops
/// the oldest record whether or not a reader acknowledged it (the band cannot stop counting) and
/// counts it in ``overwrittenUnacknowledged`` when it was not acknowledged.
public struct MinuteRingIndex: Equatable {
    public let capacity: Int
    public private(set) var oldest: UInt32 = 0
    public private(set) var next: UInt32 = 0
    /// Everything before this was acknowledged by a reader.
    public private(set) var acknowledgedThrough: UInt32 = 0
    /// Records overwritten before anyone acknowledged them, since this index was made.
    public private(set) var overwrittenUnacknowledged: UInt64 = 0

    /// `capacity` slots (at least 1; smaller values are taken as 1).
    public init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// An index restored from flash: `stored` = `next - oldest` may exceed the capacity (a ring
    /// saved with more slots); then only the newest `capacity` records are kept.
    public init(capacity: Int, oldest: UInt32, next: UInt32, acknowledgedThrough: UInt32) {
        self.init(capacity: capacity)
        let kept = min(Int(next &- oldest), self.capacity)
        self.oldest = next &- UInt32(kept)
        self.next = next
        self.acknowledgedThrough = acknowledgedThrough
    }

    public var count: Int { Int(next &- oldest) }
    public var isEmpty: Bool { next == oldest }
    public var isFull: Bool { count == capacity }

    public func contains(_ sequence: UInt32) -> Bool { sequence >= oldest && sequence < next }

    /// The slot (0..<capacity) record `sequence` lives in.
    public func slot(of sequence: UInt32) -> Int { Int(sequence % UInt32(capacity)) }

    /// Takes the next sequence number, dropping the oldest record first when the ring is full;
    /// the caller writes the record into `slot(of:)` of the returned number.
    public mutating func append() -> UInt32 {
        if isFull {
            if oldest >= acknowledgedThrough { overwrittenUnacknowledged &+= 1 }
            oldest &+= 1
        }
        let sequence = next
        next &+= 1
        return sequence
    }

    /// Drops every record before `sequence` (acknowledged by a reader). A sequence past `next`
    /// acknowledges nothing that does not exist: it is clamped to `next`. Returns the clamped value.
    @discardableResult
    public mutating func erase(before sequence: UInt32) -> UInt32 {
        let through = min(sequence, next)
        acknowledgedThrough = max(acknowledgedThrough, through)
        if through > oldest { oldest = through }
        return through
    }
}
