import CPostgres
import Foundation
@testable import HealthStore
@testable import HealthStorePostgreSQL

/// libpq replaced by a script (the raw layer, ``LibPQ``, mocked): the store's PostgreSQL engine
/// runs against it without a server, and a test makes any call fail the way libpq does — a
/// connection lost in the middle of a statement, a result carrying a SQLSTATE, a NULL result,
/// a socket read that fails. Every statement the engine sends is recorded, in order.
///
/// Single-threaded, as the engine is: a test owns its script.
final class ScriptedLibPQ: @unchecked Sendable {
    enum Phase: String { case exec, prepare, execute }

    enum Reply {
        /// Success; `rows` as text values (nil: SQL NULL), `changes` as PQcmdTuples.
        case ok(rows: [[String?]] = [], changes: Int = 0)
        /// PGRES_FATAL_ERROR with this SQLSTATE (nil: none) and message; the connection stays up.
        case failed(sqlState: String?, message: String)
        /// The server closed the connection during the statement: PGRES_FATAL_ERROR with this
        /// SQLSTATE (nil: none, as libpq reports a connection closed unexpectedly), PQstatus bad.
        case connectionLost(sqlState: String?)
        /// libpq returned NULL (out of memory, or the query could not be sent); `connectionMessage`
        /// is PQerrorMessage's text.
        case null(connectionMessage: String)
    }

    /// The first rule of the statement's phase whose SQL contains `fragment` answers it, once.
    struct Rule { var phase: Phase; var fragment: String; var reply: Reply }
    var rules: [Rule] = []

    var connected = true
    /// Whether PQreset brings the connection back (the server is up again).
    var resetSucceeds = true
    var transaction = PQTRANS_IDLE
    var socket: Int32 = 3
    var consumeInputFails = false
    var pendingNotifications: [String] = []
    /// What PQconninfoParse says of every URL (nil: it parses).
    var connectionInfoProblem: String?
    private var connectionMessage = ""

    /// "exec: SQL", "prepare: SQL", "execute: SQL" for every statement sent.
    private(set) var sent: [String] = []
    private(set) var resets = 0
    private(set) var finished = 0

    private final class FakeResult {
        let status: ExecStatusType
        let sqlState: String?
        let message: String
        let values: [[UnsafeMutablePointer<CChar>?]]
        let changes: Int
        init(status: ExecStatusType, sqlState: String?, message: String, rows: [[String?]], changes: Int) {
            self.status = status
            self.sqlState = sqlState
            self.message = message
            values = rows.map { $0.map { $0.map { strdup($0) } ?? nil } }
            self.changes = changes
        }
        deinit { values.forEach { $0.forEach { free($0) } } }
    }

    private var results: [Int: FakeResult] = [:]
    private var nextAddress = 0x1000
    private var statements: [String: String] = [:]
    private static let connectionAddress = 0x10

    /// Results handed out and not yet cleared (PQclear forgotten on some path when not 0).
    var uncleared: Int { results.count }

    func reply(_ phase: Phase, containing fragment: String, with reply: Reply) {
        rules.append(Rule(phase: phase, fragment: fragment, reply: reply))
    }

    private func answer(_ phase: Phase, _ sql: String) -> OpaquePointer? {
        sent.append("\(phase.rawValue): \(sql)")
        var reply = Reply.ok()
        if let index = rules.firstIndex(where: { $0.phase == phase && sql.contains($0.fragment) }) {
            reply = rules.remove(at: index).reply
        }
        let result: FakeResult
        switch reply {
        case .ok(let rows, let changes):
            if phase != .prepare {
                if sql.hasPrefix("BEGIN") { transaction = PQTRANS_INTRANS }
                if sql == "COMMIT" || sql == "ROLLBACK" { transaction = PQTRANS_IDLE }
            }
            result = FakeResult(status: rows.isEmpty ? PGRES_COMMAND_OK : PGRES_TUPLES_OK, sqlState: nil, message: "",
                                rows: rows, changes: changes)
        case .failed(let state, let message):
            if transaction == PQTRANS_INTRANS { transaction = PQTRANS_INERROR }
            result = FakeResult(status: PGRES_FATAL_ERROR, sqlState: state, message: message + "\n", rows: [], changes: 0)
        case .connectionLost(let state):
            loseConnection()
            result = FakeResult(status: PGRES_FATAL_ERROR, sqlState: state,
                                message: "server closed the connection unexpectedly\n", rows: [], changes: 0)
        case .null(let message):
            connectionMessage = message
            return nil
        }
        nextAddress += 16
        results[nextAddress] = result
        return OpaquePointer(bitPattern: nextAddress)
    }

    func loseConnection() {
        connected = false
        transaction = PQTRANS_UNKNOWN
        connectionMessage = "server closed the connection unexpectedly\n"
    }

    private func result(_ pointer: OpaquePointer) -> FakeResult { results[Int(bitPattern: UnsafeRawPointer(pointer))]! }

    var libpq: LibPQ {
        LibPQ(
            connect: { _, _ in OpaquePointer(bitPattern: Self.connectionAddress) },
            status: { _ in self.connected ? CONNECTION_OK : CONNECTION_BAD },
            errorMessage: { _ in self.connectionMessage },
            finish: { _ in self.finished += 1 },
            silenceNotices: { _ in },
            reset: { _ in
                self.resets += 1
                self.connected = self.resetSucceeds
                self.transaction = self.resetSucceeds ? PQTRANS_IDLE : PQTRANS_UNKNOWN
                self.connectionMessage = self.resetSucceeds ? "" : "could not connect to server: Connection refused\n"
            },
            transactionStatus: { _ in self.transaction },
            socket: { _ in self.connected ? self.socket : -1 },
            exec: { _, sql in self.answer(.exec, sql) },
            prepare: { _, name, sql, _, _ in
                self.statements[name] = sql
                return self.answer(.prepare, sql)
            },
            execPrepared: { _, name, _, _ in self.answer(.execute, self.statements[name] ?? "unknown statement \(name)") },
            execEach: { _, script in
                // The server runs the statements in order and stops after the first that fails.
                var results: [OpaquePointer] = []
                for statement in script.components(separatedBy: "; ") {
                    guard let result = self.answer(.exec, statement) else { break }
                    results.append(result)
                    if self.result(result).status == PGRES_FATAL_ERROR { break }
                }
                return results
            },
            clear: { pointer in
                guard let pointer else { return }
                let removed = self.results.removeValue(forKey: Int(bitPattern: UnsafeRawPointer(pointer)))
                precondition(removed != nil, "PQclear of a result cleared already")
            },
            resultStatus: { self.result($0).status },
            resultErrorMessage: { self.result($0).message },
            resultSQLState: { self.result($0).sqlState },
            commandTuples: { String(self.result($0).changes) },
            rowCount: { Int32(self.result($0).values.count) },
            fieldCount: { Int32(self.result($0).values.first?.count ?? 0) },
            isNull: { self.result($0).values[Int($1)][Int($2)] == nil },
            value: { self.result($0).values[Int($1)][Int($2)] },
            length: { pointer, row, column in
                Int32(self.result(pointer).values[Int(row)][Int(column)].map { strlen($0) } ?? 0)
            },
            consumeInput: { _ in
                if self.consumeInputFails { self.loseConnection(); return false }
                return true
            },
            nextNotification: { _ in self.pendingNotifications.isEmpty ? nil : self.pendingNotifications.removeFirst() },
            connectionInfoProblem: { _ in self.connectionInfoProblem })
    }
}
