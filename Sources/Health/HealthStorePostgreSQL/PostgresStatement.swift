#if canImport(Glibc)
import Glibc
#endif
internal import CPostgres
internal import HealthStore

/// A statement on PostgreSQL: translated once (``PostgresDialect``), prepared on the server as a
/// named statement (the server infers each parameter's type from where it is used, so bad SQL
/// fails at prepare, as on SQLite), executed with text parameters, its rows read from the
/// complete result.
///
/// Every value travels as a bound parameter, never inside the SQL text.
final class PostgresStatement: EngineStatement {
    let sql: String
    private let translated: PostgresDialect.Translation
    private unowned let engine: PostgresEngine
    private var preparedName: String?
    private var preparedGeneration = -1
    private var values: [String?]
    private var result: OpaquePointer?
    private var row: Int32 = -1
    private var rowCount: Int32 = 0

    init(sql: String, engine: PostgresEngine) {
        self.sql = sql
        self.engine = engine
        translated = PostgresDialect.translate(sql)
        values = Array(repeating: nil, count: translated.parameterCount)
    }

    deinit {
        engine.pq.clear(result)
        if let preparedName, preparedGeneration == engine.generation, engine.pq.status(engine.handle) == CONNECTION_OK,
           engine.pq.transactionStatus(engine.handle) == PQTRANS_IDLE {
            _ = engine.execute("DEALLOCATE \(preparedName)")
        }
    }

    /// Prepares on the server (again after a reconnection); returns the statement's name.
    func prepareOnServer() -> Result<String, DatabaseError> {
        if let preparedName, preparedGeneration == engine.generation { return .success(preparedName) }
        if let problem = translated.problem {  // SQL PostgreSQL would read differently: refused here (42601 syntax error)
            return .failure(DatabaseError(engine: .postgresql, sqlState: "42601", message: problem, sql: sql))
        }
        let name = engine.nextStatementName()
        // 0: the server infers the type; text for a number the SQL leaves out (always NULL).
        let types: [Oid] = (1...max(1, translated.parameterCount)).map { translated.used.contains($0) ? 0 : 25 }
        engine.roundTrips += 1
        let prepared = engine.pq.prepare(engine.handle, name, translated.sql, Int32(translated.parameterCount), types)
        defer { engine.pq.clear(prepared) }
        guard let prepared, engine.pq.resultStatus(prepared) == PGRES_COMMAND_OK else {
            return .failure(engine.error(prepared, sql: sql))
        }
        preparedName = name
        preparedGeneration = engine.generation
        return .success(name)
    }

    func step() -> Result<Bool, DatabaseError> {
        if let failure = bindFailure {
            bindFailure = nil
            return .failure(DatabaseError(engine: .postgresql, message: "binding a parameter failed: \(failure)", sql: sql))
        }
        if result == nil {
            // A statement outside any transaction (autocommit) may reconnect first: nothing of a
            // transaction is lost. Inside one, a lost connection fails the transaction instead.
            if engine.isAutocommit, case .failure(let error) = engine.reconnectIfNeeded() { return .failure(error) }
            let name: String
            switch prepareOnServer() {
            case .success(let prepared): name = prepared
            case .failure(let error): return .failure(error)
            }
            let copies = values.map { $0.map { strdup($0) } ?? nil }
            defer { copies.forEach { free($0) } }
            let pointers: [UnsafePointer<CChar>?] = copies.map { $0.map { UnsafePointer($0) } }
            engine.roundTrips += 1
            let executed = pointers.withUnsafeBufferPointer { parameters in
                engine.pq.execPrepared(engine.handle, name, Int32(parameters.count), parameters.baseAddress)
            }
            guard let executed, engine.isSuccess(engine.pq.resultStatus(executed)) else {
                let error = engine.error(executed, sql: sql)
                engine.pq.clear(executed)
                return .failure(error)
            }
            result = executed
            rowCount = engine.pq.rowCount(executed)
            row = -1
            engine.lastChanges = Int(engine.pq.commandTuples(executed)) ?? 0
        }
        if row < rowCount { row += 1 }
        return .success(row < rowCount)
    }

    func reset() {
        engine.pq.clear(result)
        result = nil
        row = -1
        rowCount = 0
        for index in values.indices { values[index] = nil }
        bindFailure = nil
    }

    private var bindFailure: String?

    private func set(_ index: Int32, _ value: String?) {
        let slot = Int(index) - 1
        guard values.indices.contains(slot) else {
            bindFailure = "parameter \(index) is out of range (the statement takes \(values.count))"
            return
        }
        values[slot] = value
    }

    func bind(_ index: Int32, int64 value: Int64) { set(index, String(value)) }
    func bind(_ index: Int32, double value: Double) { set(index, value.description) }
    func bind(_ index: Int32, text value: String) { set(index, value) }
    func bindNull(_ index: Int32) { set(index, nil) }

    func bind(_ index: Int32, blob value: [UInt8]) {
        let digits: [Character] = Array("0123456789abcdef")
        var hex = "\\x"
        for byte in value {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0x0F)])
        }
        set(index, hex)
    }

    private func raw(_ column: Int32) -> UnsafeBufferPointer<UInt8>? {
        let pq = engine.pq
        guard let result, row >= 0, row < rowCount, column < pq.fieldCount(result), !pq.isNull(result, row, column),
              let pointer = pq.value(result, row, column) else { return nil }
        return UnsafeBufferPointer(start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self),
                                   count: Int(pq.length(result, row, column)))
    }

    func isNull(_ column: Int32) -> Bool { raw(column) == nil }
    func text(_ column: Int32) -> String? { raw(column).map { String(decoding: $0, as: UTF8.self) } }

    func int64(_ column: Int32) -> Int64 {
        guard let bytes = raw(column) else { return 0 }
        var value: Int64 = 0
        var negative = false
        for (offset, byte) in bytes.enumerated() {
            if offset == 0, byte == UInt8(ascii: "-") { negative = true; continue }
            guard byte >= 0x30, byte <= 0x39 else {  // not an integer (a real, "t"/"f"): read it as SQLite would
                return Int64(exactly: double(column).rounded(.towardZero)) ?? 0
            }
            value = value &* 10 &+ Int64(byte - 0x30)
        }
        return negative ? 0 &- value : value
    }

    func double(_ column: Int32) -> Double {
        guard let text = text(column) else { return 0 }
        return Double(text) ?? 0
    }

    func blob(_ column: Int32) -> [UInt8]? {
        guard let bytes = raw(column) else { return nil }
        // bytea's hex output: "\x" then two digits per byte.
        guard bytes.count >= 2, bytes[0] == UInt8(ascii: "\\"), bytes[1] == UInt8(ascii: "x") else { return Array(bytes) }
        func nibble(_ c: UInt8) -> UInt8 { c <= 0x39 ? c - 0x30 : (c | 0x20) - 0x61 + 10 }
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count - 2) / 2)
        var index = 2
        while index + 1 < bytes.count {
            out.append(nibble(bytes[index]) << 4 | nibble(bytes[index + 1]))
            index += 2
        }
        return out
    }
}
