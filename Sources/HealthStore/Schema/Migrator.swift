/// Applies the migrations a database lacks, each in its own transaction, recording each by name.
///
/// `BEGIN IMMEDIATE` takes the write lock before the check, so two processes opening a fresh
/// store at once apply each migration exactly once.
enum Migrator {
    static let ledger = """
        CREATE TABLE IF NOT EXISTS schema_migration (
            name TEXT PRIMARY KEY,
            applied_at_us INTEGER NOT NULL
        ) STRICT
        """

    /// Returns the names applied by this call (empty when the database was current).
    static func migrate(_ connection: Connection, migrations: [Migration] = Migration.all,
                        now: Int64) -> Result<[String], SQLiteError> {
        var applied: [String] = []
        for migration in migrations {
            let step: Result<Bool, SQLiteError> = connection.execute("BEGIN IMMEDIATE").flatMap {
                connection.execute(ledger)
            }.flatMap {
                connection.scalar("SELECT 1 FROM schema_migration WHERE name = ?") { $0.bind(1, migration.name) }
            }.flatMap { present -> Result<Bool, SQLiteError> in
                if present != nil { return .success(false) }
                return connection.execute(migration.sql).flatMap {
                    connection.cached("INSERT INTO schema_migration (name, applied_at_us) VALUES (?, ?)").flatMap { insert in
                        insert.bind(1, migration.name)
                        insert.bind(2, now)
                        return insert.run()
                    }
                }.map { true }
            }.flatMap { didApply in
                connection.execute("COMMIT").map { didApply }
            }
            switch step {
            case .success(let didApply):
                if didApply { applied.append(migration.name) }
            case .failure(let error):
                if !connection.isAutocommit { _ = connection.execute("ROLLBACK") }
                return .failure(error)
            }
        }
        return .success(applied)
    }
}
