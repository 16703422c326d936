import Synchronization

/// What the store needs from a PostgreSQL engine without linking libpq itself.
///
/// The engine lives in module HealthStorePostgreSQL, so that a program that keeps its store in a
/// SQLite file links no libpq. A program that wants `postgresql://` locations links that module and
/// calls its `HealthStore.enablePostgreSQL()` once, which registers the engine here; until then
/// opening such a location fails with ``HealthStoreError/file(path:reason:)`` saying the build has
/// no PostgreSQL engine, and ``StoreLocation/parse(_:)`` cannot ask libpq whether a URL is valid.
package protocol PostgreSQLSupport: Sendable {
    /// Connects to `url` (credentials included); the error names the URL without its password.
    func connect(url: String, readOnly: Bool) -> Result<any DatabaseEngine, DatabaseError>
    /// A connection of its own that waits for commits announced for `person` of the store at `url`.
    func listener(url: String, person: Int64) throws(HealthStoreError) -> any ChangeWaiting
    /// Why libpq refuses `url` as a connection string (its message), nil when it parses.
    func connectionInfoProblem(_ url: String) -> String?
}

/// The process's PostgreSQL engine, once a program registered one.
package enum PostgreSQLEngines {
    private static let slot = Mutex<(any PostgreSQLSupport)?>(nil)

    /// The registered engine, nil when the program never asked for PostgreSQL.
    package static var registered: (any PostgreSQLSupport)? { slot.withLock { $0 } }

    /// Makes `engine` the one every later `postgresql://` location opens with.
    package static func register(_ engine: any PostgreSQLSupport) { slot.withLock { $0 = engine } }

    /// What opening `location` without an engine says (the location is shown without its password).
    package static func missing(_ location: String) -> HealthStoreError {
        .file(path: StoreLocation.redacted(location),
              reason: "this build has no PostgreSQL engine: link the HealthStorePostgreSQL module and call "
                  + "HealthStore.enablePostgreSQL() once before opening a postgresql:// store")
    }
}

/// How commits are announced on PostgreSQL, shared by the writer (``WriteTransaction``) and the
/// engine's listener.
package enum PostgreSQLNotifications {
    package static let channel = "bandkit_changes"

    /// Tells listeners (other processes' change watches) that `person`'s data changed, in a
    /// transaction of its own that does not wait for the disk; the engine sends it right after
    /// a write's COMMIT succeeded. The payload is ``payload(schema:person:)``.
    package static func announcementScript(person: Int64) -> String {
        "BEGIN; SET LOCAL synchronous_commit = off; SELECT pg_notify('\(channel)', current_schema() || '/\(person)'); COMMIT"
    }

    /// A notification's payload: the store's schema and the person whose data changed, so that a
    /// listener wakes only for its own store and person.
    package static func payload(schema: String, person: Int64) -> String { "\(schema)/\(person)" }
}
