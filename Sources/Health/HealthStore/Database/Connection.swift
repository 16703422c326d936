import FoundationEssentials

/// One database connection, whatever the engine: prepares statements (keeping a cache of the
/// ones run repeatedly), runs scripts, and closes on release.
///
/// The store's code talks only to this and to ``Statement``; the engine behind them
/// (``SQLiteEngine``, or HealthStorePostgreSQL's engine) holds the raw C calls. A connection is not
/// thread-safe; ``HealthStore`` serializes access.
final class Connection {
    let engine: any DatabaseEngine
    private var cache: [String: Statement] = [:]

    init(engine: any DatabaseEngine) { self.engine = engine }

    deinit { cache.removeAll() }  // release every statement before the engine closes

    var kind: DatabaseError.Engine { engine.kind }

    /// Prepares one statement; the caller owns it.
    func prepare(_ sql: String) -> Result<Statement, DatabaseError> {
        engine.prepare(sql).map(Statement.init(base:))
    }

    /// A statement from the cache, reset and with no bindings.
    func cached(_ sql: String) -> Result<Statement, DatabaseError> {
        if let statement = cache[sql] {
            statement.reset()
            return .success(statement)
        }
        return prepare(sql).map { statement in
            cache[sql] = statement
            return statement
        }
    }

    /// Runs a script of one or more statements without parameters (migrations, transaction control).
    func execute(_ sql: String) -> Result<Void, DatabaseError> { engine.execute(sql) }

    /// The first column of the first row as an integer (nil without a row).
    func scalar(_ sql: String, _ bind: (Statement) -> Void = { _ in }) -> Result<Int64?, DatabaseError> {
        cached(sql).flatMap { statement in
            bind(statement)
            defer { statement.reset() }
            return statement.step().map { $0 ? (statement.isNull(0) ? nil : statement.int64(0)) : nil }
        }
    }

    var isAutocommit: Bool { engine.isAutocommit }
    var changes: Int { engine.changes }

    /// The cached statements (the SQLite engine counts their virtual-machine steps).
    var cachedStatements: [Statement] { Array(cache.values) }

    /// Virtual-machine steps the cached statements ran since the last call (and resets the
    /// counters): the work a query did, independent of the machine's speed (tests compare it).
    /// SQLite only; 0 on other engines.
    func takeVirtualMachineSteps() -> Int {
        cache.values.reduce(0) { $0 + (($1.base as? SQLiteStatement)?.takeVirtualMachineSteps() ?? 0) }
    }
}

/// A prepared statement of either engine, with the conversions the store needs (UUIDs as 16
/// bytes, booleans as 0/1, optionals as NULL).
///
/// Binding cannot fail for well-formed SQL except by running out of memory or with an index out
/// of range (a programming error); such a failure is kept and reported by the next ``step()``,
/// so call sites bind without ceremony.
final class Statement {
    let base: any EngineStatement

    init(base: any EngineStatement) { self.base = base }

    var sql: String { base.sql }

    /// Advances: `true` when a row is available, `false` when done.
    func step() -> Result<Bool, DatabaseError> { base.step() }

    /// Runs to completion, ignoring rows. `keepingBindings`: for a caller that binds every
    /// parameter again before the next run (clearing thousands of a multi-row insert's costs).
    func run(keepingBindings: Bool = false) -> Result<Void, DatabaseError> {
        defer { if keepingBindings { base.rewind() } else { reset() } }
        while true {
            switch step() {
            case .success(true): continue
            case .success(false): return .success(())
            case .failure(let error): return .failure(error)
            }
        }
    }

    /// Prepares the statement for reuse: back to the first row, every parameter NULL.
    func reset() { base.reset() }

    // MARK: Binding (1-based).

    func bind(_ index: Int32, _ value: Int64) { base.bind(index, int64: value) }
    func bind(_ index: Int32, _ value: Int) { base.bind(index, int64: Int64(value)) }
    func bind(_ index: Int32, _ value: Double) { base.bind(index, double: value) }
    func bind(_ index: Int32, _ value: Bool) { base.bind(index, int64: value ? 1 : 0) }
    func bindNull(_ index: Int32) { base.bindNull(index) }

    func bind(_ index: Int32, _ value: String?) {
        if let value { base.bind(index, text: value) } else { base.bindNull(index) }
    }

    func bind(_ index: Int32, _ value: Int64?) {
        if let value { base.bind(index, int64: value) } else { base.bindNull(index) }
    }

    func bind(_ index: Int32, _ value: UUID) {
        base.bind(index, uuid: value)
    }

    // MARK: Columns (0-based).

    func int64(_ column: Int32) -> Int64 { base.int64(column) }
    func int(_ column: Int32) -> Int { Int(base.int64(column)) }
    func double(_ column: Int32) -> Double { base.double(column) }
    func isNull(_ column: Int32) -> Bool { base.isNull(column) }
    func optionalInt64(_ column: Int32) -> Int64? { isNull(column) ? nil : int64(column) }
    func text(_ column: Int32) -> String? { base.text(column) }

    func uuid(_ column: Int32) -> UUID? {
        guard let bytes = base.blob(column), bytes.count == 16 else { return nil }
        var value: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &value) { $0.copyBytes(from: bytes) }
        return UUID(uuid: value)
    }
}
