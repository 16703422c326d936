/// Applies the migrations a database lacks, each in its own transaction, recording each by name.
///
/// The write transaction takes the one writer's lock before the check (SQLite's `BEGIN IMMEDIATE`,
/// PostgreSQL's advisory lock), so two processes opening a fresh store at once apply each
/// migration exactly once.
enum Migrator {
    static let ledger = """
        CREATE TABLE IF NOT EXISTS schema_migration (
            name TEXT PRIMARY KEY,
            applied_at_us INTEGER NOT NULL
        ) STRICT
        """
    static let postgresLedger = """
        CREATE TABLE IF NOT EXISTS schema_migration (
            name TEXT PRIMARY KEY,
            applied_at_us BIGINT NOT NULL
        )
        """

    /// Returns the names applied by this call (empty when the database was current).
    static func migrate(_ connection: Connection, migrations: [Migration] = Migration.all,
                        now: Int64) -> Result<[String], DatabaseError> {
        var applied: [String] = []
        for migration in migrations {
            let step: Result<Bool, DatabaseError> = connection.engine.beginWrite(durability: .ordinary).flatMap {
                connection.execute(connection.kind == .sqlite ? ledger : postgresLedger)
            }.flatMap {
                connection.scalar("SELECT 1 FROM schema_migration WHERE name = ?") { $0.bind(1, migration.name) }
            }.flatMap { present -> Result<Bool, DatabaseError> in
                if present != nil { return .success(false) }
                return connection.execute(migration.sql(for: connection.kind)).flatMap {
                    connection.cached("INSERT INTO schema_migration (name, applied_at_us) VALUES (?, ?)").flatMap { insert in
                        insert.bind(1, migration.name)
                        insert.bind(2, now)
                        return insert.run()
                    }
                }.map { true }
            }.flatMap { didApply in
                connection.engine.endWrite(commit: true).map { didApply }
            }
            switch step {
            case .success(let didApply):
                if didApply { applied.append(migration.name) }
            case .failure(let error):
                _ = connection.engine.endWrite(commit: false)
                return .failure(error)
            }
        }
        return .success(applied)
    }
}
