import FoundationEssentials

/// The seam between the store and a database engine (SQLite, PostgreSQL).
///
/// The store's SQL is written once, in the dialect both engines accept (`INSERT … ON CONFLICT`,
/// `RETURNING`, CTEs, `?` and `?N` parameters); an engine adapts what it must (PostgreSQL turns
/// parameters into `$N`, drops SQLite's `INDEXED BY` hints and reads `json_each` as
/// `json_array_elements_text`). What cannot be shared lives behind this protocol: how a write
/// transaction takes the one writer's lock, how a read gets a snapshot, what a commit must
/// survive, and how other processes learn of a commit.
///
/// Layer 2 of the usual three: results carry ``DatabaseError``; ``HealthStore`` is the throwing API.
package protocol DatabaseEngine: AnyObject {
    var kind: DatabaseError.Engine { get }
    /// Prepares one statement; the caller owns it.
    func prepare(_ sql: String) -> Result<any EngineStatement, DatabaseError>
    /// Runs a script of one or more statements without parameters.
    func execute(_ sql: String) -> Result<Void, DatabaseError>
    /// Starts a write transaction of `scope`: returns once no other writer (process or thread)
    /// holds one that conflicts. On SQLite every write is store-wide; on PostgreSQL writers of
    /// different people run in parallel (``WriteScope``).
    func beginWrite(durability: Durability, scope: WriteScope) -> Result<Void, DatabaseError>
    /// Widens the running write transaction to the whole store: returns once no other writer
    /// holds one. For a write that must change other people's rows (every person's hourly totals
    /// after the source ranking changed); a no-op where every write is already store-wide.
    func widenToStore() -> Result<Void, DatabaseError>
    /// Ends a write transaction started by ``beginWrite(durability:)`` (settings it changed are restored).
    func endWrite(commit: Bool) -> Result<Void, DatabaseError>
    /// Has the next successful ``endWrite(commit:)`` tell other processes that `person`'s data
    /// changed (PostgreSQL's NOTIFY); a no-op where they watch the file instead (SQLite).
    func announceCommit(person: Int64)
    /// Starts a read transaction: every statement sees the same committed snapshot.
    func beginRead() -> Result<Void, DatabaseError>
    var isAutocommit: Bool { get }
    /// Rows changed by the last INSERT, UPDATE or DELETE.
    var changes: Int { get }
}

/// What a write transaction may change, and so what it waits for.
package enum WriteScope: Sendable, Equatable {
    /// Anything: waits for every other writer (migrations, registering types).
    case store
    /// Only this person's rows (samples, workouts, tombstones, hourly totals, grants,
    /// characteristics) and the shared rows every writer only ever adds (apps, devices, app state
    /// keyed by device): waits only for writers of the same person and store-wide writers.
    case person(Int64)
}

extension DatabaseEngine {
    package func announceCommit(person: Int64) {}

    /// A store-wide write transaction.
    package func beginWrite(durability: Durability) -> Result<Void, DatabaseError> {
        beginWrite(durability: durability, scope: .store)
    }
}

/// One prepared statement of an engine. Binding is 1-based, columns 0-based (SQLite's convention).
package protocol EngineStatement: AnyObject {
    var sql: String { get }
    /// Advances: true when a row is available, false when done.
    func step() -> Result<Bool, DatabaseError>
    /// Back to before the first row, every parameter NULL.
    func reset()
    /// Back to before the first row, parameters as bound (for a caller that binds every one again).
    func rewind()
    func bind(_ index: Int32, int64 value: Int64)
    func bind(_ index: Int32, double value: Double)
    func bind(_ index: Int32, text value: String)
    func bind(_ index: Int32, blob value: [UInt8])
    /// A UUID as its 16 bytes (a blob).
    func bind(_ index: Int32, uuid value: UUID)
    func bindNull(_ index: Int32)
    func int64(_ column: Int32) -> Int64
    func double(_ column: Int32) -> Double
    func isNull(_ column: Int32) -> Bool
    func text(_ column: Int32) -> String?
    func blob(_ column: Int32) -> [UInt8]?
}

extension EngineStatement {
    package func rewind() { reset() }

    package func bind(_ index: Int32, uuid value: UUID) {
        bind(index, blob: withUnsafeBytes(of: value.uuid) { Array($0) })
    }
}
