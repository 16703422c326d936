/// Applies the migrations a database lacks, each in its own transaction, recording each by name.
///
/// The write transaction takes the one writer's lock before the check (SQLite's `BEGIN IMMEDIATE`,
/// PostgreSQL's advisory lock), so two processes opening a fresh store at once apply each
/// migration exactly once.
///
/// A store whose ledger names a migration this binary does not know was migrated by a newer
/// BandKit (GRDB calls it superseded): its schema may hold tables and meanings this binary would
/// misread or break by writing, so it is refused before anything is applied.
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

    /// Returns the names applied by this call (empty when the database was current). Throws
    /// ``HealthStoreError/supersededSchema(storeMigration:newestKnown:)`` for a store a newer
    /// binary migrated, ``HealthStoreError/database(_:)`` when a statement fails (that migration
    /// rolled back).
    ///
    /// `migrations` are applied in order; the names this binary knows are those and ``Migration/all``.
    @discardableResult
    static func migrate(_ connection: Connection, migrations: [Migration] = Migration.all,
                        now: Int64) throws(HealthStoreError) -> [String] {
        let known = Set(Migration.all.map(\.name)).union(migrations.map(\.name))
        try inWriteTransaction(connection) { () throws(HealthStoreError) in
            try connection.execute(connection.kind == .sqlite ? ledger : postgresLedger).get()
            if let newest = try newestUnknownMigration(connection, known: known) {
                throw .supersededSchema(storeMigration: newest, newestKnown: Migration.all.last?.name ?? "none")
            }
        }
        var applied: [String] = []
        for migration in migrations {
            let didApply = try inWriteTransaction(connection) { () throws(HealthStoreError) -> Bool in
                let present = try connection.scalar("SELECT 1 FROM schema_migration WHERE name = ?") { $0.bind(1, migration.name) }.get()
                if present != nil { return false }
                try connection.execute(migration.sql(for: connection.kind)).get()
                let insert = try connection.cached("INSERT INTO schema_migration (name, applied_at_us) VALUES (?, ?)").get()
                insert.bind(1, migration.name)
                insert.bind(2, now)
                try insert.run().get()
                return true
            }
            if didApply { applied.append(migration.name) }
        }
        return applied
    }

    /// The most recently applied migration in the store's ledger that is not in `known`, if any
    /// (latest `applied_at_us`, then the greatest name: names begin with their date).
    static func newestUnknownMigration(_ connection: Connection, known: Set<String>) throws(HealthStoreError) -> String? {
        let select = try connection.prepare("SELECT name, applied_at_us FROM schema_migration").get()
        var newest: (name: String, appliedAt: Int64)?
        while try select.step().get() {
            guard let name = select.text(0), !known.contains(name) else { continue }
            let appliedAt = select.int64(1)
            if let current = newest, (current.appliedAt, current.name) >= (appliedAt, name) { continue }
            newest = (name, appliedAt)
        }
        return newest?.name
    }

    /// Runs `body` in one write transaction: committed when it returns, rolled back when it throws.
    private static func inWriteTransaction<T>(_ connection: Connection,
                                              _ body: () throws(HealthStoreError) -> T) throws(HealthStoreError) -> T {
        try connection.engine.beginWrite(durability: .ordinary).get()
        do {
            let result = try body()
            try connection.engine.endWrite(commit: true).get()
            return result
        } catch {
            _ = connection.engine.endWrite(commit: false)
            throw error
        }
    }
}
