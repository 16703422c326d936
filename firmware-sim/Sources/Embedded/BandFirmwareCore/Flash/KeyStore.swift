import BandProtocol
import BandWire

/// Pairing keys in flash: a few slots of (reader ID, key, history position), least recently used
/// evicted first.
///
/// Each slot also holds that reader's **acknowledged position**: the end of the last history
/// transfer it acknowledged. The band erases a record only once every paired reader's position is
/// past it (``erasableBefore``), so a phone's acknowledgement never erases minutes a laptop has
/// not fetched yet (docs/protocol.md, "Several readers").
public struct KeyStore: Sendable {
    public static let slotCount = 4

    public struct Entry: Sendable, Equatable {
        public var readerID: UInt64
        public var key: BandKey
        /// A counter, not a time: bigger means used more recently (survives clock changes).
        public var lastUsed: UInt32
        /// Records before this sequence number were acknowledged by this reader.
        public var acknowledged: UInt32

        public init(readerID: UInt64, key: BandKey, lastUsed: UInt32, acknowledged: UInt32) {
            self.readerID = readerID
            self.key = key
            self.lastUsed = lastUsed
            self.acknowledged = acknowledged
        }
    }

    public private(set) var entries: [Entry] = []
    private var useCounter: UInt32 = 0

    /// The slots' storage is reserved here, at start-up: pairing a reader later appends without
    /// allocating (the chip allows no heap after start-up).
    public init() {
        entries.reserveCapacity(Self.slotCount)
    }

    init(entries: [Entry]) {
        self.entries = entries
        self.entries.reserveCapacity(Self.slotCount)
        useCounter = entries.map { $0.lastUsed }.max() ?? 0
    }

    public func key(for readerID: UInt64) -> BandKey? {
        entries.first { $0.readerID == readerID }?.key
    }

    /// Stores `key` for `readerID`, replacing its old key or evicting the least recently used slot.
    /// A new reader's position starts at `oldest`, the first record still stored: it holds
    /// back everything the band still has, and nothing older exists.
    public mutating func store(_ key: BandKey, for readerID: UInt64, oldest: UInt32) {
        useCounter &+= 1
        entries.removeAll { $0.readerID == readerID }
        if entries.count == Self.slotCount, let victim = entries.indices.min(by: { entries[$0].lastUsed < entries[$1].lastUsed }) {
            entries.remove(at: victim)
        }
        entries.append(Entry(readerID: readerID, key: key, lastUsed: useCounter, acknowledged: oldest))
    }

    /// Records that `readerID` acknowledged every record before `end` (its store holds them).
    public mutating func acknowledge(_ end: UInt32, by readerID: UInt64) {
        guard let index = entries.firstIndex(where: { $0.readerID == readerID }) else { return }
        entries[index].acknowledged = end
    }

    /// The first record some paired reader has not acknowledged: everything before it may be
    /// erased. With no paired reader, `fallback` (the acknowledging connection's end).
    public func erasableBefore(fallback: UInt32) -> UInt32 {
        // A loop, not map + min: this runs on every acknowledgement, on the chip too (no heap).
        guard var lowest = entries.first?.acknowledged else { return fallback }
        for entry in entries where entry.acknowledged < lowest { lowest = entry.acknowledged }
        return lowest
    }

    /// The paired readers whose position is before `sequence` (they have not acknowledged it).
    public func readersBehind(_ sequence: UInt32) -> [UInt64] {
        entries.filter { $0.acknowledged < sequence }.map { $0.readerID }
    }

    /// Records a successful authentication (for least-recently-used eviction).
    public mutating func markUsed(_ readerID: UInt64) {
        guard let index = entries.firstIndex(where: { $0.readerID == readerID }) else { return }
        useCounter &+= 1
        entries[index].lastUsed = useCounter
    }
}
