import Synchronization

/// The turns of one ``HistorySyncQueue`` shared by the sessions of many devices, each on its
/// own thread: a gateway gives every device's service the same one
/// (``BandReaderService/historyTurns``), as it gives them one store opener.
///
/// A session that must wait keeps handling its link (live readings go on being received) and
/// looks again every ``recheckInterval``: waiting happens only while the first syncs of many
/// devices overlap, so a wake-up per waiting device a few times a second costs less than a
/// descriptor per device to be woken through.
public final class HistorySyncTurns: Sendable {
    /// How often a waiting session looks whether its turn came.
    public static let recheckInterval: Duration = .milliseconds(200)
    private let queue: Mutex<HistorySyncQueue>

    /// At most `limit` history syncs at once.
    public init(limit: Int) {
        queue = Mutex(HistorySyncQueue(limit: limit))
    }

    public var limit: Int { queue.withLock { $0.limit } }

    /// Asks for a turn (see ``HistorySyncQueue/request(_:)``): true when `device` holds one now.
    public func request(_ device: String) -> Bool { queue.withLock { $0.request(device) } }

    /// Gives back `device`'s turn or its place in the queue; nothing when it has neither.
    public func release(_ device: String) { queue.withLock { _ = $0.release(device) } }

    /// The queue as it is now (for tests and status).
    public var snapshot: HistorySyncQueue { queue.withLock { $0 } }
}
