#if canImport(Glibc)
import Glibc
#endif
internal import CPostgres
internal import HealthStore

/// The PostgreSQL engine: one libpq connection.
///
/// Semantics kept equal to SQLite's, except that writers of different people commit in parallel:
/// - Writers lock with transaction-scoped advisory locks right after `BEGIN`, keyed by the schema
///   (``storeLockKey``): a store-wide write (migrations, registering types, a change of the source
///   ranking) takes the store's key exclusively, as SQLite's `BEGIN IMMEDIATE` takes the file's
///   write lock; a write of one person's rows (``WriteScope/person(_:)``: every sample, workout
///   and grant a gateway writes) takes the store's key shared and the person's key exclusively.
///   Anchors then come from the sequence `anchor_block` and a reader's horizon is the person's
///   row of `person_anchor`: ``WriteTransaction`` argues why no reader can miss a change.
///   `BANDKIT_POSTGRES_WRITE_LOCK=store` makes every write store-wide (one writer at a time, as
///   before): read by the benchmark that compares the two (bench/gateway/store-writers.sh).
///   Statements run at READ COMMITTED: each sees every commit before it started.
/// - Readers get one snapshot per read transaction (REPEATABLE READ, READ ONLY), as a WAL reader.
/// - A commit is durable when COMMIT returns (`synchronous_commit = on`, forced for
///   ``Durability/beforeAcknowledgement`` whatever the server's default).
/// - Commits are announced with `NOTIFY bandkit_changes` (``PostgreSQLNotifications``: the schema and
///   the person whose data changed, `schema/person-id`), which ``PostgresListener`` waits for; the
///   announcement is a transaction of its own right after the write's COMMIT (``commitAndAnnounce(_:)``).
///
/// A connection the server dropped (restart, network) is re-established at the next transaction;
/// its prepared statements are prepared again (``generation``).
final class PostgresEngine: DatabaseEngine {
    /// libpq's connection; never nil after a successful ``connect(url:readOnly:libpq:)``.
    let handle: OpaquePointer
    /// The raw libpq calls (``LibPQ/live`` but in tests).
    let pq: LibPQ
    /// The URL without its password, for messages.
    let name: String
    private let readOnly: Bool
    /// Every write takes the store-wide lock (`BANDKIT_POSTGRES_WRITE_LOCK=store`).
    private let storeWideWrites: Bool
    /// The URL as given (credentials included): only to scrub libpq's messages.
    private let url: String
    /// Bumped at every reconnection: statements prepared under an older one prepare again.
    private(set) var generation = 0
    private var statementCounter = 0
    var lastChanges = 0
    /// Statements sent to the server (prepare, execute, script): what batching saves, counted for tests.
    var roundTrips = 0

    private init(handle: OpaquePointer, pq: LibPQ, url: String, readOnly: Bool) {
        self.handle = handle
        self.pq = pq
        self.url = url
        let name = StoreLocation.redacted(url)
        self.name = name
        self.readOnly = readOnly
        storeWideWrites = getenv("BANDKIT_POSTGRES_WRITE_LOCK").map { String(cString: $0) } == "store"
    }

    deinit { pq.finish(handle) }

    var kind: DatabaseError.Engine { .postgresql }

    /// Connects to `url` (libpq's URL syntax, PGPASSFILE/PGPASSWORD/PGSSLMODE honoured as libpq
    /// does). A server that does not answer within 10 s (unless the URL sets `connect_timeout`) fails.
    static func connect(url: String, readOnly: Bool = false, libpq pq: LibPQ = .live) -> Result<PostgresEngine, DatabaseError> {
        let name = StoreLocation.redacted(url)
        // Entries before the expanded URL ("dbname") are defaults the URL may override; entries after it win.
        let keywords = ["connect_timeout", "application_name", "dbname", "client_encoding"]
        let values = ["10", "bandkit", url, "UTF8"]
        let handle = withCStrings(keywords) { keys in
            withCStrings(values) { vals in pq.connect(keys, vals) }
        }
        guard let handle else {
            return .failure(DatabaseError(engine: .postgresql, message: "out of memory", sql: "connect to \(name)"))
        }
        guard pq.status(handle) == CONNECTION_OK else {
            let message = StoreLocation.scrubbed(pq.errorMessage(handle).trimmingTrailingNewlines, of: url)
            pq.finish(handle)
            return .failure(DatabaseError(engine: .postgresql, sqlState: "08001", message: message, sql: "connect to \(name)"))
        }
        pq.silenceNotices(handle)  // "relation already exists, skipping" is no news
        let engine = PostgresEngine(handle: handle, pq: pq, url: url, readOnly: readOnly)
        if case .failure(let error) = engine.configure() { return .failure(error) }
        return .success(engine)
    }

    /// Session settings: doubles printed exactly (round trip), reads only when asked.
    private func configure() -> Result<Void, DatabaseError> {
        execute("SET extra_float_digits = 3" + (readOnly ? "; SET default_transaction_read_only = on" : ""))
    }

    /// Reconnects when the server dropped the connection; statements prepare again afterwards.
    func reconnectIfNeeded() -> Result<Void, DatabaseError> {
        guard isBroken else { return .success(()) }
        return reconnect()
    }

    /// Drops the connection and connects again with the same parameters.
    private func reconnect() -> Result<Void, DatabaseError> {
        pq.reset(handle)
        guard pq.status(handle) == CONNECTION_OK else {
            let message = StoreLocation.scrubbed(pq.errorMessage(handle).trimmingTrailingNewlines, of: url)
            return .failure(DatabaseError(engine: .postgresql, sqlState: "08001", message: message, sql: "reconnect to \(name)"))
        }
        generation += 1
        return configure()
    }

    /// A result that carries no error: a command done or rows returned.
    func isSuccess(_ status: ExecStatusType) -> Bool { status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK }

    func nextStatementName() -> String {
        statementCounter += 1
        return "bandkit_\(statementCounter)"
    }

    /// The error of a failed result (or of the connection when there is no result).
    func error(_ result: OpaquePointer?, sql: String) -> DatabaseError {
        var message = ""
        var state = ""
        if let result {
            message = pq.resultErrorMessage(result)
            state = pq.resultSQLState(result) ?? ""
        }
        if message.isEmpty { message = StoreLocation.scrubbed(pq.errorMessage(handle), of: url) }
        if state.isEmpty, pq.status(handle) != CONNECTION_OK { state = "08006" }
        return DatabaseError(engine: .postgresql, sqlState: state, message: message.trimmingTrailingNewlines, sql: sql)
    }

    func prepare(_ sql: String) -> Result<any EngineStatement, DatabaseError> {
        let statement = PostgresStatement(sql: sql, engine: self)
        return statement.prepareOnServer().map { _ in statement }
    }

    func execute(_ sql: String) -> Result<Void, DatabaseError> {
        roundTrips += 1
        let result = pq.exec(handle, sql)
        defer { pq.clear(result) }
        guard let result, isSuccess(pq.resultStatus(result)) else { return .failure(error(result, sql: sql)) }
        lastChanges = Int(pq.commandTuples(result)) ?? 0
        return .success(())
    }

    /// Runs `BEGIN …`; a connection found dead at that point (nothing done yet) is re-established
    /// and the BEGIN tried once more.
    private func begin(_ sql: String) -> Result<Void, DatabaseError> {
        let first = reconnectIfNeeded().flatMap { execute(sql) }
        // Outside a transaction a BEGIN fails only on a broken connection: connect again, once.
        guard case .failure(let error) = first,
              isBroken || error.isConnectionLost else { return first }
        return reconnect().flatMap { execute(sql) }
    }

    /// The store's advisory lock key: the schema's, so stores in different schemas never wait for each other.
    static let storeLockKey = "hashtext('bandkit:' || current_schema())"

    /// The lock statements of a write of `scope`. A person's key is the two-integer form (the
    /// store's key, the person's id folded into 32 bits), a key space apart from the store's
    /// one-integer key; two people folded onto one key only wait for each other. The person's
    /// key comes first, in its own statement: a writer queued behind another of its person holds
    /// nothing, so a writer widening to the store (``widenToStore()``) waits only for writers
    /// that are running, never for one that waits for it.
    func lockStatement(_ scope: WriteScope) -> String {
        switch storeWideWrites ? .store : scope {
        case .store:
            return "SELECT pg_advisory_xact_lock(\(Self.storeLockKey))"
        case .person(let id):
            let folded = Int32(truncatingIfNeeded: id ^ (id >> 32))
            return "SELECT pg_advisory_xact_lock(\(Self.storeLockKey), \(folded)); SELECT pg_advisory_xact_lock_shared(\(Self.storeLockKey))"
        }
    }

    func beginWrite(durability: Durability, scope: WriteScope) -> Result<Void, DatabaseError> {
        pendingAnnouncement = nil
        // One message, one round trip: the statements still run in order, so the person's lock is
        // still waited for before the store's shared one (``lockStatement(_:)``).
        var script = "BEGIN ISOLATION LEVEL READ COMMITTED"
        // Every commit BandKit acknowledges is on disk when COMMIT returns, whatever the server's default.
        if durability == .beforeAcknowledgement { script += "; SET LOCAL synchronous_commit = on" }
        script += "; " + lockStatement(scope)
        return begin(script).mapError { error in
            if pq.transactionStatus(handle) != PQTRANS_IDLE, !isBroken { _ = execute("ROLLBACK") }
            return error
        }
    }

    /// Takes the store's key exclusively on top of the shared hold: waits for every other writer to
    /// end. Two writers widening at once deadlock; the server aborts one (40P01), which its caller
    /// retries as any lock failure. It happens once per app in a store's life (its first sample
    /// from a device) and when `health priority` runs.
    func widenToStore() -> Result<Void, DatabaseError> {
        execute(lockStatement(.store))
    }

    func endWrite(commit: Bool) -> Result<Void, DatabaseError> {
        let announcement = pendingAnnouncement
        pendingAnnouncement = nil
        if commit { return announcement.map(commitAndAnnounce) ?? execute("COMMIT") }
        if !isAutocommit { _ = execute("ROLLBACK") }
        return .success(())
    }

    /// The person whose commit ``endWrite(commit:)`` announces, set by ``announceCommit(person:)``.
    private var pendingAnnouncement: Int64?

    func announceCommit(person: Int64) { pendingAnnouncement = person }

    /// COMMIT, then the announcement in a transaction of its own, both in one message.
    ///
    /// A NOTIFY inside the write itself would take PostgreSQL's database-wide notification lock
    /// at commit and hold it until the commit record is on disk: every announcing writer, of
    /// every person, would flush one after another, a store-wide lock under the per-person ones
    /// (docs/performance.md, "Store writes with a lock per person"). The announcement's own
    /// transaction commits without waiting for the disk (a notification is a hint that no one
    /// needs after a crash, and listeners re-check on a timer anyway), so that lock is held for
    /// microseconds. The write's COMMIT answers first: its result alone decides success; an
    /// announcement that fails (the server's notification queue full) is given up.
    private func commitAndAnnounce(_ person: Int64) -> Result<Void, DatabaseError> {
        let script = "COMMIT; " + PostgreSQLNotifications.announcementScript(person: person)
        roundTrips += 1
        let results = pq.execEach(handle, script)
        defer { results.forEach { pq.clear($0) } }
        guard let committed = results.first, isSuccess(pq.resultStatus(committed)) else {
            return .failure(error(results.first, sql: "COMMIT"))
        }
        lastChanges = 0
        if pq.transactionStatus(handle) != PQTRANS_IDLE, !isBroken { _ = execute("ROLLBACK") }
        return .success(())
    }

    func beginRead() -> Result<Void, DatabaseError> {
        begin("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
    }

    /// Outside a transaction; a dead connection is in none (the next transaction reconnects).
    var isAutocommit: Bool { pq.transactionStatus(handle) == PQTRANS_IDLE || isBroken }

    /// The connection is gone: the server dropped it, or libpq closed its socket after a failure
    /// while still reporting CONNECTION_OK and the transaction it was in (seen when a server
    /// restart cut a write short: without this the store took itself to be inside that
    /// transaction for ever, every later statement failing "no connection to the server").
    var isBroken: Bool { pq.status(handle) != CONNECTION_OK || pq.socket(handle) < 0 }
    var changes: Int { lastChanges }
}

/// Runs `body` with `strings` as a NULL-terminated array of C strings.
func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
    let copies = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    let pointers: [UnsafePointer<CChar>?] = copies.map { UnsafePointer($0) } + [nil]
    return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
}
