import Foundation
import Testing

/// `band pair --person NAME` as a user runs it: the name is checked in the store before the band
/// is touched, the output says whose band it is, and `band sync` writes as that person.
@Suite(.serialized, .enabled(if: Commands.available, "needs bandsim, band and health built (swift build)"))
struct PersonPairingTests {
    func health(_ world: DemoWorld, _ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        try RunningCommand.run("health", arguments + ["--store", world.store], environment: world.environment)
    }

    @Test func anUnknownOrInvalidPersonIsAUsageErrorBeforeTheBandIsTouched() throws {
        let world = try DemoWorld()
        #expect(try health(world, ["people", "add", "ana"]).status == 0)
        // No band is listening: exit 64 proves the run ended before connecting.
        for (name, says) in [("nobody", "no such person"), ("evil\u{1B}[2J", "control character")] {
            let pair = try world.band(["pair", world.address, "--person", name, "--store", world.store])
            #expect(pair.status == 64, "\(name.debugDescription): \(pair.status) \(pair.stderr)")
            #expect(pair.stderr.contains(says) && !pair.stderr.contains("\u{1B}"), "\(pair.stderr.debugDescription)")
        }
    }

    @Test func aBandPairedForAPersonSyncsIntoThatPersonsData() throws {
        let world = try DemoWorld()
        #expect(try health(world, ["people", "add", "ana"]).status == 0)
        try world.startBand(["--start", "2026-11-30T07:20:00Z", "--speed", "600", "--history-days", "1", "--seed", "3"])
        let pair = try world.band(["pair", world.address, "--person", "ana", "--store", world.store, "--json"])
        #expect(pair.status == 0, "\(pair.stderr)")
        let line = try #require(pair.stdout.split(separator: "\n").last.map(String.init))
        let event = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(event["event"] as? String == "paired_band" && event["person"] as? String == "ana", "\(line)")
        let devices = try world.band(["devices", "--json"])
        #expect(devices.stdout.contains(#""person":"ana""#), "\(devices.stdout)")
        #expect(try world.band(["devices"]).stdout.contains("for ana"))
        let sync = try world.band(["sync", world.address, "--keep-band-clock", "--store", world.store])
        world.stopBand()
        #expect(sync.status == 0, "\(sync.stderr)")
        let defaultPersons = try world.storedSamples().count
        #expect(defaultPersons == 0, "the default person got none of the band's minutes")
        let export = try health(world, ["export", "--person", "ana"])
        #expect(export.status == 0 && export.stdout.split(separator: "\n").count > 1000, "\(export.stderr)")
    }
}
