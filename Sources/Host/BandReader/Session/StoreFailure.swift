import HealthStore

/// The health store failed a session's step: which step, and the store's own error kept whole
/// (not flattened to text), so a caller can tell a busy store (another writer held the lock past
/// the busy timeout: reconnecting and trying again can succeed) from a broken one (a full disk,
/// a damaged file, a refused grant: it cannot).
///
/// Nothing was acknowledged to the band when a store step failed: the band keeps the records.
public struct StoreFailure: Error, Equatable, Sendable, CustomStringConvertible {
    /// What the reader was doing with the store.
    public enum Step: Equatable, Sendable {
        /// Opening (creating, migrating) the store at a location (its password redacted).
        case open(location: String)
        /// Reading the history cursor before a fetch.
        case readCursor
        /// Committing a history transfer's minutes with the cursor (before the acknowledgement).
        case commitHistory
        /// Writing live (provisional) minutes.
        case writeLive
        /// Preparing the writer for a band (its device row).
        case prepareWriter
        /// Reading the last running step total committed for a device (InfiniTime) before streaming.
        case readStepCount
        /// Keeping live minutes in the local spool (or reading it back) while the store was unreachable.
        case spool
    }

    public var step: Step
    /// The store's error, when the failure was one (always, in practice: the writer's calls
    /// throw `HealthStoreError`).
    public var error: HealthStoreError?
    /// The failure's text, for anything that is not a `HealthStoreError`.
    public var detail: String

    public init(_ step: Step, _ error: any Error) {
        self.step = step
        self.error = error as? HealthStoreError
        detail = "\(error)"
    }

    /// True when trying again can succeed: the store was busy (SQLite BUSY/LOCKED, PostgreSQL
    /// serialization failure, deadlock, lock not available) or its server unavailable for now
    /// (``isServerUnavailable``).
    public var isTransient: Bool {
        if case .database(let database)? = error { return database.isBusy || database.isServerUnavailable }
        return false
    }

    /// The store's server could not be reached or went away (PostgreSQL class 08, 57P01–57P03):
    /// ``SessionMachine`` keeps the session going — history unacknowledged, live minutes spooled
    /// — and tries the store again with backoff.
    public var isServerUnavailable: Bool {
        if case .database(let database)? = error { return database.isServerUnavailable }
        return false
    }

    /// The store could not be opened for a reason outside the store's contents: its file or
    /// directory (not writable, not mounted yet, not a file), or its server (PostgreSQL down or
    /// refusing connections: the open reports those as file errors naming the URL). A gateway
    /// started before its store keeps streaming into the spool and tries again. A store that
    /// opened but is of a newer schema, or lacks the person, is not one of these.
    public var mayOpenLater: Bool {
        guard case .open = step, case .file? = error else { return false }
        return true
    }

    /// The disk under the store is full (`DatabaseError/isStorageFull`): a stream keeps going
    /// without the store, as for an unreachable one, until space is freed.
    public var isStorageFull: Bool {
        if case .database(let database)? = error { return database.isStorageFull }
        return false
    }

    public var description: String {
        switch step {
        case .open(let location):
            // The location once: the store's own errors usually name it already.
            return detail.contains(location) ? "cannot open the store: \(detail)" : "cannot open the store \(location): \(detail)"
        case .readCursor, .commitHistory, .writeLive, .prepareWriter, .readStepCount, .spool:
            return detail
        }
    }
}
