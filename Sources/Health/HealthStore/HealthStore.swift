internal import CSQLite
import FoundationEssentials
import HealthModel

/// A HealthKit-like store of health samples in one SQLite file, or in a PostgreSQL database
/// when opened with a `postgresql://` URL (``StoreLocation``): the same semantics on both.
///
/// Open one per process (`HealthStore(path:)` creates and migrates); many processes may open the
/// same file: SQLite's WAL mode gives one writer and any number of concurrent readers, and a
/// writer waits up to ``busyTimeoutMilliseconds`` for another's lock. Within a process an
/// instance may be shared between threads: calls are serialized.
///
/// Every call names the app it acts for (`AppIdentity`). Writes need a write grant per type;
/// reads follow HealthKit: an app without a read grant is not told so, it simply sees only the
/// samples it wrote itself. `AppIdentity/owner` (the `health` command) sees and may do everything.
public final class HealthStore: @unchecked Sendable {
    public static let busyTimeoutMilliseconds: Int32 = 10_000

    /// The file, or the PostgreSQL URL without its password (safe to print).
    public let path: String
    /// Where the store lives, credentials included (never printed: see ``path``).
    let location: StoreLocation
    /// The engine a `postgresql://` location was opened with (nil for a file).
    let postgreSQL: (any PostgreSQLSupport)?
    let connection: Connection
    /// Recursive so that a query made inside a `write` closure (same thread) runs inside that
    /// transaction and sees its uncommitted samples, instead of deadlocking.
    private let lock = RecursiveLock()
    /// Sample type identifiers ↔ rows of `sample_type`; fixed once the store is open. A read-only
    /// store lacking a type's row maps it to a negative id (``registerTypes``).
    let typeIDs: [SampleType: Int64]
    let typesByID: [Int64: SampleType]
    /// Known rows of `app` and `device`, keyed byte for byte (``ExactText``); entries made by a
    /// rolled-back transaction are removed.
    var appIDs: [ExactText: Int64] = [:]
    var deviceIDs: [ExactText: Int64] = [:]
    /// What commits left in shared rows that only ever grow: each type's longest sample duration
    /// known to be stored, and the apps known to rank among devices. A write within them skips the
    /// UPDATEs that would change nothing (a round trip each on PostgreSQL). Raised after commits only.
    var storedMaxDurations: [Int64: Int64] = [:]
    var appsKnownToRecordDevices: Set<Int64> = []
    /// The person this instance reads and writes for (docs/architecture.md, "People").
    public let person: Person
    var personID: Int64 { person.id }

    /// `BANDKIT_STORE`, else `$XDG_DATA_HOME/bandkit/health.sqlite` (`~/.local/share` when unset).
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        StoreFile.defaultPath(environment: environment)
    }

    /// SQLite's page cache for bulk work (imports, year-long statistics).
    public static let defaultCacheKiB = 65_536

    /// SQLite's name for a private, empty, in-memory database: what a reader sees where no
    /// store exists yet, without creating one.
    public static let inMemoryPath = ":memory:"

    /// Whether this instance was opened for reading only (`init(path:cacheKiB:readOnly:)`).
    public let isReadOnly: Bool

    /// Opens the store at `path`, creating the file (mode 0600) and applying missing migrations.
    ///
    /// `cacheKiB` bounds SQLite's page cache: the default suits bulk imports and statistics;
    /// a long-running writer of a few rows a minute (the reader) needs only a few MiB, and a
    /// larger cache only grows its resident memory as the database grows.
    ///
    /// `readOnly` opens an existing store with `SQLITE_OPEN_READONLY` and `PRAGMA query_only`:
    /// nothing is created, migrated or written, so a store on a read-only filesystem can be
    /// read (docs/deployment.md). Every failure names the file and the step that failed.
    ///
    /// `path` may also be a PostgreSQL URL (`postgresql://user@host/db?sslmode=require`): then
    /// the store is that database (its current schema), `cacheKiB` is the server's business, and
    /// `readOnly` opens a read-only session. A malformed URL throws ``HealthStoreError/file(path:reason:)``
    /// naming the URL without its password.
    ///
    /// `person` names the person whose samples, workouts, statistics, change feed, grants and
    /// characteristics this instance reads and writes; nil is the default person (every store's
    /// first, the only one a store written before people existed has). An unknown name throws
    /// ``HealthStoreError/unknownPerson(_:)``.
    ///
    /// Opening a PostgreSQL URL needs the engine of module HealthStorePostgreSQL, registered once
    /// with `HealthStore.enablePostgreSQL()`; without it the open fails saying so.
    public convenience init(path: String, cacheKiB: Int = HealthStore.defaultCacheKiB, readOnly: Bool = false,
                            person personName: String? = nil) throws {
        try self.init(path: path, cacheKiB: cacheKiB, readOnly: readOnly, person: personName,
                      postgreSQL: PostgreSQLEngines.registered)
    }

    /// ``init(path:cacheKiB:readOnly:person:)`` with the PostgreSQL engine given (nil: none linked).
    init(path: String, cacheKiB: Int, readOnly: Bool, person personName: String?,
         postgreSQL: (any PostgreSQLSupport)?) throws {
        let location: StoreLocation
        do { location = try StoreLocation.parse(path, connectionInfoProblem: postgreSQL?.connectionInfoProblem) } catch {
            throw HealthStoreError.file(path: error.url, reason: "is not a valid PostgreSQL URL: \(error.reason)")
        }
        self.location = location
        self.postgreSQL = postgreSQL
        let path = location.redacted
        self.path = path
        isReadOnly = readOnly
        func step<T>(_ name: String, _ body: () throws -> T) throws -> T {
            do { return try body() } catch let error as HealthStoreError {
                throw HealthStore.openFailure(path: path, step: name, error)
            }
        }
        let connection: Connection
        if case .postgresql(let url) = location {
            guard let postgreSQL else { throw PostgreSQLEngines.missing(url) }
            connection = try step("connect") {
                Connection(engine: try postgreSQL.connect(url: url, readOnly: readOnly).get())
            }
            if readOnly {
                let applied = try step("read the schema") { try HealthStore.appliedMigrations(connection) }
                let missing = Migration.all.map(\.name).filter { !applied.contains($0) }
                if !missing.isEmpty {
                    throw HealthStore.needsWriter(path: path, what: "lacks the migrations \(missing.joined(separator: ", "))")
                }
            } else {
                _ = try step("migrate") { try Migrator.migrate(connection, now: Date().microsecondsSince1970) }
            }
        } else if readOnly {
            // ":memory:" is SQLite's private in-memory database: no file to prepare.
            if path != HealthStore.inMemoryPath { try StoreFile.prepare(path, create: false) }
            connection = try step("open read-only") { try HealthStore.openReadOnly(path: path, cacheKiB: cacheKiB) }
            let applied = try step("read the schema") { try HealthStore.appliedMigrations(connection) }
            var missing = Migration.all.map(\.name).filter { !applied.contains($0) }
            if let tracks = missing.firstIndex(of: Migration.workoutTracks.name) {
                try step("read the schema") { try connection.execute(WorkoutTracksBeforeMigration.tables).get() }
                missing.remove(at: tracks)
            }
            let lacksPersonAnchors = missing.contains(Migration.personAnchors.name)
            missing.removeAll { $0 == Migration.personAnchors.name }
            if missing == [Migration.people.name] {
                // Written before people existed: read as its one (default) person, through views.
                try step("read the schema") { try PeopleBeforeMigration.createViews(connection) }
            } else if !missing.isEmpty {
                throw HealthStore.needsWriter(path: path, what: "lacks the migrations \(missing.joined(separator: ", "))")
            }
            if lacksPersonAnchors {
                // After the people views: it reads `person`.
                try step("read the schema") { try connection.execute(PersonAnchorsBeforeMigration.view).get() }
            }
            try step("open read-only") { try connection.execute("PRAGMA query_only = 1").get() }
        } else {
            if path != HealthStore.inMemoryPath { try StoreFile.prepare(path, create: true) }
            let engine = try step("open") { try SQLiteEngine.open(path: path, create: true).get() }
            engine.setBusyTimeout(milliseconds: HealthStore.busyTimeoutMilliseconds)
            connection = Connection(engine: engine)
            // WAL: readers never block the writer nor each other. synchronous=NORMAL is durable
            // against application crashes and never corrupts; a power loss may drop the last commits,
            // so a commit something irreversible depends on asks for ``Durability/beforeAcknowledgement``.
            try step("configure (journal mode, synchronous, cache)") {
                try connection.execute("""
                    PRAGMA journal_mode = WAL;
                    PRAGMA synchronous = NORMAL;
                    PRAGMA foreign_keys = ON;
                    PRAGMA cache_size = -\(max(64, cacheKiB));
                    PRAGMA temp_store = MEMORY;
                    """).get()
            }
            _ = try step("migrate") { try Migrator.migrate(connection, now: Date().microsecondsSince1970) }
        }
        self.connection = connection
        var ids: [SampleType: Int64] = [:]
        try step(readOnly ? "read the schema" : "register sample types") {
            try HealthStore.registerTypes(connection, into: &ids, readOnly: readOnly)
        }
        typeIDs = ids
        typesByID = Dictionary(uniqueKeysWithValues: ids.map { ($1, $0) })
        person = try HealthStore.openingPerson(personName, connection, path: path)
        if readOnly {
            let complete = try step("read the schema") {
                try connection.scalar("SELECT complete FROM merged_hour_state WHERE id = 1").get() ?? 0
            }
            if complete == 0 { throw HealthStore.needsWriter(path: path, what: "its hourly totals are not built yet") }
        } else {
            try step("build the hourly totals") { try ensureMergedHours() }
        }
    }

    /// A read-only connection. On read-only media SQLite cannot create the WAL index (`-shm`)
    /// a WAL database needs; then the file is opened as immutable, which nothing there can
    /// change anyway.
    private static func openReadOnly(path: String, cacheKiB: Int) throws(HealthStoreError) -> Connection {
        // `query_only` is set by the caller once the schema is known: a store without the people
        // migration first gets its temporary views (``PeopleBeforeMigration``), which it forbids.
        let settings = """
            PRAGMA foreign_keys = ON;
            PRAGMA cache_size = -\(max(64, cacheKiB));
            PRAGMA temp_store = MEMORY;
            """
        let engine = try SQLiteEngine.open(path: path, create: false, readOnly: true).get()
        engine.setBusyTimeout(milliseconds: HealthStore.busyTimeoutMilliseconds)
        let connection = Connection(engine: engine)
        switch connection.execute(settings).flatMap({ connection.scalar("SELECT count(*) FROM sqlite_master") }) {
        case .success: return connection
        case .failure(let error) where error.primaryCode == SQLITE_CANTOPEN || error.primaryCode == SQLITE_READONLY:
            let immutable = Connection(engine: try SQLiteEngine.open(path: path, create: false, readOnly: true, immutable: true).get())
            try immutable.execute(settings).get()
            _ = try immutable.scalar("SELECT count(*) FROM sqlite_master").get()
            return immutable
        case .failure(let error): throw .database(error)
        }
    }

    /// "PATH: STEP: what the engine said", without the SQL (a wall of PRAGMAs helps no one).
    static func openFailure(path: String, step: String, _ error: HealthStoreError) -> HealthStoreError {
        switch error {
        case .database(let database) where database.engine == .postgresql:
            let state = database.sqlState.isEmpty ? "" : " (SQLSTATE \(database.sqlState))"
            return .file(path: path, reason: "\(step): \(database.message)\(state)")
        case .database(let sqlite):
            let name = sqlite.codeName
            let detail = sqlite.message == name ? name : "\(sqlite.message) (\(name))"
            return .file(path: path, reason: "\(step): \(detail), SQLite code \(sqlite.code)")
        case .file(let where_, let reason) where where_.isEmpty: return needsWriter(path: path, what: reason)
        case .file, .supersededSchema: return error
        default: return .file(path: path, reason: "\(step): \(error)")
        }
    }

    /// The names of the migrations a store has applied.
    private static func appliedMigrations(_ connection: Connection) throws(HealthStoreError) -> Set<String> {
        let select = try connection.cached("SELECT name FROM schema_migration").get()
        defer { select.reset() }
        var names: Set<String> = []
        while try select.step().get() { if let name = select.text(0) { names.insert(name) } }
        return names
    }

    static func needsWriter(path: String, what: String) -> HealthStoreError {
        .file(path: path, reason: "was written by an older BandKit and \(what); open it once with a command that writes (e.g. 'health import /dev/null') before reading it read-only")
    }

    private static func registerTypes(_ connection: Connection, into ids: inout [SampleType: Int64],
                                      readOnly: Bool) throws(HealthStoreError) {
        func load() throws(HealthStoreError) {
            let select = try connection.cached("SELECT id, identifier FROM sample_type").get()
            defer { select.reset() }
            let byName = Dictionary(uniqueKeysWithValues: SampleType.all.map { ($0.identifier, $0) })
            while try select.step().get() {
                if let name = select.text(1), let type = byName[name] { ids[type] = select.int64(0) }
            }
        }
        try load()
        if ids.count == SampleType.all.count { return }
        if readOnly {
            // A store an older BandKit wrote lacks the rows of types added since (sleep-analysis);
            // it holds no samples of them. A reader may not add the rows, so each such type gets
            // an id no row can have (rows count up from 1): every read of it finds nothing, as it
            // would once a writer registered the type.
            var unregistered: Int64 = 0
            for type in SampleType.all where ids[type] == nil {
                unregistered -= 1
                ids[type] = unregistered
            }
            return
        }
        try connection.engine.beginWrite(durability: .ordinary).get()
        do {
            let insert = try connection.cached("INSERT INTO sample_type (identifier) VALUES (?) ON CONFLICT DO NOTHING").get()
            for type in SampleType.all {
                insert.bind(1, type.identifier)
                try insert.run().get()
            }
            try connection.engine.endWrite(commit: true).get()
        } catch {
            _ = connection.engine.endWrite(commit: false)
            throw error
        }
        try load()
    }

    /// Runs `body` with exclusive use of the connection.
    func withConnection<T, E: Error>(_ body: (Connection) throws(E) -> T) throws(E) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(connection)
    }

    /// Runs `body` in one read transaction: every statement sees the same snapshot. Inside a
    /// write transaction it runs in that transaction.
    func read<T>(_ body: (Connection) throws -> T) throws -> T {
        try withConnection { connection in
            if !connection.isAutocommit { return try body(connection) }
            try connection.engine.beginRead().get()
            do {
                let result = try body(connection)
                try connection.execute("COMMIT").get()
                return result
            } catch {
                _ = connection.execute("ROLLBACK")
                throw error
            }
        }
    }

    /// A read whose rows come from one statement (lookups of rows that are only ever added may
    /// come before it): on PostgreSQL that statement's own snapshot is the read's, so it runs
    /// without the BEGIN and COMMIT around it, two round trips of three.
    func readOneStatement<T>(_ body: (Connection) throws -> T) throws -> T {
        try withConnection { connection in
            if connection.kind == .postgresql, connection.isAutocommit { return try body(connection) }
            return try read(body)
        }
    }

    func typeID(_ type: SampleType) -> Int64 {
        // Every SampleType is registered at open; a miss would be a programming error.
        typeIDs[type]!
    }

    /// The row of an app, or nil when it never wrote anything.
    func existingAppID(_ bundleID: String, _ connection: Connection) throws(HealthStoreError) -> Int64? {
        if let id = appIDs[ExactText(bundleID)] { return id }
        let id = try connection.scalar("SELECT id FROM app WHERE bundle_id = ?") { $0.bind(1, bundleID) }.get()
        if let id { appIDs[ExactText(bundleID)] = id }
        return id
    }

    // MARK: Writing

    /// Runs `body` in one write transaction on behalf of `app`: everything it saves, deletes and
    /// sets is committed together, or nothing is when it throws.
    ///
    /// Bulk writes belong in one call: statements are prepared once and reused, and the whole
    /// batch is one commit.
    ///
    /// `durability` says what the commit must survive (see ``Durability``): ordinary writes
    /// survive a crash of the process; ``Durability/beforeAcknowledgement`` also a power loss.
    @discardableResult
    public func write<T>(as app: AppIdentity, durability: Durability = .ordinary,
                         _ body: (WriteTransaction) throws -> T) throws -> T {
        try withConnection { connection in
            if !connection.isAutocommit {
                throw HealthStoreError.misuse("write(as:) called inside another write transaction; use its transaction")
            }
            // The engine takes the writers' lock of this person (WriteTransaction's comment says
            // why that is enough); for beforeAcknowledgement it makes the commit durable against
            // power loss (Durability's comment).
            try connection.engine.beginWrite(durability: durability, scope: .person(personID)).get()
            let transaction: WriteTransaction
            do {
                let anchors: AnchorSource
                if connection.kind == .postgresql {
                    anchors = .sequence
                } else {
                    anchors = .counter(try connection.scalar("SELECT anchor FROM change_counter WHERE id = 1").get() ?? 0)
                }
                transaction = WriteTransaction(store: self, connection: connection, app: app, anchors: anchors)
            } catch {
                _ = connection.engine.endWrite(commit: false)
                throw error
            }
            do {
                let result = try body(transaction)
                try transaction.finish()
                try connection.engine.endWrite(commit: true).get()
                transaction.isOpen = false
                transaction.committed()
                if !transaction.appsToFlag.isEmpty {
                    // The samples are committed whatever happens here: a flag not set now is
                    // still 0, so the app's next write with a device sets it.
                    try? flagAppsRecordingDevices(transaction.appsToFlag, durability: durability, connection)
                }
                return result
            } catch {
                transaction.isOpen = false
                _ = connection.engine.endWrite(commit: false)
                for bundleID in transaction.createdApps { appIDs[ExactText(bundleID)] = nil }
                for device in transaction.createdDevices { deviceIDs[ExactText(device)] = nil }
                throw error
            }
        }
    }

    /// Marks apps as recording devices after a write found their first samples with one. That
    /// ranks them among devices (`priorityOrder`) and so changes every person's
    /// merged sums wherever they have data: a store-wide write of its own, which takes the store's
    /// lock from the start and queues behind running writers like a migration. Widening the
    /// finding write to the store instead deadlocked when many first writers of one app raced
    /// (each held the store's lock shared while waiting for the row of the one widening): the
    /// server broke one cycle a second, for minutes. Until this commits, every sum is the one
    /// of the app not yet flagged, as the invariant of the merged hours wants.
    func flagAppsRecordingDevices(_ ids: [Int64], durability: Durability, _ connection: Connection) throws {
        // Another writer's follow-up may have flagged them meanwhile: then no store-wide write,
        // which would wait for every running writer and hold up every new one.
        let flaggedMeanwhile = ids.filter { id in
            (try? connection.scalar("SELECT records_device FROM app WHERE id = ?") { $0.bind(1, id) }.get()) == 1
        }
        appsKnownToRecordDevices.formUnion(flaggedMeanwhile)
        let ids = ids.filter { !flaggedMeanwhile.contains($0) }
        guard !ids.isEmpty else { return }
        try connection.engine.beginWrite(durability: durability, scope: .store).get()
        do {
            var flagged = false
            for appID in ids {
                let update = try connection.cached("UPDATE app SET records_device = 1 WHERE id = ? AND records_device = 0").get()
                update.bind(1, appID)
                try update.run().get()
                flagged = flagged || connection.changes > 0
            }
            if flagged {
                // The ranking changes sums only where the apps have samples: those people's types.
                let list = Array(repeating: "?", count: ids.count).joined(separator: ", ")
                let touched = try connection.cached(
                    "SELECT DISTINCT person_id, type_id FROM sample WHERE app_id IN (\(list)) ORDER BY person_id, type_id").get()
                for (index, id) in ids.enumerated() { touched.bind(Int32(index + 1), id) }
                var pairs: [(person: Int64, type: Int64)] = []
                while try touched.step().get() { pairs.append((touched.int64(0), touched.int64(1))) }
                touched.reset()
                for (person, type) in pairs where keepsMergedHours(type) {
                    try rebuildMergedHours(personID: person, typeID: type, connection)
                }
            }
            try connection.engine.endWrite(commit: true).get()
            appsKnownToRecordDevices.formUnion(ids)
        } catch {
            _ = connection.engine.endWrite(commit: false)
            throw error
        }
    }

    // MARK: App state

    /// A value an app stored with ``WriteTransaction/setAppState(_:_:)``, or nil.
    public func appState(app: String, key: String) throws(HealthStoreError) -> String? {
        try withConnection { (connection) throws(HealthStoreError) -> String? in
            let statement = try connection.cached("""
                SELECT s.value FROM app_state s JOIN app a ON a.id = s.app_id WHERE a.bundle_id = ? AND s.key = ?
                """).get()
            defer { statement.reset() }
            statement.bind(1, app)
            statement.bind(2, key)
            return try statement.step().get() ? statement.text(0) : nil
        }
    }
}
