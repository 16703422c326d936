import Foundation
import Testing

/// A store a newer BandKit migrated (a migration in its ledger this binary does not know) is
/// refused by the commands that write it: exit 1, the store's newest migration and this
/// binary's named, nothing written.
@Suite struct SupersededStoreCommandTests {
    static let futureMigration = "2099-01-01-from-the-future"

    func sqlite(_ store: String, _ sql: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [store, sql]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw WorldError("sqlite3 \(sql) failed (\(process.terminationStatus))") }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func healthAndBandRefuseAStoreANewerBinaryMigrated() throws {
        let world = try DemoWorld()
        try world.startBand(["--start", "2026-11-30T07:20:00Z", "--history-days", "1"])
        #expect(try world.band(["pair", world.address]).status == 0)
        let created = try RunningCommand.run("health", ["import", "/dev/null", "--store", world.store], environment: world.environment)
        #expect(created.status == 0, "\(created.stderr)")
        _ = try sqlite(world.store, "INSERT INTO schema_migration (name, applied_at_us) VALUES ('\(Self.futureMigration)', 1)")
        let named = "was migrated by a newer BandKit (its newest migration is \(Self.futureMigration); this BandKit's newest is 20"

        let health = try RunningCommand.run("health", ["import", "/dev/null", "--store", world.store], environment: world.environment)
        #expect(health.status == 1)
        #expect(health.stderr.contains("health: cannot open store \(world.store): \(named)"), "\(health.stderr)")

        let sync = try world.band(["sync", world.address, "--store", world.store])
        #expect(sync.status == 1)
        #expect(sync.stderr.contains(named), "\(sync.stderr)")

        #expect(try sqlite(world.store, "SELECT count(*) FROM sample") == "0", "nothing was written")
    }
}
