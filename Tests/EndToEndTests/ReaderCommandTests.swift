import Foundation
import Testing

/// The `band` command against `bandsim serve` as processes, the way a user runs them: the store
/// must end up holding exactly the band's minutes, whatever happens in between.
@Suite(.serialized, .enabled(if: Commands.available, "needs bandsim, band and health built (swift build)"))
struct ReaderCommandTests {
    /// 2026-11-30T07:20:00Z: the walk to work (07:30) happens while streaming.
    static let bandStart = "2026-11-30T07:20:00Z"

    @Test func simulatedDayPairStreamSyncStoresEveryMinuteOnceWithTheBandsValues() throws {
        let world = try DemoWorld()
        try world.startBand(["--start", Self.bandStart, "--speed", "600", "--history-days", "1", "--seed", "3"])
        let pair = try world.band(["pair", world.address])
        #expect(pair.status == 0, "\(pair.stderr)")
        let trace = world.directory + "/session.btsnoop"
        let stream = try world.band(["stream", world.address, "--for", "3s", "--keep-band-clock", "--json", "--store", world.store,
                                     "--record", trace])
        #expect(stream.status == 0, "\(stream.stderr)")
        #expect(stream.stdout.contains("\"event\":\"reading\""))
        #expect(stream.stdout.contains("\"kind\":\"hr\""))
        // The measurement's contact and Energy Expended reach the output, not only the rate; the
        // band sends contact on every measurement and Energy Expended on every tenth.
        #expect(stream.stdout.contains("\"sensor_contact\":true"))
        #expect(stream.stdout.contains(/"energy_expended_kj":\d/))
        // The recorded session decodes: discovery found the heart-rate characteristic and its values.
        let decoded = try RunningCommand.run("bandsim", ["decode", trace, "--json"])
        #expect(decoded.status == 0, "\(decoded.stderr)")
        #expect(decoded.stdout.contains("2a37"), "heart rate measurements in the trace")
        let sync = try world.band(["sync", world.address, "--keep-band-clock", "--json", "--store", world.store])
        #expect(sync.status == 0, "\(sync.stderr)")
        // Every committed batch is timed for the load bench (bench/postgres/load.sh).
        let writes = (stream.stdout + sync.stdout).split(separator: "\n").filter { $0.contains("\"event\":\"store_write\"") }
        #expect(writes.contains { $0.contains("\"batch\":\"history\"") } && writes.contains { $0.contains("\"batch\":\"live\"") },
                "\(writes.prefix(5))")
        #expect(writes.allSatisfy { $0.contains(/"rows":\d+,"us":\d+\}$/) }, "\(writes.prefix(5))")
        world.stopBand()
        let cursor = try #require(lastCursor(in: [stream.stdout, sync.stdout]))
        #expect(cursor >= 1440 + 20, "a day of history plus what was streamed")
        let problems = compare(truth: try world.truth(), below: cursor, stored: try world.storedSamples())
        #expect(problems == [], "\(problems.joined(separator: "\n"))")
    }

    @Test func rebootsDisconnectsAndDamagedNotificationsLoseNothingAndDuplicateNothing() throws {
        let world = try DemoWorld()
        try world.startBand(["--start", Self.bandStart, "--speed", "600", "--history-days", "1", "--seed", "9",
                             "--fault", "disconnect-mid-history", "--fault", "disconnect-at=4m", "--reboot-at", "9m",
                             "--drop-rate", "0.005", "--corrupt-rate", "0.005"])
        #expect(try world.band(["pair", world.address]).status == 0)
        let stream = try world.band(["stream", world.address, "--for", "4s", "--keep-band-clock", "--json", "--store", world.store])
        #expect(stream.status == 0, "\(stream.stderr)")
        #expect(stream.stdout.contains("\"event\":\"disconnected\""), "the faults cut the link")
        let sync = try world.band(["sync", world.address, "--keep-band-clock", "--json", "--store", world.store, "--attempts", "30"])
        #expect(sync.status == 0, "\(sync.stderr)")
        world.stopBand()
        let cursor = try #require(lastCursor(in: [stream.stdout, sync.stdout]))
        let problems = compare(truth: try world.truth(), below: cursor, stored: try world.storedSamples())
        #expect(problems == [], "\(problems.joined(separator: "\n"))")
    }

    @Test func readerKilledMidSyncResumesFromItsCursorWithoutLossOrDuplicates() throws {
        let world = try DemoWorld()
        // Room for more than the week, so no record is overwritten while the test runs.
        try world.startBand(["--start", Self.bandStart, "--speed", "1", "--history-days", "3", "--history-capacity", "6000", "--seed", "4"])
        #expect(try world.band(["pair", world.address]).status == 0)
        var outputs: [String] = []
        // Killed while the first transfer arrives, then right after a batch was committed.
        for killPoint in ["\"event\":\"history_progress\"", "\"event\":\"history_committed\""] {
            let sync = try world.start("band", ["sync", world.address, "--json", "--store", world.store])
            #expect(sync.waitForOutput(killPoint), "never saw \(killPoint): \(sync.stderr)")
            sync.signal(SIGKILL)
            #expect(sync.wait() == 0 || sync.process.terminationReason == .uncaughtSignal)
            outputs.append(sync.stdout)
        }
        let final = try world.band(["sync", world.address, "--json", "--store", world.store])
        #expect(final.status == 0, "\(final.stderr)")
        outputs.append(final.stdout)
        world.stopBand()
        let cursor = try #require(lastCursor(in: outputs))
        #expect(cursor >= 3 * 1440)
        let problems = compare(truth: try world.truth(), below: cursor, stored: try world.storedSamples())
        #expect(problems == [], "\(problems.joined(separator: "\n"))")
    }

    @Test func wrongKeyIsRefusedWithAClearErrorAndNothingIsWritten() throws {
        let world = try DemoWorld()
        try world.startBand(["--start", Self.bandStart, "--history-days", "1"])
        #expect(try world.band(["pair", world.address]).status == 0)
        let keystore = world.environment["XDG_CONFIG_HOME"]! + "/bandkit/keys.json"
        var text = try String(contentsOfFile: keystore, encoding: .utf8)
        let range = try #require(text.range(of: "\"key\" : \""))
        let first = text[range.upperBound]
        text.replaceSubrange(range.upperBound...range.upperBound, with: first == "0" ? "1" : "0")
        try text.write(toFile: keystore, atomically: false, encoding: .utf8)
        let sync = try world.band(["sync", world.address, "--store", world.store])
        #expect(sync.status == 1)
        #expect(sync.stderr.contains("refused authentication: wrong proof"), "\(sync.stderr)")
        #expect(try world.storedSamples().isEmpty)
    }

    @Test func ctrlCStopsTheStreamCleanlyWithEverythingCommitted() throws {
        let world = try DemoWorld()
        try world.startBand(["--start", Self.bandStart, "--speed", "120"])
        #expect(try world.band(["pair", world.address]).status == 0)
        let stream = try world.start("band", ["stream", world.address, "--keep-band-clock", "--store", world.store])
        #expect(stream.waitForOutput("HR"), "no live line: \(stream.stderr)")
        Thread.sleep(forTimeInterval: 1.5)
        stream.signal(SIGINT)
        #expect(stream.wait(timeout: .seconds(10)) == 0, "\(stream.stderr)")
        #expect(stream.stderr.contains("stopped"))
        let live = try world.storedSamples().filter { $0.origin == "live" && $0.type == "heart-rate" }
        #expect(!live.isEmpty, "the minutes streamed before Ctrl-C are in the store")

        // The keystore lists the band until it is forgotten; its samples stay.
        let devices = try world.band(["devices", "--json"])
        #expect(devices.status == 0)
        #expect(devices.stdout.contains("\"address\":\"\(world.address)\""))
        #expect(devices.stdout.contains("\"model\":\"BK-1 (simulated)\""))
        #expect(try world.band(["forget", world.address]).status == 0)
        #expect(try world.band(["devices", "--json"]).stdout.isEmpty)
        #expect(try world.band(["sync", world.address, "--store", world.store]).stderr.contains("is not paired"))
        #expect(try !world.storedSamples().isEmpty)
    }

    /// A stream that never reached the band is a failure, not exit 0: a script must be able to tell.
    @Test func streamForThatNeverConnectsExits1AndSaysWhat() throws {
        let world = try DemoWorld()
        let stream = try world.band(["stream", "sim:" + world.directory + "/no-band.sock", "--for", "1s", "--store", world.store])
        #expect(stream.status == 1)
        #expect(stream.stderr.contains("never connected to"), "\(stream.stderr)")
    }

    @Test func usageErrorsExit64AndNameTheProblem() throws {
        let world = try DemoWorld()
        let bad = try world.band(["stream", "AA:BB:CC", "--store", world.store])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("ADDRESS"))
        let duration = try world.band(["stream", "sim:/nowhere", "--for", "soon"])
        #expect(duration.status == 64)
        #expect(duration.stderr.contains("--for"))
        let unpaired = try world.band(["forget", "sim:/nowhere"])
        #expect(unpaired.status == 1)
        let devices = try world.band(["devices"])
        #expect(devices.status == 0)
    }

    /// A band started at a time its minute records cannot name (BandClock.settableSeconds) is
    /// refused before it runs; it would have trapped building its first record.
    @Test(arguments: ["2106-03-01T00:00:00Z", "9999-12-31T23:59:59Z", "1969-12-31T23:59:59Z"])
    func aBandsimStartTheRecordsCannotNameExits64(start: String) throws {
        let world = try DemoWorld()
        let serve = try RunningCommand.run("bandsim", ["serve", "--socket", world.directory + "/band.sock", "--start", start])
        #expect(serve.status == 64)
        #expect(serve.stderr.contains("--start '\(start)' is outside 1970-01-01 … 2105-12-31 UTC"), "\(serve.stderr)")
    }
}
