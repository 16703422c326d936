#if canImport(Glibc)
import Glibc
#endif
import CPostgres
@testable import HealthStore
@testable import HealthStorePostgreSQL
import Testing

/// The PostgreSQL engine over a scripted libpq (``ScriptedLibPQ``, the raw layer mocked): how
/// the Result layer turns each kind of libpq failure into a ``DatabaseError`` carrying the SQL,
/// whether a gateway takes it as transient, and how the engine reconnects on its next use.
/// No server: these run in every `swift test`.
@Suite struct PostgresLayerTests {
    static let url = "postgresql://ann:s3cret@db.example/health"
    static let insert = "INSERT INTO samples (value) VALUES (?)"

    func connect(_ script: ScriptedLibPQ) throws -> PostgresEngine {
        try PostgresEngine.connect(url: Self.url, libpq: script.libpq).get()
    }

    func failure<Success>(of result: Result<Success, DatabaseError>) -> DatabaseError? {
        if case .failure(let error) = result { return error }
        return nil
    }

    func prepares(of script: ScriptedLibPQ, _ fragment: String) -> Int {
        script.sent.filter { $0.hasPrefix("prepare: ") && $0.contains(fragment) }.count
    }

    @Test func connectingSetsTheSessionUpAndAFailedConnectionSays08001WithoutThePassword() throws {
        let script = ScriptedLibPQ()
        let engine = try connect(script)
        #expect(script.sent == ["exec: SET extra_float_digits = 3"])
        #expect(engine.name == "postgresql://ann:***@db.example/health")

        let refused = ScriptedLibPQ()
        refused.loseConnection()
        let error = try #require(failure(of: PostgresEngine.connect(url: Self.url, libpq: refused.libpq)))
        #expect(error.sqlState == "08001")
        #expect(error.sql == "connect to postgresql://ann:***@db.example/health")
        #expect(error.isServerUnavailable)
        #expect(!error.description.contains("s3cret"))
        #expect(refused.finished == 1)  // the failed connection is freed
        #expect(refused.sent.isEmpty)
    }

    @Test func aURLLibpqRefusesIsMalformedWithItsReasonScrubbed() throws {
        let script = ScriptedLibPQ()
        #expect(try StoreLocation.parse(Self.url, libpq: script.libpq) == .postgresql(url: Self.url))
        script.connectionInfoProblem = "invalid URI query parameter: \"s3cret\"\n"
        #expect(throws: StoreLocation.MalformedURL(url: "postgresql://ann:***@db.example/health",
                                                   reason: "invalid URI query parameter: \"***\"")) {
            try StoreLocation.parse(Self.url, libpq: script.libpq)
        }
        #expect(try StoreLocation.parse("/var/lib/health.sqlite", libpq: script.libpq) == .file("/var/lib/health.sqlite"))
    }

    @Test func aConnectionLostInAWriteFailsWithTheSQLAndTheNextTransactionReconnectsAndPreparesAgain() throws {
        let script = ScriptedLibPQ()
        let engine = try connect(script)
        let statement = try engine.prepare(Self.insert).get()
        try engine.beginWrite(durability: .beforeAcknowledgement).get()
        script.reply(.execute, containing: "INSERT INTO samples", with: .connectionLost(sqlState: nil))
        statement.bind(1, int64: 42)

        let error = try #require(failure(of: statement.step()))
        #expect(error.sqlState == "08006")  // libpq gives none: the bad PQstatus makes it a lost connection
        #expect(error.sql == Self.insert)
        #expect(error.message == "server closed the connection unexpectedly")
        #expect(error.isConnectionLost && error.isServerUnavailable)  // a gateway keeps its data and retries
        #expect(engine.isAutocommit)  // a dead connection is in no transaction

        try engine.endWrite(commit: false).get()
        #expect(!script.sent.contains("exec: ROLLBACK"))  // nothing sent to a dead connection
        statement.reset()
        #expect(script.resets == 0)  // not before the next use

        try engine.beginWrite(durability: .beforeAcknowledgement).get()
        #expect(script.resets == 1)
        #expect(engine.generation == 1)
        statement.bind(1, int64: 42)
        #expect(try statement.step().get() == false)
        try engine.endWrite(commit: true).get()
        #expect(prepares(of: script, "INSERT INTO samples") == 2)  // prepared again on the new connection
        #expect(Array(script.sent.suffix(5)) == [
            "exec: SET extra_float_digits = 3",
            // BEGIN, the durability and the lock in one message: one round trip.
            "exec: BEGIN ISOLATION LEVEL READ COMMITTED; SET LOCAL synchronous_commit = on; "
                + "SELECT pg_advisory_xact_lock(hashtext('bandkit:' || current_schema()))",
            "prepare: INSERT INTO samples (value) VALUES ($1)",
            "execute: INSERT INTO samples (value) VALUES ($1)",
            "exec: COMMIT",
        ])
        statement.reset()
        #expect(script.uncleared == 0)
    }

    /// The announcement of a person's commit is its own transaction after the write's COMMIT, in
    /// the same message: NOTIFY inside the write would hold the server's database-wide
    /// notification lock through the write's flush to disk, making every writer wait for it.
    @Test func aPersonsCommitIsAnnouncedAfterItsCommitInOneMessageAndAFailedAnnouncementLosesNothing() throws {
        let script = ScriptedLibPQ()
        let engine = try connect(script)
        try engine.beginWrite(durability: .beforeAcknowledgement, scope: .person(7)).get()
        engine.announceCommit(person: 7)
        let before = engine.roundTrips
        try engine.endWrite(commit: true).get()
        #expect(engine.roundTrips - before == 1)
        #expect(Array(script.sent.suffix(5)) == [
            "exec: COMMIT",
            "exec: BEGIN",
            "exec: SET LOCAL synchronous_commit = off",
            "exec: SELECT pg_notify('bandkit_changes', current_schema() || '/7')",
            "exec: COMMIT",
        ])
        #expect(engine.isAutocommit)

        // A write that announced nothing (or was rolled back) sends no announcement.
        try engine.beginWrite(durability: .beforeAcknowledgement, scope: .person(7)).get()
        try engine.endWrite(commit: true).get()
        #expect(script.sent.last == "exec: COMMIT")
        try engine.beginWrite(durability: .beforeAcknowledgement, scope: .person(7)).get()
        engine.announceCommit(person: 7)
        try engine.endWrite(commit: false).get()
        #expect(script.sent.last == "exec: ROLLBACK")
        try engine.beginWrite(durability: .beforeAcknowledgement, scope: .person(7)).get()
        try engine.endWrite(commit: true).get()
        #expect(!script.sent.suffix(2).contains { $0.contains("pg_notify") })

        // The write committed; the announcement failed (its queue full): the commit succeeds and
        // the failed announcement's transaction is rolled back.
        try engine.beginWrite(durability: .beforeAcknowledgement, scope: .person(7)).get()
        engine.announceCommit(person: 7)
        script.reply(.exec, containing: "pg_notify", with: .failed(sqlState: "54000",
                                                                   message: "ERROR:  too many notifications in the NOTIFY queue"))
        try engine.endWrite(commit: true).get()
        #expect(script.sent.last == "exec: ROLLBACK")
        #expect(engine.isAutocommit)

        // The write's COMMIT fails: that is the error, and nothing is announced.
        try engine.beginWrite(durability: .beforeAcknowledgement, scope: .person(7)).get()
        engine.announceCommit(person: 7)
        script.reply(.exec, containing: "COMMIT", with: .failed(sqlState: "40001",
                                                                message: "ERROR:  could not serialize access due to concurrent update"))
        let error = try #require(failure(of: engine.endWrite(commit: true)))
        #expect(error.sql == "COMMIT" && error.sqlState == "40001")
        #expect(!script.sent.last!.contains("pg_notify"))
        #expect(script.uncleared == 0)
    }

    @Test func a08006ResultOutsideATransactionReconnectsAtTheStatementsNextStep() throws {
        let script = ScriptedLibPQ()
        let engine = try connect(script)
        let statement = try engine.prepare("SELECT value FROM samples WHERE id = ?").get()
        script.reply(.execute, containing: "SELECT value", with: .connectionLost(sqlState: "08006"))
        statement.bind(1, int64: 7)
        let error = try #require(failure(of: statement.step()))
        #expect(error.sqlState == "08006")
        #expect(error.sql == "SELECT value FROM samples WHERE id = ?")
        #expect(error.isConnectionLost)

        statement.reset()
        script.reply(.execute, containing: "SELECT value", with: .ok(rows: [["12.5"]]))
        statement.bind(1, int64: 7)
        #expect(try statement.step().get() == true)  // autocommit: reconnected first, nothing of a transaction lost
        #expect(statement.double(0) == 12.5)
        #expect(try statement.step().get() == false)
        #expect(script.resets == 1)
        #expect(prepares(of: script, "SELECT value") == 2)
        statement.reset()
        #expect(script.uncleared == 0)
    }

    @Test func aResultWithASQLStateIsTypedAndOnlyTheTransientOnesAreRetried() throws {
        let script = ScriptedLibPQ()
        let engine = try connect(script)
        let statement = try engine.prepare(Self.insert).get()

        try engine.beginWrite(durability: .ordinary).get()
        script.reply(.execute, containing: "INSERT", with: .failed(sqlState: "23505",
                                                                    message: "ERROR:  duplicate key value violates unique constraint \"samples_pkey\""))
        statement.bind(1, int64: 1)
        let duplicate = try #require(failure(of: statement.step()))
        #expect(duplicate.engine == .postgresql)
        #expect(duplicate.sqlState == "23505")
        #expect(duplicate.message == "ERROR:  duplicate key value violates unique constraint \"samples_pkey\"")
        #expect(duplicate.sql == Self.insert)
        #expect(duplicate.isConstraint)
        #expect(!duplicate.isConnectionLost && !duplicate.isServerUnavailable && !duplicate.isBusy)  // not retried
        #expect(!engine.isAutocommit)  // the transaction is still open, failed
        try engine.endWrite(commit: false).get()
        #expect(script.sent.last == "exec: ROLLBACK")

        statement.reset()
        try engine.beginWrite(durability: .ordinary).get()
        script.reply(.exec, containing: "COMMIT", with: .failed(sqlState: "40001",
                                                                 message: "ERROR:  could not serialize access due to concurrent update"))
        statement.bind(1, int64: 1)
        #expect(try statement.step().get() == false)
        let serialization = try #require(failure(of: engine.endWrite(commit: true)))
        #expect(serialization.sql == "COMMIT")
        #expect(serialization.isBusy && !serialization.isConnectionLost)  // transient: retried by the writer
        #expect(script.resets == 0)  // the connection was fine throughout
        statement.reset()
        #expect(script.uncleared == 0)
    }

    @Test func aNullResultFromLibpqCarriesItsConnectionMessageScrubbedAndTheSQL() throws {
        let script = ScriptedLibPQ()
        let engine = try connect(script)

        script.reply(.prepare, containing: "UPDATE", with: .null(connectionMessage: "out of memory\n"))
        let prepareError = try #require(failure(of: engine.prepare("UPDATE samples SET value = ? WHERE id = ?")))
        #expect(prepareError.message == "out of memory")
        #expect(prepareError.sql == "UPDATE samples SET value = ? WHERE id = ?")

        let statement = try engine.prepare(Self.insert).get()
        script.reply(.execute, containing: "INSERT", with: .null(
            connectionMessage: "could not send data to server: password s3cret for ann: Broken pipe\n"))
        statement.bind(1, int64: 3)
        let sendError = try #require(failure(of: statement.step()))
        #expect(sendError.sql == Self.insert)
        #expect(sendError.message == "could not send data to server: password *** for ann: Broken pipe")
        // No SQLSTATE: taken as a lost connection (retry), but the connection is up, so no reset.
        #expect(sendError.isConnectionLost)
        statement.reset()
        statement.bind(1, int64: 3)
        #expect(try statement.step().get() == false)
        #expect(script.resets == 0)

        // A BEGIN that fails without a SQLSTATE is taken as a dead connection (nothing is lost
        // before a transaction): the engine connects again and sends the BEGIN once more.
        script.reply(.exec, containing: "BEGIN", with: .null(connectionMessage: "out of memory\n"))
        try engine.beginRead().get()
        #expect(script.resets == 1)
        #expect(script.sent.filter { $0 == "exec: BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY" }.count == 2)
        // Twice in a row: the error (with its SQL) reaches the caller.
        try engine.endWrite(commit: false).get()
        script.reply(.exec, containing: "BEGIN", with: .null(connectionMessage: "out of memory\n"))
        script.reply(.exec, containing: "BEGIN", with: .null(connectionMessage: "out of memory\n"))
        let beginError = try #require(failure(of: engine.beginRead()))
        #expect(beginError.sql == "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        #expect(beginError.message == "out of memory")
        #expect(script.resets == 2)
        statement.reset()
        #expect(script.uncleared == 0)
    }

    @Test func aNotificationForAnotherPersonIsDroppedAndOnesOwnWakesTheListener() throws {
        let script = ScriptedLibPQ()
        try listening(script) { listener in
            #expect(listener.payload == "public/1")
            #expect(script.sent.contains("exec: LISTEN bandkit_changes"))

            script.pendingNotifications = ["public/2", "other/1", "public/1"]
            try listener.wait(milliseconds: 30_000)
            #expect(listener.wakes == 1)
            #expect(listener.ignored == 1)
            #expect(listener.otherStores == 1)
        }
    }

    @Test func aFailedSocketReadReconnectsAndListensAgainOrSaysTheServerIsUnavailable() throws {
        let script = ScriptedLibPQ()
        try listening(script) { listener in
            script.consumeInputFails = true  // PQconsumeInput fails: the server went away
            try listener.wait(milliseconds: 30_000)  // returns: the caller re-reads the change counter
            #expect(script.resets == 1)
            #expect(script.sent.filter { $0 == "exec: LISTEN bandkit_changes" }.count == 2)  // listening again
            #expect(listener.wakes == 0)

            script.resetSucceeds = false  // and now the server stays down
            do {
                try listener.wait(milliseconds: 30_000)
                Issue.record("a listener whose server is down did not say so")
            } catch let HealthStoreError.database(error) {
                #expect(error.sqlState == "08001")
                #expect(error.sql == "reconnect to postgresql://ann:***@db.example/health")
                #expect(error.isServerUnavailable)
            }
            #expect(script.resets == 2)
        }
    }

    /// A listener for person 1 of schema "public" whose socket is a pipe that always reads ready
    /// (poll returns at once; what PQconsumeInput and PQnotifies then say is the script's).
    func listening(_ script: ScriptedLibPQ, _ body: (PostgresListener) throws -> Void) throws {
        var pipeEnds: [Int32] = [0, 0]
        try #require(pipe(&pipeEnds) == 0)
        defer { close(pipeEnds[0]); close(pipeEnds[1]) }
        try #require(write(pipeEnds[1], "x", 1) == 1)
        script.socket = pipeEnds[0]
        script.reply(.execute, containing: "current_schema", with: .ok(rows: [["public"]]))
        try body(try PostgresListener(url: Self.url, person: 1, libpq: script.libpq))
    }
}
