internal import CSQLite

/// A prepared SQLite statement, finalized when released.
final class SQLiteStatement: EngineStatement {
    let handle: OpaquePointer
    let sql: String
    private let engine: SQLiteEngine
    private var bindFailure: Int32 = SQLITE_OK

    init(handle: OpaquePointer, sql: String, engine: SQLiteEngine) {
        self.handle = handle
        self.sql = sql
        self.engine = engine
    }

    deinit { sqlite3_finalize(handle) }

    func step() -> Result<Bool, DatabaseError> {
        if bindFailure != SQLITE_OK {
            let code = bindFailure
            bindFailure = SQLITE_OK
            return .failure(SQLiteEngine.error(code: code, message: "binding a parameter failed", sql: sql))
        }
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return .success(true)
        case SQLITE_DONE: return .success(false)
        default:
            let error = engine.lastError(sql: sql)
            sqlite3_reset(handle)
            return .failure(error)
        }
    }

    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        bindFailure = SQLITE_OK
    }

    /// Virtual-machine steps since the last call (the counter is reset).
    func takeVirtualMachineSteps() -> Int { Int(sqlite3_stmt_status(handle, SQLITE_STMTSTATUS_VM_STEP, 1)) }

    private func check(_ code: Int32) {
        if code != SQLITE_OK, bindFailure == SQLITE_OK { bindFailure = code }
    }

    func bind(_ index: Int32, int64 value: Int64) { check(sqlite3_bind_int64(handle, index, value)) }
    func bind(_ index: Int32, double value: Double) { check(sqlite3_bind_double(handle, index, value)) }
    func bindNull(_ index: Int32) { check(sqlite3_bind_null(handle, index)) }

    func bind(_ index: Int32, text value: String) {
        var text = value
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

    func bind(_ index: Int32, blob value: [UInt8]) {
        let code = value.withUnsafeBytes { bytes in
            sqlite3_bind_blob(handle, index, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(bytes.count),
                              bandkit_sqlite_transient())
        }
        check(code)
    }

    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }
    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }
    func isInteger(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_INTEGER }

    func text(_ column: Int32) -> String? {
        guard let pointer = sqlite3_column_text(handle, column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    func blob(_ column: Int32) -> [UInt8]? {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard let pointer = sqlite3_column_blob(handle, column) else { return count == 0 && !isNull(column) ? [] : nil }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }
}
