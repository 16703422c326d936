internal import CSQLite

/// The SQLite engine: one `sqlite3` connection in WAL mode.
///
/// The layering follows swift-system: raw `sqlite3_*` calls appear only in this folder; the
/// methods here return `Result` carrying a ``DatabaseError`` with the SQL; ``HealthStore`` is the
/// public throwing API.
final class SQLiteEngine: DatabaseEngine {
    let handle: OpaquePointer

    private init(handle: OpaquePointer) { self.handle = handle }

    deinit { sqlite3_close_v2(handle) }

    var kind: DatabaseError.Engine { .sqlite }

    /// Set when the tables are read through views (a read-only store without the people
    /// migration, ``PeopleBeforeMigration``): SQLite allows `INDEXED BY` only on tables; the
    /// views flatten into the same index scans without the hint.
    var dropsIndexHints = false

    /// Opens (creating when `create` is set) the database at `path`; `readOnly` opens it with
    /// `SQLITE_OPEN_READONLY`, and `immutable` too tells SQLite the file cannot change (a store
    /// on read-only media: no locks, no WAL index).
    static func open(path: String, create: Bool, readOnly: Bool = false, immutable: Bool = false) -> Result<SQLiteEngine, DatabaseError> {
        var handle: OpaquePointer?
        var flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0)) | SQLITE_OPEN_NOMUTEX
        var name = path
        if immutable {
            flags |= SQLITE_OPEN_URI
            name = "file:" + uriEscaped(path) + "?immutable=1"
        }
        let code = sqlite3_open_v2(name, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
            if let handle { sqlite3_close_v2(handle) }
            return .failure(error(code: code, message: message, sql: "open \(path)"))
        }
        sqlite3_extended_result_codes(handle, 1)
        return .success(SQLiteEngine(handle: handle))
    }

    static func error(code: Int32, message: String, sql: String) -> DatabaseError {
        DatabaseError(engine: .sqlite, code: code, codeName: String(cString: sqlite3_errstr(code)), message: message, sql: sql)
    }

    /// `path` as the path of a `file:` URI (RFC 3986): `%`, `?`, `#` and every byte outside
    /// printable ASCII percent-encoded.
    static func uriEscaped(_ path: String) -> String {
        var out = ""
        for byte in path.utf8 {
            if byte > 0x20, byte < 0x7F, byte != UInt8(ascii: "%"), byte != UInt8(ascii: "?"), byte != UInt8(ascii: "#") {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return out
    }

    func lastError(sql: String) -> DatabaseError {
        Self.error(code: sqlite3_extended_errcode(handle), message: String(cString: sqlite3_errmsg(handle)), sql: sql)
    }

    func prepare(_ sql: String) -> Result<any EngineStatement, DatabaseError> {
        let sql = dropsIndexHints ? PostgresDialect.removingIndexHints(sql) : sql
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else { return .failure(lastError(sql: sql)) }
        return .success(SQLiteStatement(handle: statement, sql: sql, engine: self))
    }

    func execute(_ sql: String) -> Result<Void, DatabaseError> {
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        guard code == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(message)
            return .failure(Self.error(code: sqlite3_extended_errcode(handle), message: text, sql: sql))
        }
        return .success(())
    }

    /// `BEGIN IMMEDIATE` takes SQLite's write lock at once (waiting up to the busy timeout for
    /// another process's), so a transaction never fails to upgrade a read lock halfway.
    /// ``Durability/beforeAcknowledgement`` runs the transaction with `synchronous=FULL`, which in
    /// WAL mode fsyncs the WAL before COMMIT returns (see ``Durability``). SQLite has one write
    /// lock per file: every write is store-wide, whatever its scope.
    func beginWrite(durability: Durability, scope: WriteScope) -> Result<Void, DatabaseError> {
        if durability == .beforeAcknowledgement {
            if case .failure(let error) = execute("PRAGMA synchronous = FULL") { return .failure(error) }
            synchronousRaised = true
        }
        let begun = execute("BEGIN IMMEDIATE")
        if case .failure = begun, synchronousRaised {
            _ = execute("PRAGMA synchronous = NORMAL")
            synchronousRaised = false
        }
        return begun
    }

    /// The write already holds the file's one write lock.
    func widenToStore() -> Result<Void, DatabaseError> { .success(()) }

    private var synchronousRaised = false

    func endWrite(commit: Bool) -> Result<Void, DatabaseError> {
        defer {
            if synchronousRaised {
                _ = execute("PRAGMA synchronous = NORMAL")
                synchronousRaised = false
            }
        }
        if commit { return execute("COMMIT") }
        if !isAutocommit { _ = execute("ROLLBACK") }
        return .success(())
    }

    func beginRead() -> Result<Void, DatabaseError> { execute("BEGIN") }

    /// Sets the busy handler: wait up to `milliseconds` for another connection's lock.
    func setBusyTimeout(milliseconds: Int32) { sqlite3_busy_timeout(handle, milliseconds) }

    var isAutocommit: Bool { sqlite3_get_autocommit(handle) != 0 }
    var changes: Int { Int(sqlite3_changes64(handle)) }
}
