import CSQLite

/// An error reported by SQLite, with the statement that caused it.
public struct SQLiteError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The extended result code (`SQLITE_CONSTRAINT_UNIQUE`, `SQLITE_BUSY_SNAPSHOT`, …).
    public var code: Int32
    /// SQLite's own message (`sqlite3_errmsg`), e.g. "UNIQUE constraint failed: sample.uuid".
    public var message: String
    /// The SQL being prepared or run, or a description of the call when there is none.
    public var sql: String

    public var primaryCode: Int32 { code & 0xFF }
    public var isBusy: Bool { primaryCode == SQLITE_BUSY || primaryCode == SQLITE_LOCKED }
    public var isConstraint: Bool { primaryCode == SQLITE_CONSTRAINT }

    public var description: String {
        let name = String(cString: sqlite3_errstr(code))
        return "SQLite error \(code) (\(name)): \(message) — in: \(sql)"
    }
}
