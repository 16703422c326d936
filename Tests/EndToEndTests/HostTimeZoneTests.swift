import Foundation
import Testing

/// `band` takes the host's zone from the C library (`TZ`, /etc/localtime), not from ICU; with
/// `TZ` set per process it must write the band the zone Foundation's `TimeZone` (ICU) computes
/// for the same instant — quarter-hour zones, half-hour DST and southern summers included — and
/// print local times in it.
@Suite(.serialized, .enabled(if: Commands.available, "needs bandsim, band and health built (swift build)"))
struct HostTimeZoneTests {
    /// Consecutive zones differ, so every sync writes Local Time Information and reports it.
    static let zones = ["Asia/Kathmandu", "America/St_Johns", "Australia/Lord_Howe", "Pacific/Chatham", "Europe/Berlin",
                        "Asia/Kolkata", "Europe/Dublin", "Africa/Casablanca", "America/Los_Angeles", "UTC"]

    @Test func syncWritesTheBandTheZoneThatTZNames() throws {
        let world = try DemoWorld()
        try world.startBand(["--seed", "4"])  // real time, clock starting at the host's now
        let pair = try world.band(["pair", world.address])
        #expect(pair.status == 0, "\(pair.stderr)")
        for name in Self.zones {
            let zone = try #require(TimeZone(identifier: name))
            let sync = try RunningCommand.run("band", ["sync", world.address, "--json", "--store", world.store],
                                              environment: world.environment.merging(["TZ": name]) { $1 })
            #expect(sync.status == 0, "\(name): \(sync.stderr)")
            let event = try #require(jsonLines(sync.stdout).first { $0["event"] as? String == "clock_set" }, "\(name): \(sync.stdout)")
            let now = Date()
            let offset = zone.secondsFromGMT(for: now)
            let daylight = Int(zone.daylightSavingTimeOffset(for: now))
            let written = (number(event["utc_offset_s"]).map(Int.init), number(event["time_zone_quarter_hours"]).map(Int.init),
                           number(event["dst_code"]).map(Int.init))
            #expect(written.0 == offset, "\(name)")
            let codeSeconds = [0: 0, 2: 1800, 4: 3600, 8: 7200]
            #expect((written.1 ?? 0) * 900 + (codeSeconds[written.2 ?? -1] ?? -1) == offset, "\(name): zone + DST is the offset: \(event)")
            if !Self.negativeDaylightSavingZones.contains(name) {
                let code = [0: 0, 1800: 2, 3600: 4, 7200: 8][daylight] ?? 255
                #expect(written.1 == (offset - daylight) / 900 && written.2 == code, "\(name): \(event)")
            }
        }
    }

    /// Zones tzdata models with a negative DST (Dublin: IST in summer is standard time, winter
    /// GMT is "DST" −1 h; Morocco's Ramadan time), which ICU flips to positive: the split
    /// differs, the offset does not.
    static let negativeDaylightSavingZones: Set = ["Europe/Dublin", "Africa/Casablanca"]

    @Test func streamPrintsReadingTimesInTheTZZone() throws {
        let world = try DemoWorld()
        try world.startBand(["--seed", "4"])
        #expect(try world.band(["pair", world.address]).status == 0)
        let stream = try RunningCommand.run("band", ["stream", world.address, "--for", "3s", "--store", world.store],
                                            environment: world.environment.merging(["TZ": "Asia/Kathmandu"]) { $1 })
        #expect(stream.status == 0, "\(stream.stderr)")
        let first = try #require(stream.stdout.split(separator: "\n").first, "no reading printed: \(stream.stderr)")
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        formatter.timeZone = TimeZone(identifier: "Asia/Kathmandu")
        let printed = try #require(formatter.date(from: String(first.prefix(19))), "\(first)")
        #expect(abs(printed.timeIntervalSinceNow) < 60, "\(first) is not Nepal's local time now")
    }

    private func jsonLines(_ text: String) -> [[String: Any]] {
        text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }
}
