import HealthTestSupport
import Foundation
import HealthModel
import HealthStore
import Testing

/// `health sleep`: a night from every source, counted once, with HealthKit's values.
@Suite struct SleepCommandTests {
    let temp: TemporaryStore
    let health: HealthCommand

    init() throws {
        temp = try TemporaryStore()
        health = HealthCommand(store: temp.path)
    }

    /// A JSON number as Double, whether JSONSerialization read it as an integer or not.
    func number(_ value: Any?) -> Double? { (value as? NSNumber)?.doubleValue }

    func line(_ value: String, _ start: String, _ end: String, _ source: String) -> String {
        #"{"type":"sleep-analysis","value":"\#(value)","start":"\#(start)","end":"\#(end)","source":"\#(source)"}"# + "\n"
    }

    /// A band night 23:00–07:00 with one 30-minute awakening, and a phone app's night
    /// 22:00–06:00 that overlaps it.
    var twoSources: String {
        line("inBed", "2026-11-30T23:00:00Z", "2026-12-01T07:00:00Z", "bandkit.band")
            + line("asleepUnspecified", "2026-11-30T23:00:00Z", "2026-12-01T02:00:00Z", "bandkit.band")
            + line("awake", "2026-12-01T02:00:00Z", "2026-12-01T02:30:00Z", "bandkit.band")
            + line("asleepUnspecified", "2026-12-01T02:30:00Z", "2026-12-01T07:00:00Z", "bandkit.band")
            + line("inBed", "2026-11-30T22:00:00Z", "2026-12-01T06:00:00Z", "com.example.phone")
            + line("asleepUnspecified", "2026-11-30T22:00:00Z", "2026-12-01T06:00:00Z", "com.example.phone")
    }

    @Test func twoSourcesOverlappingAreCountedOnceByPriority() throws {
        #expect(try health.run("import", "-", input: twoSources).code == 0)
        #expect(try health.run("priority", "sleep-analysis", "bandkit.band", "com.example.phone").code == 0)
        let result = try health.run("sleep", "--night", "2026-11-30", "--tz", "UTC", "--json")
        #expect(result.code == 0, "\(result.error)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        #expect(object["night"] as? String == "2026-11-30")
        #expect(object["start"] as? String == "2026-11-30T22:00:00Z")
        #expect(object["end"] as? String == "2026-12-01T07:00:00Z")
        #expect(number(object["in_bed_s"]) == Double(9 * 3600))                // 22:00–07:00, not 8 h + 8 h
        #expect(number(object["asleep_s"]) == Double(9 * 3600 - 1800))        // the band's awakening counts: it ranks first
        #expect(object["awakenings"] as? Int == 1)
        #expect(object["sources"] as? [String] == ["com.example.phone", "bandkit.band"])
        let text = try health.run("sleep", "--night", "2026-11-30", "--tz", "UTC")
        #expect(text.output.contains("in bed      9 h 00 min  (22:00 – 07:00)"), "\(text.output)")
        #expect(text.output.contains("asleep      8 h 30 min"))
        #expect(text.output.contains("1 awakening"))
        #expect(text.output.contains("efficiency  94.4 %"))

        // The phone first: its unbroken night wins where both recorded.
        #expect(try health.run("priority", "sleep-analysis", "com.example.phone", "bandkit.band").code == 0)
        let swapped = try health.run("sleep", "--night", "2026-11-30", "--tz", "UTC", "--json")
        let object2 = try #require(try JSONSerialization.jsonObject(with: Data(swapped.output.utf8)) as? [String: Any])
        #expect(number(object2["asleep_s"]) == Double(9 * 3600))
        #expect(object2["awakenings"] as? Int == 0)
    }

    @Test func aNightWithoutSleepSaysSoAndIsValidJSON() throws {
        let result = try health.run("sleep", "--night", "2026-11-30", "--tz", "Europe/Berlin", "--json")
        #expect(result.code == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        #expect(object["start"] is NSNull && object["efficiency"] is NSNull)
        #expect(object["window_start"] as? String == "2026-11-30T12:00:00+01:00")
        #expect(try health.run("sleep", "--night", "2026-11-30", "--tz", "UTC").output.contains("no sleep recorded"))
    }

    @Test func theDSTNightIsTwentyFiveHours() throws {
        let result = try health.run("sleep", "--night", "2026-10-24", "--tz", "Europe/Berlin", "--json")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        #expect(object["window_start"] as? String == "2026-10-24T12:00:00+02:00")
        #expect(object["window_end"] as? String == "2026-10-25T12:00:00+01:00")
    }

    @Test(arguments: [["--night", "2026-02-30"], ["--night", "yesterday"], ["--night", "2026-11-30T00:00"]])
    func aBadNightIsAUsageErrorNamingIt(_ arguments: [String]) throws {
        let result = try health.run(["sleep"] + arguments)
        #expect(result.code == 64)
        #expect(result.error.contains("--night '\(arguments[1])'"), "\(result.error)")
    }

    @Test func aBadZoneIsAUsageErrorNamingIt() throws {
        let result = try health.run("sleep", "--tz", "Mars/Olympus")
        #expect(result.code == 64)
        #expect(result.error.contains("--tz 'Mars/Olympus'"))
    }
}
