import HealthTestSupport
import Foundation
import HealthModel
@testable import HealthStore
import Testing

/// A store written before people existed: made here with the migrations that shipped before
/// (they are append-only, so they are exactly that schema) and rows in that schema's columns.
/// The people migration must keep every row under the default person, and statistics, grants,
/// characteristics and the sync-identifier rule as they were.
@Suite struct PeopleMigrationTests {
    /// An empty database with the schema before people, in a fresh file or PostgreSQL schema.
    final class PreviousSchemaStore {
        let directory: String
        let path: String
        private var schema: String?

        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("people-migration-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            if let url = TemporaryStore.postgresURL {
                let name = "test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
                try TemporaryStore.psql(url, "CREATE SCHEMA \(name)")
                schema = name
                path = TemporaryStore.url(url, schema: name)
            } else {
                path = directory + "/health.sqlite"
                // As the store creates its files: private (a store others may read is refused).
                FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
            }
        }

        deinit {
            try? FileManager.default.removeItem(atPath: directory)
            if let schema, let url = TemporaryStore.postgresURL { try? TemporaryStore.psql(url, "DROP SCHEMA \(schema) CASCADE") }
        }

        func connect() throws -> Connection {
            if TemporaryStore.usesPostgreSQL { return Connection(engine: try #require(PostgreSQLEngines.registered).connect(url: path, readOnly: false).get()) }
            return Connection(engine: try SQLiteEngine.open(path: path, create: true).get())
        }
    }

    static let previousMigrations: [Migration] = [.initialSchema, .mergedHours]
    static let hour = at("2026-11-30T08:00:00Z").microsecondsSince1970
    static let minute: Int64 = 60_000_000

    /// An hour of a watch's minutes (10 steps each, sync ids m-0…m-59), its hourly total, a read
    /// grant for a phone app, a date of birth and a workout, written in the previous schema.
    func previousStore() throws -> PreviousSchemaStore {
        let old = try PreviousSchemaStore()
        let connection = try old.connect()
        #expect(try Migrator.migrate(connection, migrations: Self.previousMigrations, now: 0).count == 2)
        try connection.engine.beginWrite(durability: .ordinary).get()
        let typeID = try connection.scalar("INSERT INTO sample_type (identifier, max_duration_us) VALUES ('step-count', ?) RETURNING id") {
            $0.bind(1, Self.minute)
        }.get()!
        let watchID = try connection.scalar("INSERT INTO app (bundle_id, first_anchor) VALUES ('com.example.watch', 1) RETURNING id").get()!
        let phoneID = try connection.scalar("INSERT INTO app (bundle_id, first_anchor) VALUES ('com.example.phone-a', 61) RETURNING id").get()!
        let insert = try connection.prepare("""
            INSERT INTO sample (anchor, uuid, type_id, start_us, end_us, value, app_id, app_version, sync_id, sync_version)
            VALUES (?, ?, ?, ?, ?, 10, ?, '2.0', ?, 0)
            """).get()
        for index in 0..<60 {
            insert.bind(1, Int64(index + 1))
            insert.bind(2, UUID())
            insert.bind(3, typeID)
            insert.bind(4, Self.hour + Int64(index) * Self.minute)
            insert.bind(5, Self.hour + Int64(index + 1) * Self.minute)
            insert.bind(6, watchID)
            insert.bind(7, "m-\(index)")
            try insert.run().get()
        }
        let workout = try connection.prepare("""
            INSERT INTO workout (anchor, uuid, activity, start_us, end_us, app_id, app_version) VALUES (61, ?, 'running', ?, ?, ?, '2.0')
            """).get()
        workout.bind(1, UUID())
        workout.bind(2, Self.hour)
        workout.bind(3, Self.hour + 30 * Self.minute)
        workout.bind(4, watchID)
        try workout.run().get()
        try connection.execute("""
            UPDATE change_counter SET anchor = 61 WHERE id = 1;
            INSERT INTO merged_hour (type_id, hour_us, value) VALUES (\(typeID), \(Self.hour), 600);
            UPDATE merged_hour_state SET complete = 1 WHERE id = 1;
            INSERT INTO "authorization" (app_id, type, can_read, can_write) VALUES (\(phoneID), 'step-count', 1, NULL);
            INSERT INTO "authorization" (app_id, type, can_read, can_write) VALUES (\(phoneID), 'workout', 1, NULL);
            INSERT INTO characteristic (key, value) VALUES ('date-of-birth', '1980-01-02');
            """).get()
        try connection.engine.endWrite(commit: true).get()
        return old
    }

    let day = at("2026-11-30T00:00:00Z")..<at("2026-12-01T00:00:00Z")

    @Test func everyRowStaysWithTheDefaultPersonAndStatisticsAreUnchanged() throws {
        let old = try previousStore()
        let store = try HealthStore(path: old.path)
        #expect(store.person.isDefault && store.person.name == Person.defaultName)
        let applied = try store.withConnection { try $0.scalar("SELECT count(*) FROM schema_migration WHERE name = '2026-12-02-people'").get() }
        #expect(applied == 1)
        for table in ["sample", "workout", "merged_hour", "\"authorization\"", "characteristic"] {
            let (all, others) = try store.withConnection { connection in
                (try connection.scalar("SELECT count(*) FROM \(table)").get(),
                 try connection.scalar("SELECT count(*) FROM \(table) WHERE person_id <> 1").get())
            }
            #expect(all ?? 0 > 0 && others == 0, "\(table): \(all ?? -1) rows, \(others ?? -1) of another person")
        }
        // The hourly total was carried over (the store is marked complete, so nothing rebuilt it).
        let hours = try store.withConnection { try $0.scalar("SELECT value FROM merged_hour WHERE person_id = 1").get() }
        #expect(hours == 600)
        let merged = try store.statistics(type: .stepCount, range: day, options: .sum, timeZone: zone("UTC"), as: .owner)
        #expect(merged[0].sum == 600)
        let bySource = try store.statistics(type: .stepCount, range: day, options: .sum, timeZone: zone("UTC"), bySource: true, as: .owner)
        #expect(bySource[0].sum == 600 && bySource[0].bySource.map(\.source) == [watch.id])
        // Grants and characteristics are the default person's now.
        #expect(try store.samples(HealthQuery(type: .stepCount), as: phoneA).count == 60)
        #expect(try store.workouts(as: phoneA).count == 1)
        #expect(try store.characteristics(as: .owner).dateOfBirth?.year == 1980)
        #expect(try store.changes(since: .zero, as: .owner).samples.count == 60)
        // The sync-identifier rule still finds the old rows.
        let again = try store.write(as: .owner) {
            try $0.save(steps(10, "2026-11-30T08:00:00Z", "2026-11-30T08:01:00Z", syncID: "m-0"), attributedTo: watch)
        }
        #expect(again != .inserted)
        // A second person starts empty, and the first person's totals do not move.
        try store.addPerson(named: "ana")
        let ana = try HealthStore(path: old.path, person: "ana")
        #expect(try ana.statistics(type: .stepCount, range: day, options: .sum, timeZone: zone("UTC"), as: .owner)[0].sum == nil)
        #expect(try store.statistics(type: .stepCount, range: day, options: .sum, timeZone: zone("UTC"), as: .owner)[0].sum == 600)
    }

    /// Reading commands open the store read-only and may not migrate it: a SQLite store from
    /// before people reads as its default person, and stays as it was.
    @Test(.disabled(if: TemporaryStore.usesPostgreSQL, "SQLite's temporary views; PostgreSQL: the next test"))
    func aStoreWithoutThePeopleMigrationReadsReadOnlyAsTheDefaultPerson() throws {
        let old = try previousStore()
        let reader = try HealthStore(path: old.path, readOnly: true)
        #expect(reader.person.isDefault)
        #expect(try reader.people().map(\.name) == [Person.defaultName])
        #expect(try reader.statistics(type: .stepCount, range: day, options: .sum, timeZone: zone("UTC"), as: .owner)[0].sum == 600)
        let hourly = try reader.statistics(type: .stepCount, range: day, options: .sum, bucket: .hour, timeZone: zone("UTC"),
                                           bySource: true, as: .owner)
        #expect(hourly[8].sum == 600 && hourly[8].bySource.map(\.source) == [watch.id])
        #expect(try reader.samples(HealthQuery(type: .stepCount), as: phoneA).count == 60)
        #expect(try reader.changes(since: .zero, as: .owner).workouts.count == 1)
        #expect(try reader.characteristics(as: .owner).dateOfBirth?.year == 1980)
        #expect(throws: HealthStoreError.unknownPerson("ana")) { _ = try HealthStore(path: old.path, readOnly: true, person: "ana") }
        // Nothing was written: the file still lacks the migration, and a writer then applies it.
        let check = try old.connect()
        #expect(try check.scalar("SELECT count(*) FROM schema_migration").get() == 2)
        #expect(try HealthStore(path: old.path).statistics(type: .stepCount, range: day, options: .sum, timeZone: zone("UTC"),
                                                           as: .owner)[0].sum == 600)
    }

    @Test(.enabled(if: TemporaryStore.usesPostgreSQL, "PostgreSQL's read-only sessions create nothing, not even views"))
    func aPostgreSQLStoreWithoutThePeopleMigrationOpenedReadOnlySaysHowToUpgrade() throws {
        let old = try previousStore()
        do {
            _ = try HealthStore(path: old.path, readOnly: true)
            Issue.record("a store lacking the people migration opened read-only")
        } catch let error as HealthStoreError {
            #expect("\(error)".contains("2026-12-02-people") && "\(error)".contains("open it once with a command that writes"), "\(error)")
        }
    }
}
