#if canImport(Glibc)
import Glibc
#endif
internal import CPostgres
internal import HealthStore

/// The raw layer under the PostgreSQL engine: exactly the libpq calls the store makes, as
/// function values, so that tests can replace them (a lost connection, a failed result, a NULL
/// from libpq) without a server.
///
/// The three layers follow swift-system (and the SQLite side): this struct holds the raw calls;
/// ``PostgresEngine``, ``PostgresStatement`` and ``PostgresListener`` turn their statuses into
/// `Result<_, DatabaseError>` (SQLSTATE, message, the SQL; transient classification in
/// ``DatabaseError``); ``HealthStore`` is the public throwing API. The set of calls is chosen once
/// per connection (``live`` unless a test passes its own), so a call costs one indirect jump,
/// no existential.
///
/// Conventions: C strings libpq returns are copied into `String`s here (the connection or the
/// result owns them); a notification is returned as its payload and freed here.
struct LibPQ: Sendable {
    var connect: @Sendable (_ keywords: UnsafePointer<UnsafePointer<CChar>?>, _ values: UnsafePointer<UnsafePointer<CChar>?>) -> OpaquePointer?
    var status: @Sendable (OpaquePointer) -> ConnStatusType
    var errorMessage: @Sendable (OpaquePointer) -> String
    var finish: @Sendable (OpaquePointer) -> Void
    /// Installs a notice processor that drops notices ("relation already exists, skipping").
    var silenceNotices: @Sendable (OpaquePointer) -> Void
    var reset: @Sendable (OpaquePointer) -> Void
    var transactionStatus: @Sendable (OpaquePointer) -> PGTransactionStatusType
    var socket: @Sendable (OpaquePointer) -> Int32
    var exec: @Sendable (OpaquePointer, String) -> OpaquePointer?
    var prepare: @Sendable (_ connection: OpaquePointer, _ name: String, _ sql: String,
                            _ count: Int32, _ types: [Oid]) -> OpaquePointer?
    var execPrepared: @Sendable (_ connection: OpaquePointer, _ name: String, _ count: Int32,
                                 _ values: UnsafePointer<UnsafePointer<CChar>?>?) -> OpaquePointer?
    /// Sends a script of statements in one message and returns every statement's result, in
    /// order (`PQsendQuery`, then `PQgetResult` until none is left); empty when it could not be sent.
    /// The server stops at the first statement that fails: its result is the last.
    var execEach: @Sendable (OpaquePointer, String) -> [OpaquePointer]
    var clear: @Sendable (OpaquePointer?) -> Void
    var resultStatus: @Sendable (OpaquePointer) -> ExecStatusType
    var resultErrorMessage: @Sendable (OpaquePointer) -> String
    /// The result's SQLSTATE (`PG_DIAG_SQLSTATE`), nil when it has none.
    var resultSQLState: @Sendable (OpaquePointer) -> String?
    var commandTuples: @Sendable (OpaquePointer) -> String
    var rowCount: @Sendable (OpaquePointer) -> Int32
    var fieldCount: @Sendable (OpaquePointer) -> Int32
    var isNull: @Sendable (_ result: OpaquePointer, _ row: Int32, _ column: Int32) -> Bool
    var value: @Sendable (_ result: OpaquePointer, _ row: Int32, _ column: Int32) -> UnsafeMutablePointer<CChar>?
    var length: @Sendable (_ result: OpaquePointer, _ row: Int32, _ column: Int32) -> Int32
    /// `PQconsumeInput`: false when reading the socket failed (the connection is lost).
    var consumeInput: @Sendable (OpaquePointer) -> Bool
    /// The next pending notification's payload (freed), nil when none is pending.
    var nextNotification: @Sendable (OpaquePointer) -> String?
    /// Why `PQconninfoParse` refuses a connection string or URL (its message), nil when it parses.
    var connectionInfoProblem: @Sendable (String) -> String?

    /// The real libpq.
    static let live = LibPQ(
        connect: { keywords, values in PQconnectdbParams(keywords, values, 1) },
        status: { PQstatus($0) },
        errorMessage: { String(cString: PQerrorMessage($0)) },
        finish: { PQfinish($0) },
        silenceNotices: { PQsetNoticeProcessor($0, { _, _ in }, nil) },
        reset: { PQreset($0) },
        transactionStatus: { PQtransactionStatus($0) },
        socket: { PQsocket($0) },
        exec: { PQexec($0, $1) },
        prepare: { connection, name, sql, count, types in PQprepare(connection, name, sql, count, types) },
        execPrepared: { connection, name, count, values in PQexecPrepared(connection, name, count, values, nil, nil, 0) },
        execEach: { connection, script in
            guard PQsendQuery(connection, script) != 0 else { return [] }
            var results: [OpaquePointer] = []
            while let result = PQgetResult(connection) { results.append(result) }
            return results
        },
        clear: { PQclear($0) },
        resultStatus: { PQresultStatus($0) },
        resultErrorMessage: { String(cString: PQresultErrorMessage($0)) },
        resultSQLState: { result in PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) } },
        commandTuples: { String(cString: PQcmdTuples($0)) },
        rowCount: { PQntuples($0) },
        fieldCount: { PQnfields($0) },
        isNull: { PQgetisnull($0, $1, $2) != 0 },
        value: { PQgetvalue($0, $1, $2) },
        length: { PQgetlength($0, $1, $2) },
        consumeInput: { PQconsumeInput($0) != 0 },
        nextNotification: { connection in
            guard let notification = PQnotifies(connection) else { return nil }
            defer { PQfreemem(notification) }
            return notification.pointee.extra.map { String(cString: $0) } ?? ""
        },
        connectionInfoProblem: { text in
            var message: UnsafeMutablePointer<CChar>?
            guard let options = PQconninfoParse(text, &message) else {
                defer { if let message { PQfreemem(message) } }
                return message.map { String(cString: $0) } ?? "libpq could not parse it"
            }
            PQconninfoFree(options)
            return nil
        })
}
