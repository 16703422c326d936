/// An error reported by the database engine, with the statement that caused it.
///
/// One type for both engines so that the store's code (and its callers) handle failures the same
/// way on SQLite and PostgreSQL; what differs is kept: SQLite's extended result code, PostgreSQL's
/// SQLSTATE. Never carries credentials: a PostgreSQL connection is named by its redacted URL.
public struct DatabaseError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Engine: String, Hashable, Sendable {
        case sqlite = "SQLite"
        case postgresql = "PostgreSQL"
    }

    public var engine: Engine
    /// SQLite's extended result code (`SQLITE_CONSTRAINT_UNIQUE`, …); 0 on PostgreSQL.
    public var code: Int32
    /// PostgreSQL's SQLSTATE (`23505`, `08006`, …); empty on SQLite.
    public var sqlState: String
    /// The engine's name of `code` (`sqlite3_errstr`), empty on PostgreSQL.
    public var codeName: String
    /// The engine's own message, e.g. "UNIQUE constraint failed: sample.uuid".
    public var message: String
    /// The SQL being prepared or run, or a description of the call when there is none.
    public var sql: String

    public init(engine: Engine, code: Int32 = 0, sqlState: String = "", codeName: String = "", message: String, sql: String) {
        self.engine = engine
        self.code = code
        self.sqlState = sqlState
        self.codeName = codeName
        self.message = message
        self.sql = sql
    }

    public var primaryCode: Int32 { code & 0xFF }

    /// Another writer holds a lock the statement needed (SQLITE_BUSY/LOCKED; PostgreSQL's lock
    /// timeouts, serialization failures and deadlocks).
    public var isBusy: Bool {
        switch engine {
        case .sqlite: return primaryCode == 5 || primaryCode == 6
        case .postgresql: return ["40001", "40P01", "55P03"].contains(sqlState)
        }
    }

    /// A constraint (unique, check, foreign key, not null) refused the change.
    public var isConstraint: Bool {
        switch engine {
        case .sqlite: return primaryCode == 19
        case .postgresql: return sqlState.hasPrefix("23")
        }
    }

    /// The server is gone (PostgreSQL class 08 or a dropped connection): retry after reconnecting.
    public var isConnectionLost: Bool {
        engine == .postgresql && (sqlState.hasPrefix("08") || sqlState.isEmpty || sqlState == "57P01")
    }

    /// The server cannot take the statement now but may later: the connection was lost (class
    /// 08, a dropped connection), the server shut down or restarted (57P01 admin shutdown, 57P02
    /// crash shutdown, 57P03 cannot connect now: starting up or in recovery). A gateway keeps
    /// what it has (the band keeps unacknowledged history; live minutes go to its spool) and
    /// tries again later. Never true on SQLite: a local file is not "unreachable".
    public var isServerUnavailable: Bool {
        engine == .postgresql && (isConnectionLost || sqlState == "57P02" || sqlState == "57P03")
    }

    /// The disk under the store is full (SQLITE_FULL; PostgreSQL 53100 disk_full): nothing is
    /// wrong with the data, and freeing space makes the same write succeed.
    public var isStorageFull: Bool {
        switch engine {
        case .sqlite: return primaryCode == 13
        case .postgresql: return sqlState == "53100"
        }
    }

    public var description: String {
        switch engine {
        case .sqlite:
            return "SQLite error \(code) (\(codeName)): \(message) — in: \(sql)"
        case .postgresql:
            let state = sqlState.isEmpty ? "" : " \(sqlState)"
            return "PostgreSQL error\(state): \(message) — in: \(sql)"
        }
    }
}
