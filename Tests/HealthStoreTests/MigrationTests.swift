import HealthTestSupport
import Foundation
import HealthModel
@testable import HealthStore
import Testing

@Suite struct MigrationTests {
    @Test func openingTwiceAppliesEachMigrationOnce() throws {
        let temp = try TemporaryStore()
        try temp.store.write(as: .owner) { try $0.save(steps(5, "2026-11-30T08:00:00Z", "2026-11-30T08:01:00Z")) }
        let again = try HealthStore(path: temp.path)
        let applied = try again.withConnection { connection in
            try Migrator.migrate(connection, now: 0)
        }
        #expect(applied.isEmpty)
        let names = try again.withConnection { connection in
            try connection.scalar("SELECT count(*) FROM schema_migration").get()
        }
        #expect(names == Int64(Migration.all.count))
        #expect(try again.samples(HealthQuery(type: .stepCount), as: .owner).count == 1)
    }

    @Test func aFailingMigrationLeavesNothingBehind() throws {
        let temp = try TemporaryStore()
        let script = "CREATE TABLE half_done (x INTEGER); INSERT INTO no_such_table VALUES (1);"
        let broken = Migration(name: "broken", sql: script, postgresql: script)
        let result = temp.store.withConnection { connection in Result { () throws(HealthStoreError) in try Migrator.migrate(connection, migrations: [broken], now: 0) } }
        guard case .failure(.database(let error)) = result else {
            Issue.record("a broken migration did not fail with the database's error: \(result)")
            return
        }
        #expect(error.message.contains("no_such_table"))
        #expect(error.sql.contains("INSERT INTO no_such_table"))
        let leftover = try temp.store.withConnection {
            try $0.scalar($0.kind == .sqlite ? "SELECT count(*) FROM sqlite_schema WHERE name = 'half_done'"
                          : "SELECT count(*) FROM information_schema.tables WHERE table_name = 'half_done' AND table_schema = current_schema()").get()
        }
        #expect(leftover == 0)
    }

    /// A store a newer binary migrated (a name in its ledger this binary does not know) is
    /// refused for writing, naming the store's newest migration and this binary's; nothing is
    /// applied or written.
    @Test func aStoreANewerBinaryMigratedIsRefusedNamingBothVersions() throws {
        let temp = try TemporaryStore()
        try temp.store.write(as: .owner) { try $0.save(steps(5, "2026-11-30T08:00:00Z", "2026-11-30T08:01:00Z")) }
        try temp.store.withConnection { connection in
            try connection.execute("""
                INSERT INTO schema_migration (name, applied_at_us) VALUES ('2099-01-01-from-the-future', 20);
                INSERT INTO schema_migration (name, applied_at_us) VALUES ('2099-02-01-newer-still', 30);
                INSERT INTO schema_migration (name, applied_at_us) VALUES ('2098-01-01-older', 10)
                """).get()
        }
        let newestKnown = try #require(Migration.all.last).name
        #expect(throws: HealthStoreError.supersededSchema(storeMigration: "2099-02-01-newer-still", newestKnown: newestKnown)) {
            _ = try HealthStore(path: temp.path)
        }
        let error = HealthStoreError.supersededSchema(storeMigration: "2099-02-01-newer-still", newestKnown: newestKnown)
        #expect(error.description.contains("2099-02-01-newer-still") && error.description.contains(newestKnown))
        // The Migrator itself refuses before applying anything, whatever it is asked to apply.
        let extra = Migration(name: "2099-03-01-never", sql: "CREATE TABLE never (x INTEGER)", postgresql: "CREATE TABLE never (x BIGINT)")
        let result = temp.store.withConnection { connection in
            Result { () throws(HealthStoreError) in try Migrator.migrate(connection, migrations: Migration.all + [extra], now: 40) }
        }
        guard case .failure(.supersededSchema) = result else {
            Issue.record("a superseded store was migrated: \(result)")
            return
        }
        let ledger = try temp.store.withConnection { try $0.scalar("SELECT count(*) FROM schema_migration").get() }
        #expect(ledger == Int64(Migration.all.count + 3))
        // The samples are where they were, for the newer binary.
        #expect(try temp.store.samples(HealthQuery(type: .stepCount), as: .owner).count == 1)
    }

    @Test func errorsNameTheStatementAndSQLitesMessage() throws {
        let temp = try TemporaryStore()
        let result = temp.store.withConnection { $0.prepare("SELECT nope FROM sample") }
        guard case .failure(let error) = result else {
            Issue.record("bad SQL prepared")
            return
        }
        #expect(error.description.contains(TemporaryStore.usesPostgreSQL ? "column \"nope\" does not exist" : "no such column: nope"))
        #expect(error.description.contains("SELECT nope FROM sample"))
    }

    @Test(.disabled(if: TemporaryStore.usesPostgreSQL, "a file's mode: SQLite only"))
    func theStoreFileIsPrivateToItsOwner() throws {
        let temp = try TemporaryStore()
        let attributes = try FileManager.default.attributesOfItem(atPath: temp.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let wal = try FileManager.default.attributesOfItem(atPath: temp.path + "-wal")
        #expect((wal[.posixPermissions] as? Int) == 0o600)
    }

    @Test func theDefaultPathFollowsXDGAndTheEnvironmentOverride() {
        #expect(HealthStore.defaultPath(environment: ["XDG_DATA_HOME": "/data", "HOME": "/home/u"]) == "/data/bandkit/health.sqlite")
        #expect(HealthStore.defaultPath(environment: ["HOME": "/home/u"]) == "/home/u/.local/share/bandkit/health.sqlite")
        #expect(HealthStore.defaultPath(environment: ["BANDKIT_STORE": "/tmp/x.sqlite", "HOME": "/home/u"]) == "/tmp/x.sqlite")
    }
}
