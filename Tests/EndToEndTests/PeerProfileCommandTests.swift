import Foundation
import Testing

/// `bandsim serve --profile infinitime|hr-strap` and `band` as processes over the socket link:
/// the reader tells the kind from discovery and runs that kind's plan.
@Suite(.serialized, .enabled(if: Commands.available, "needs bandsim, band and health built (swift build)"))
struct PeerProfileCommandTests {
    func events(_ stdout: String) -> [[String: Any]] {
        stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    @Test func anInfiniTimeWatchIsToldByDiscoveryItsClockSetAndItsHeartRateStored() throws {
        let world = try DemoWorld()
        // The watch's clock starts months off (as after a flat battery): the reader must set it.
        try world.startPeer("infinitime", ["--seed", "5", "--start", "2026-06-01T10:00:00+02:00"])
        let stream = try world.band(["stream", world.address, "--for", "4s", "--json", "--store", world.store])
        #expect(stream.status == 0, "\(stream.stderr)")
        let lines = events(stream.stdout)
        let connected = try #require(lines.first { $0["event"] as? String == "connected" }, "\(stream.stdout)")
        #expect(connected["kind"] as? String == "infinitime")
        #expect(connected["band"] as? Bool == false)
        #expect(lines.contains { $0["event"] as? String == "clock_set" }, "the reader sets the watch's clock")
        #expect(!lines.contains { $0["event"] as? String == "authenticated" })
        let device = try #require(lines.first { $0["event"] as? String == "device" })
        #expect(device["firmware"] as? String == "1.14.0" && device["model"] as? String == "PineTime")
        let rates = lines.filter { $0["event"] as? String == "reading" && $0["kind"] as? String == "hr" }.compactMap { number($0["heart_rate"]) }
        #expect(rates.count >= 2)
        let stored = try world.storedSamples().filter { $0.type == "heart-rate" }
        #expect(!stored.isEmpty && stored.allSatisfy { rates.contains($0.value) })
    }

    @Test func aStrapProfileIsAHeartRateStrapWithItsEnergyAndContact() throws {
        let world = try DemoWorld()
        try world.startPeer("hr-strap", ["--seed", "5"])
        let stream = try world.band(["stream", world.address, "--for", "12s", "--json", "--store", world.store])
        #expect(stream.status == 0, "\(stream.stderr)")
        let lines = events(stream.stdout)
        #expect(lines.first { $0["event"] as? String == "connected" }?["kind"] as? String == "hr-strap")
        let readings = lines.filter { $0["event"] as? String == "reading" }
        #expect(readings.contains { $0["energy_expended_kj"] != nil && !($0["energy_expended_kj"] is NSNull) }, "an energy field every 10th measurement")
        #expect(readings.allSatisfy { $0["sensor_contact"] is Bool })
        let human = try world.band(["stream", world.address, "--for", "2s", "--store", world.store])
        #expect(human.stderr.contains("connected (ATT MTU 247); heart-rate strap (standard Heart Rate service)"), "\(human.stderr)")
    }

    @Test func profileOptionsAreChecked() throws {
        let unknown = try RunningCommand.run("bandsim", ["serve", "--profile", "toaster"])
        #expect(unknown.status == 64 && unknown.stderr.contains("--profile 'toaster' is not band, infinitime or hr-strap"), "\(unknown.stderr)")
        let bandOnly = try RunningCommand.run("bandsim", ["serve", "--profile", "infinitime", "--state", "/tmp/x"])
        #expect(bandOnly.status == 64 && bandOnly.stderr.contains("--state applies to the BandKit band only"), "\(bandOnly.stderr)")
        let reboot = try RunningCommand.run("bandsim", ["serve", "--profile", "hr-strap", "--reboot-at", "soon"])
        #expect(reboot.status == 64 && reboot.stderr.contains("--reboot-at") && reboot.stderr.contains("soon"), "\(reboot.stderr)")
        for (arguments, message) in [(["--profile", "infinitime", "--passkey", "12345"], "--passkey must be six digits (got 12345)"),
                                     (["--profile", "infinitime", "--passkey", "1\u{1B}[2J"], "--passkey must be six digits (got 1"),
                                     (["--profile", "hr-strap", "--passkey", "123456"], "--passkey applies to --profile infinitime only"),
                                     (["--passkey", "123456"], "--passkey applies to --profile infinitime only"),
                                     (["--profile", "infinitime", "--hci", "hci0", "--passkey", "123456"], "over --hci the kernel chooses the passkey")] {
            let run = try RunningCommand.run("bandsim", ["serve"] + arguments)
            #expect(run.status == 64 && run.stderr.contains(message), "\(arguments): \(run.stderr)")
            #expect(!run.stderr.contains("\u{1B}"), "a control character reached the terminal raw")
        }
    }
}
