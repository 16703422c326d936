public import HealthStore

extension HealthStore {
    /// Lets this process open stores at `postgresql://` (or `postgres://`) URLs, as files are.
    ///
    /// Call it once, before the first such store is opened; calling it again changes nothing.
    /// A program that never calls it keeps its stores in SQLite files and links no libpq.
    ///
    ///     import HealthStore
    ///     import HealthStorePostgreSQL
    ///
    ///     HealthStore.enablePostgreSQL()
    ///     let store = try HealthStore(path: "postgresql://health@db.example/health?sslmode=require")
    public static func enablePostgreSQL() {
        PostgreSQLEngines.register(LibPQEngine(libpq: .live))
    }
}

/// The engine behind ``HealthStore/enablePostgreSQL()``: libpq, or a scripted stand-in in tests.
struct LibPQEngine: PostgreSQLSupport {
    let libpq: LibPQ

    func connect(url: String, readOnly: Bool) -> Result<any DatabaseEngine, DatabaseError> {
        PostgresEngine.connect(url: url, readOnly: readOnly, libpq: libpq).map { $0 }
    }

    func listener(url: String, person: Int64) throws(HealthStoreError) -> any ChangeWaiting {
        try PostgresListener(url: url, person: person, libpq: libpq)
    }

    func connectionInfoProblem(_ url: String) -> String? { libpq.connectionInfoProblem(url) }
}

extension StoreLocation {
    /// ``StoreLocation/parse(_:)`` asking `libpq` (a scripted one in tests) whether a URL is valid.
    static func parse(_ text: String, libpq: LibPQ) throws(MalformedURL) -> StoreLocation {
        try parse(text, connectionInfoProblem: libpq.connectionInfoProblem)
    }
}
