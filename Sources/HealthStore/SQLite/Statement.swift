import CSQLite
import FoundationEssentials

/// A prepared statement, finalized when released.
///
/// Binding cannot fail for well-formed SQL except by running out of memory or with an index out
/// of range (a programming error); such a failure is kept and reported by the next ``step()``,
/// so call sites bind without ceremony.
final class Statement {
    let handle: OpaquePointer
    let sql: String
    private let connection: OpaquePointer
    private var bindFailure: Int32 = SQLITE_OK

    init(handle: OpaquePointer, sql: String, connection: OpaquePointer) {
        self.handle = handle
        self.sql = sql
        self.connection = connection
    }

    deinit { sqlite3_finalize(handle) }

    // MARK: Layer 2: internal Result-returning helpers over the raw calls.

    /// Advances: `true` when a row is available, `false` when done.
    func step() -> Result<Bool, SQLiteError> {
        if bindFailure != SQLITE_OK {
            let code = bindFailure
            bindFailure = SQLITE_OK
            return .failure(SQLiteError(code: code, message: "binding a parameter failed", sql: sql))
        }
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return .success(true)
        case SQLITE_DONE: return .success(false)
        default:
            let code = sqlite3_extended_errcode(connection)
            let message = String(cString: sqlite3_errmsg(connection))
            sqlite3_reset(handle)
            return .failure(SQLiteError(code: code, message: message, sql: sql))
        }
    }

    /// Runs to completion, ignoring rows.
    func run() -> Result<Void, SQLiteError> {
        defer { reset() }
        while true {
            switch step() {
            case .success(true): continue
            case .success(false): return .success(())
            case .failure(let error): return .failure(error)
            }
        }
    }

    /// Prepares the statement for reuse: back to the first row, every parameter NULL.
    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        bindFailure = SQLITE_OK
    }

    // MARK: Binding (1-based, as SQLite).

    private func check(_ code: Int32) {
        if code != SQLITE_OK, bindFailure == SQLITE_OK { bindFailure = code }
    }

    func bind(_ index: Int32, _ value: Int64) { check(sqlite3_bind_int64(handle, index, value)) }
    func bind(_ index: Int32, _ value: Int) { check(sqlite3_bind_int64(handle, index, Int64(value))) }
    func bind(_ index: Int32, _ value: Double) { check(sqlite3_bind_double(handle, index, value)) }
    func bind(_ index: Int32, _ value: Bool) { check(sqlite3_bind_int64(handle, index, value ? 1 : 0)) }
    func bindNull(_ index: Int32) { check(sqlite3_bind_null(handle, index)) }

    func bind(_ index: Int32, _ value: String?) {
        guard var text = value else { return bindNull(index) }
        if text.isEmpty {  // withUTF8 may give a nil base address, which SQLite would bind as NULL
            return check(sqlite3_bind_text(handle, index, "", 0, bandkit_sqlite_transient()))
        }
        let code = text.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                sqlite3_bind_text(handle, index, chars.baseAddress, Int32(chars.count), bandkit_sqlite_transient())
            }
        }
        check(code)
    }

    func bind(_ index: Int32, _ value: Int64?) {
        if let value { bind(index, value) } else { bindNull(index) }
    }

    func bind(_ index: Int32, _ value: UUID) {
        let code = withUnsafeBytes(of: value.uuid) { bytes in
            sqlite3_bind_blob(handle, index, bytes.baseAddress, 16, bandkit_sqlite_transient())
        }
        check(code)
    }

    // MARK: Columns (0-based, as SQLite).

    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    func int(_ column: Int32) -> Int { Int(sqlite3_column_int64(handle, column)) }
    func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }
    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    func optionalInt64(_ column: Int32) -> Int64? { isNull(column) ? nil : int64(column) }

    func text(_ column: Int32) -> String? {
        guard let pointer = sqlite3_column_text(handle, column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    func uuid(_ column: Int32) -> UUID? {
        guard sqlite3_column_bytes(handle, column) == 16, let pointer = sqlite3_column_blob(handle, column) else {
            return nil
        }
        var value: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &value) { $0.copyMemory(from: UnsafeRawBufferPointer(start: pointer, count: 16)) }
        return UUID(uuid: value)
    }
}
