import HealthStore
import Synchronization

/// Opens the health store when a session first needs it, and keeps it open: one connection per
/// person, shared by every session given the same opener.
///
/// A gateway hands one opener to all its devices. That is the store's one-writer rule inside
/// the process (writes queue on the connection's lock instead of racing for SQLite's file lock
/// and timing out as "database is locked"), and one page cache instead of one per device. A
/// store that cannot be opened is not remembered: the next call tries again, so a gateway
/// started before its store (PostgreSQL still starting, a disk not yet mounted) keeps its
/// sessions going on the spool until it can.
public final class StoreOpener: Sendable {
    /// The store's location (a file or a `postgresql://` URL, credentials included).
    public let path: String
    /// SQLite's page cache per connection (see `HealthStore`'s `cacheKiB`).
    public let cacheKiB: Int
    private let opened = Mutex<[String: HealthStore]>([:])

    /// A long-running writer of a few rows a minute needs a small cache: a larger one only grows
    /// resident memory as the database grows.
    public init(path: String, cacheKiB: Int = 2048) {
        self.path = path
        self.cacheKiB = cacheKiB
    }

    /// The store for `person` (nil: the store's default person), opened (created, migrated) on
    /// the first call that succeeds.
    public func store(person: String?) throws(SessionError) -> HealthStore {
        let key = person.map { "person:" + $0 } ?? "default"
        // Opened under the lock: devices starting together open (and migrate) the store once.
        let result = opened.withLock { (stores: inout [String: HealthStore]) -> Result<HealthStore, SessionError> in
            if let store = stores[key] { return .success(store) }
            do {
                let store = try HealthStore(path: path, cacheKiB: cacheKiB, person: person)
                stores[key] = store
                return .success(store)
            } catch {
                return .failure(.store(StoreFailure(.open(location: StoreLocation.redacted(path)), error)))
            }
        }
        return try result.get()
    }
}
