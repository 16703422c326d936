import CSQLite

/// One SQLite connection: prepares statements (keeping a cache of the ones run repeatedly),
/// runs scripts, and closes on release.
///
/// The layering follows swift-system: raw `sqlite3_*` calls appear only in this folder; the
/// methods here return `Result` carrying an ``SQLiteError`` with the SQL; ``HealthStore`` is the
/// public throwing API. A connection is not thread-safe; ``HealthStore`` serializes access.
final class Connection {
    let handle: OpaquePointer
    private var cache: [String: Statement] = [:]

    private init(handle: OpaquePointer) { self.handle = handle }

    deinit {
        cache.removeAll()  // finalize every statement before closing
        sqlite3_close_v2(handle)
    }

    /// Opens (creating when `create` is set) the database at `path`; `readOnly` opens it with
    /// `SQLITE_OPEN_READONLY`, and `immutable` too tells SQLite the file cannot change (a store
    /// on read-only media: no locks, no WAL index).
    static func open(path: String, create: Bool, readOnly: Bool = false, immutable: Bool = false) -> Result<Connection, SQLiteError> {
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
            return .failure(SQLiteError(code: code, message: message, sql: "open \(path)"))
        }
        sqlite3_extended_result_codes(handle, 1)
        return .success(Connection(handle: handle))
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

    func lastError(sql: String) -> SQLiteError {
        SQLiteError(code: sqlite3_extended_errcode(handle), message: String(cString: sqlite3_errmsg(handle)), sql: sql)
    }

    /// Prepares one statement; the caller owns it.
    func prepare(_ sql: String) -> Result<Statement, SQLiteError> {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else { return .failure(lastError(sql: sql)) }
        return .success(Statement(handle: statement, sql: sql, connection: handle))
    }

    /// A statement from the cache, reset and with no bindings.
    func cached(_ sql: String) -> Result<Statement, SQLiteError> {
        if let statement = cache[sql] {
            statement.reset()
            return .success(statement)
        }
        return prepare(sql).map { statement in
            cache[sql] = statement
            return statement
        }
    }

    /// Runs a script of one or more statements without parameters (pragmas, migrations,
    /// transaction control).
    func execute(_ sql: String) -> Result<Void, SQLiteError> {
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        guard code == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(message)
            return .failure(SQLiteError(code: sqlite3_extended_errcode(handle), message: text, sql: sql))
        }
        return .success(())
    }

    /// The first column of the first row as an integer (nil without a row).
    func scalar(_ sql: String, _ bind: (Statement) -> Void = { _ in }) -> Result<Int64?, SQLiteError> {
        cached(sql).flatMap { statement in
            bind(statement)
            defer { statement.reset() }
            return statement.step().map { $0 ? (statement.isNull(0) ? nil : statement.int64(0)) : nil }
        }
    }

    /// Virtual-machine steps the cached statements ran since the last call (and resets the
    /// counters): the work a query did, independent of the machine's speed (tests compare it).
    func takeVirtualMachineSteps() -> Int {
        cache.values.reduce(0) { $0 + Int(sqlite3_stmt_status($1.handle, SQLITE_STMTSTATUS_VM_STEP, 1)) }
    }

    /// Sets the busy handler: wait up to `milliseconds` for another connection's lock.
    func setBusyTimeout(milliseconds: Int32) { sqlite3_busy_timeout(handle, milliseconds) }

    var isAutocommit: Bool { sqlite3_get_autocommit(handle) != 0 }
    var changes: Int { Int(sqlite3_changes64(handle)) }
}
