import HealthModel

/// A long-lived wait for commits by any process, for a reader that waits again and again (the
/// dashboard's ``ChangeBroadcast``; `health changes --wait`, which waits once, uses
/// ``HealthStore/waitForChanges(after:timeout:recheckInterval:)``).
///
/// It owns one wake-up source for its whole life: on a SQLite store an inotify watch of the
/// store's directory (wakes when any process writes the `-wal` file); on PostgreSQL one connection
/// of its own that LISTENs for the writers' `NOTIFY bandkit_changes` (module HealthStorePostgreSQL).
/// So a stream that waits in one-second slices for a year opens one connection, not one per
/// slice, and a notification that arrives between two slices waits in that connection's queue
/// instead of being lost with a closed one. Each wake (and at least every `recheckInterval`)
/// re-reads the one-row change counter: the wake is a hint, never trusted alone.
///
/// Not shared between threads: one per waiting thread. A server with many waiters (the dashboard's
/// event streams) shares one through ``ChangeBroadcast``.
public final class ChangeWatch {
    private let store: HealthStore
    let watch: any ChangeWaiting

    init(store: HealthStore) throws {
        self.store = store
        switch store.location {
        case .postgresql(let url):
            guard let postgreSQL = store.postgreSQL else { throw PostgreSQLEngines.missing(url) }
            watch = try postgreSQL.listener(url: url, person: store.personID)
        case .file:
            let directory = StoreFile.directory(of: store.path)
            watch = DirectoryWatch(directory: directory.isEmpty ? "." : directory)
        }
    }

    /// Blocks until a change of the store's person after `anchor` is committed or `timeout`
    /// passes. Returns the new current anchor, or nil on timeout.
    public func wait(after anchor: Anchor, timeout: Duration, recheckInterval: Duration = .seconds(1)) throws -> Anchor? {
        let deadline = ContinuousClock.now + timeout
        var seen = anchor
        while true {
            let current = try store.currentAnchor()
            if current > seen {
                // The horizon may pass anchors of other people's changes, which are no change of
                // this person's.
                if try store.hasChanges(after: seen, through: current) { return current }
                seen = current
            }
            let now = ContinuousClock.now
            if now >= deadline { return nil }
            let wait = min(deadline - now, recheckInterval)
            try watch.wait(milliseconds: Int32(clamping: wait.components.seconds * 1000
                                                  + wait.components.attoseconds / 1_000_000_000_000_000))
        }
    }
}

extension HealthStore {
    /// A wait for changes to keep and reuse (``ChangeWatch``); opens its PostgreSQL connection now.
    public func changeWatch() throws -> ChangeWatch { try ChangeWatch(store: self) }
}

/// Something a reader sleeps on until another process may have committed.
package protocol ChangeWaiting {
    func wait(milliseconds: Int32) throws
}

extension DirectoryWatch: ChangeWaiting {}
