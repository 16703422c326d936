/// Who may run a history sync now, with no I/O: at most ``limit`` at once, the others waiting
/// their turn in the order they asked.
///
/// A gateway's devices all connect when it starts, and every band's first sync fetches, checks
/// and commits a day of records: run all at once, their transfers, sample batches and the
/// store's transactions pile up in memory together, which is the gateway's peak (docs/performance.md).
/// Holding them to a few turns bounds that peak by design, whatever the number of devices,
/// and costs little time: the commits queue on the one store connection anyway.
///
/// A device is named by its address; asking again while holding or waiting changes nothing,
/// and a device that leaves (its session ended) gives back its turn or its place.
public struct HistorySyncQueue: Sendable, Equatable {
    public let limit: Int
    public private(set) var holders: Set<String> = []
    /// Devices waiting, first come first served.
    public private(set) var waiting: [String] = []

    /// `limit`: syncs at once (at least one).
    public init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// `device` asks for a turn: true when it holds one now (given at once, or already held),
    /// false when it waits (it holds one once ``holds(_:)`` says so).
    public mutating func request(_ device: String) -> Bool {
        if holders.contains(device) { return true }
        if holders.count < limit, waiting.isEmpty || waiting.first == device {
            waiting.removeAll { $0 == device }
            holders.insert(device)
            return true
        }
        if !waiting.contains(device) { waiting.append(device) }
        return false
    }

    public func holds(_ device: String) -> Bool { holders.contains(device) }

    /// `device`'s sync ended, or its session did: its turn goes to the next waiting (returned,
    /// in order), and a place it held in the queue is given up.
    @discardableResult
    public mutating func release(_ device: String) -> [String] {
        holders.remove(device)
        waiting.removeAll { $0 == device }
        var granted: [String] = []
        while holders.count < limit, !waiting.isEmpty {
            let next = waiting.removeFirst()
            holders.insert(next)
            granted.append(next)
        }
        return granted
    }
}
