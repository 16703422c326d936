internal import CSQLite
import FoundationEssentials

/// A prepared SQLite statement, finalized when released.
///
/// Short text and blob parameters are copied into a buffer the statement keeps per parameter
/// and bound as `SQLITE_STATIC`: a bulk import binds a uuid, a version and a zone per row, and
/// `SQLITE_TRANSIENT` would have SQLite allocate and free a copy of each (one `malloc` and one
/// `free` per value). The buffer of a parameter is rewritten only when that parameter is bound
/// again, which is when SQLite stops reading the previous value.
final class SQLiteStatement: EngineStatement {
    let handle: OpaquePointer
    let sql: String
    private let engine: SQLiteEngine
    private var bindFailure: Int32 = SQLITE_OK
    /// Per parameter (index - 1): the buffer its last short text or blob was copied into.
    private var parameterBuffers: [(bytes: UnsafeMutableRawPointer, capacity: Int)?] = []

    /// Longer values are bound as `SQLITE_TRANSIENT`: a statement of many rows must not keep a
    /// large buffer per parameter (metadata may be long).
    static let largestKeptParameter = 256

    init(handle: OpaquePointer, sql: String, engine: SQLiteEngine) {
        self.handle = handle
        self.sql = sql
        self.engine = engine
    }

    deinit {
        sqlite3_finalize(handle)
        for buffer in parameterBuffers { buffer?.bytes.deallocate() }
    }

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

    func rewind() {
        sqlite3_reset(handle)
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
        let code = text.withUTF8 { bytes in bindBytes(index, UnsafeRawBufferPointer(bytes), asText: true) }
        check(code)
    }

    func bind(_ index: Int32, blob value: [UInt8]) {
        check(value.withUnsafeBytes { bindBytes(index, $0, asText: false) })
    }

    func bind(_ index: Int32, uuid value: UUID) {
        check(withUnsafeBytes(of: value.uuid) { bindBytes(index, $0, asText: false) })
    }

    /// Binds `bytes` as text or blob: a short value from the parameter's own buffer
    /// (`SQLITE_STATIC`), a long one copied by SQLite. An empty value is bound from a non-nil
    /// address, which SQLite would otherwise take for NULL.
    private func bindBytes(_ index: Int32, _ bytes: UnsafeRawBufferPointer, asText: Bool) -> Int32 {
        let slot = Int(index) - 1
        guard bytes.count <= Self.largestKeptParameter, slot >= 0, slot < Int(sqlite3_bind_parameter_count(handle)) else {
            let address = bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!
            return asText
                ? sqlite3_bind_text(handle, index, address.assumingMemoryBound(to: CChar.self), Int32(bytes.count), bandkit_sqlite_transient())
                : sqlite3_bind_blob(handle, index, address, Int32(bytes.count), bandkit_sqlite_transient())
        }
        if parameterBuffers.isEmpty { parameterBuffers = Array(repeating: nil, count: Int(sqlite3_bind_parameter_count(handle))) }
        let buffer: UnsafeMutableRawPointer
        if let kept = parameterBuffers[slot], kept.capacity >= bytes.count {
            buffer = kept.bytes
        } else {
            // The old buffer may still be this parameter's binding: it is replaced below before
            // anything steps the statement again.
            parameterBuffers[slot]?.bytes.deallocate()
            let capacity = bytes.count <= 16 ? 16 : Self.largestKeptParameter
            buffer = .allocate(byteCount: capacity, alignment: 8)
            parameterBuffers[slot] = (buffer, capacity)
        }
        if let source = bytes.baseAddress { buffer.copyMemory(from: source, byteCount: bytes.count) }
        return asText
            ? sqlite3_bind_text(handle, index, buffer.assumingMemoryBound(to: CChar.self), Int32(bytes.count), nil)
            : sqlite3_bind_blob(handle, index, buffer, Int32(bytes.count), nil)
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
