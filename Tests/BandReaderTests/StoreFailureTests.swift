import BandReader
import HealthStore
import Testing

/// `SessionError.store` keeps the store's typed error (it was a string) and says whether trying
/// again can help: a busy store can, a full disk or a damaged file cannot.
@Suite struct StoreFailureTests {
    func sqlite(_ code: Int32, _ message: String) -> HealthStoreError {
        .database(DatabaseError(engine: .sqlite, code: code, message: message, sql: "INSERT INTO samples …"))
    }

    @Test func aBusyStoreIsTransientAndKeepsTheEnginesError() {
        let busy = sqlite(5, "database is locked")
        let error = SessionError.store(StoreFailure(.commitHistory, busy))
        #expect(error.isTransient, "another writer held the lock: reconnect and commit again")
        guard case .store(let failure) = error else { Issue.record("not a store error"); return }
        #expect(failure.error == busy && failure.step == .commitHistory)
        let lockedOnPostgres = HealthStoreError.database(DatabaseError(engine: .postgresql, sqlState: "40P01", message: "deadlock detected", sql: "…"))
        #expect(SessionError.store(StoreFailure(.writeLive, lockedOnPostgres)).isTransient)
    }

    @Test func aFullDiskADamagedFileOrARefusedGrantIsNotTransient() {
        for cause in [sqlite(13, "database or disk is full"), sqlite(11, "database disk image is malformed"),
                      HealthStoreError.file(path: "/x/store.sqlite", reason: "Permission denied"),
                      HealthStoreError.notAuthorized(app: "bandkit.band", type: "step-count")] {
            let error = SessionError.store(StoreFailure(.commitHistory, cause))
            #expect(!error.isTransient, "\(cause)")
        }
    }

    @Test func theTextIsTheStoresOwnWithTheStepWhereItSaysMore() {
        let full = sqlite(13, "database or disk is full")
        #expect("\(SessionError.store(StoreFailure(.commitHistory, full)))" == "health store: \(full)")
        let open = HealthStoreError.file(path: "/srv/store.sqlite", reason: "Permission denied")
        #expect("\(SessionError.store(StoreFailure(.open(location: "/srv/store.sqlite"), open)))"
                == "health store: cannot open the store: /srv/store.sqlite: Permission denied", "the path once")
        let unnamed = HealthStoreError.misuse("no such table")
        #expect("\(SessionError.store(StoreFailure(.open(location: "/srv/store.sqlite"), unnamed)))"
                == "health store: cannot open the store /srv/store.sqlite: no such table")
    }

    @Test func aPostgreSQLServerThatIsGoneOrRestartingIsTransientAConstraintIsNot() {
        func postgres(_ state: String) -> StoreFailure {
            StoreFailure(.commitHistory, HealthStoreError.database(DatabaseError(engine: .postgresql, sqlState: state, message: "…", sql: "COMMIT")))
        }
        for state in ["08006", "08001", "08003", "57P01", "57P02", "57P03", "40001", "40P01", ""] {
            #expect(postgres(state).isTransient, "SQLSTATE \(state)")
            #expect(SessionError.store(postgres(state)).isTransientStoreFailure, "SQLSTATE \(state)")
        }
        for state in ["08006", "57P01", "57P02", "57P03"] { #expect(postgres(state).isServerUnavailable, "SQLSTATE \(state)") }
        for state in ["23505", "42P01", "53100", "XX000"] {
            #expect(!postgres(state).isTransient, "SQLSTATE \(state)")
        }
        #expect(!StoreFailure(.writeLive, sqlite(5, "database is locked")).isServerUnavailable, "a local file is never unreachable")
        #expect(!SessionError.connect("refused").isTransientStoreFailure, "not a store failure")
    }
}
