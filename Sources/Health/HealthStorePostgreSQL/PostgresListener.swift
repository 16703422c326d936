#if canImport(Glibc)
import Glibc
#endif
import BandKitSystem
internal import CPostgres
internal import HealthStore

/// Waits for commits announced on PostgreSQL (`LISTEN bandkit_changes`), on a connection of its
/// own so that the store's connection stays free while a reader waits.
///
/// Sleeps in `poll(2)` on libpq's socket; a notification for its own store and person (the
/// payload, ``PostgreSQLNotifications/payload(schema:person:)``) or the timeout wakes it.
/// Another person's commits, or another store's in the same database, are read and dropped
/// without waking the caller: a dashboard of one person sleeps through a household's other
/// bands. As with ``DirectoryWatch``, the wake is a hint: the caller re-reads the change counter either way.
final class PostgresListener: ChangeWaiting {
    private let engine: PostgresEngine
    /// The payload that wakes this listener.
    let payload: String
    /// Notifications that woke the caller, those of this store's other people and those of other
    /// stores it slept through (tests read them; other stores' tests run in the same database).
    private(set) var wakes = 0
    private(set) var ignored = 0
    private(set) var otherStores = 0
    /// The payloads' start for this store: `schema/`.
    private let storePrefix: String

    init(url: String, person: Int64, libpq: LibPQ = .live) throws(HealthStoreError) {
        engine = try PostgresEngine.connect(url: url, readOnly: true, libpq: libpq).get()
        let schema = try engine.prepare("SELECT current_schema()").flatMap { statement in
            statement.step().map { _ in statement.text(0) ?? "" }
        }.get()
        payload = PostgreSQLNotifications.payload(schema: schema, person: person)
        storePrefix = String(payload.prefix(through: payload.lastIndex(of: "/") ?? payload.startIndex))
        try listen()
    }

    private func listen() throws(HealthStoreError) {
        try engine.execute("LISTEN \(PostgreSQLNotifications.channel)").get()
    }

    func wait(milliseconds: Int32) throws {
        let deadline = ContinuousClock.now + .milliseconds(max(0, milliseconds))
        while true {
            let socket = engine.pq.socket(engine.handle)
            guard socket >= 0 else {  // connection lost: reconnect and listen again; the caller re-checks meanwhile
                try engine.reconnectIfNeeded().get()
                try listen()
                return
            }
            let left = max(.zero, deadline - ContinuousClock.now)
            var entry = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let millisecondsLeft = Int32(clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000)
            if case .failure(let error) = valueOrErrno({ poll(&entry, 1, millisecondsLeft) }) { throw error }
            if !engine.pq.consumeInput(engine.handle) {
                try engine.reconnectIfNeeded().get()
                try listen()
                return
            }
            var mine = false
            while let payload = engine.pq.nextNotification(engine.handle) {
                if payload == self.payload {
                    mine = true
                } else if payload.hasPrefix(storePrefix) {
                    ignored += 1
                } else {
                    otherStores += 1
                }
            }
            if mine { wakes += 1; return }
            if ContinuousClock.now >= deadline { return }
        }
    }
}
