import BandProtocol
import BandWire

/// Pairing keys in flash: a few slots of (reader ID, key), least recently used evicted first.
public struct KeyStore: Sendable {
    public static let slotCount = 4

    public struct Entry: Sendable, Equatable {
        public var readerID: UInt64
        public var key: BandKey
        /// A counter, not a time: bigger means used more recently (survives clock changes).
        public var lastUsed: UInt32
    }

    public private(set) var entries: [Entry] = []
    private var useCounter: UInt32 = 0

    public init() {}

    init(entries: [Entry]) {
        self.entries = entries
        useCounter = entries.map(\.lastUsed).max() ?? 0
    }

    public func key(for readerID: UInt64) -> BandKey? {
        entries.first { $0.readerID == readerID }?.key
    }

    /// Stores `key` for `readerID`, replacing its old key or evicting the least recently used slot.
    public mutating func store(_ key: BandKey, for readerID: UInt64) {
        useCounter &+= 1
        entries.removeAll { $0.readerID == readerID }
        if entries.count == Self.slotCount, let victim = entries.indices.min(by: { entries[$0].lastUsed < entries[$1].lastUsed }) {
            entries.remove(at: victim)
        }
        entries.append(Entry(readerID: readerID, key: key, lastUsed: useCounter))
    }

    /// Records a successful authentication (for least-recently-used eviction).
    public mutating func markUsed(_ readerID: UInt64) {
        guard let index = entries.firstIndex(where: { $0.readerID == readerID }) else { return }
        useCounter &+= 1
        entries[index].lastUsed = useCounter
    }
}
