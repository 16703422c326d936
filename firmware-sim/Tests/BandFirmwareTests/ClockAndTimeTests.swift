import BandFirmware
import BandProtocol
import BandTestSupport
import BandWire
import Testing

@Suite("Current Time Service and civil time")
struct ClockAndTimeTests {
    @Test("Civil dates convert both ways, weekdays are 1 = Monday … 7 = Sunday")
    func civilTime() {
        let t = CivilTime(unixSeconds: 1_796_025_600)
        #expect(t == CivilTime(year: 2026, month: 11, day: 30, hour: 8))
        #expect(t.dayOfWeek == 1)
        #expect(CivilTime(year: 2024, month: 2, day: 29).isValid && !CivilTime(year: 2026, month: 2, day: 29).isValid)
        #expect(CivilTime(year: 1969, month: 12, day: 31, hour: 23, minute: 59, second: 59).unixSeconds == -1)
        #expect(CivilTime(unixSeconds: -1).year == 1969)
        let parsed = CivilTime.parseISO8601("2026-11-30T09:30:00+05:30")
        #expect(parsed?.unixSeconds == 1_796_011_200 && parsed?.offsetSeconds == 19_800, "09:30 at +05:30 is 04:00 UTC")
        #expect(CivilTime.parseISO8601("2026-11-30T08:00:00Z")?.unixSeconds == 1_796_025_600)
        #expect(CivilTime.parseISO8601("2026-13-30T08:00:00Z") == nil)
        #expect(CivilTime.parseISO8601("2026-11-30T08:00:00") == nil, "an offset or Z is required")
    }

    @Test("Current Time reads the band's local time; Local Time Information its zone")
    func readCurrentTime() throws {
        var configuration = testConfiguration()
        configuration.timeZoneQuarterHours = 22 // +05:30
        let c = try Conversation(configuration)
        // 08:00 UTC = 13:30 local, Monday, fractions 0, adjust reason 0.
        try c.exchange("0a 2700", "0b ea07 0b 1e 0d 1e 00 01 00 00")
        try c.exchange("0a 2a00", "0b 16 00")
    }

    @Test("Writing zone then local time sets the clock; quarter-hour zones and DST survive")
    func setClockAndZone() throws {
        let c = try Conversation()
        try c.exchange("12 2a00 17 04", "13")           // +05:45, DST +1 h
        try c.exchange("0a 2a00", "0b 17 04")
        // Local 2026-12-01 10:15:30 (Tuesday) at +06:45 = 03:30:30 UTC.
        try c.exchange("12 2700 ea07 0c 01 0a 0f 1e 02 00 01", "13")
        let utc = c.band.clock.now(at: c.band.trueTime)
        #expect(utc.seconds == CivilTime(year: 2026, month: 12, day: 1, hour: 3, minute: 30, second: 30).unixSeconds)
        #expect(c.band.liveActivity.utcOffset == LocalTimeOffset(quarterHours: 27))
        #expect(c.band.liveActivity.localDay == UInt16(CivilTime.days(year: 2026, month: 12, day: 1)))
    }

    // Refused time and zone writes run on both bands: FirmwareBoardTests/ClockConversationTests.

    @Test("Setting the clock closes the minute in progress as partial and the next one too")
    func clockChangeMarksPartialMinutes() throws {
        let c = try Conversation()
        var records: [MinuteRecord] = []
        c.band.onMinuteRecorded = { _, record in records.append(record) }
        c.band.advance(by: .seconds(90))
        try c.exchange("12 2700 ea07 0b 1e 0c 00 00 01 00 01", "13") // 12:00:00 local (UTC)
        c.band.advance(by: .seconds(121))
        #expect(records.count == 4)
        #expect(!records[0].flags.contains(.partial))
        #expect(records[1].flags.contains(.partial), "cut short by the clock change")
        #expect(records[2].flags.contains(.partial) && records[2].minuteStart == UInt32(CivilTime(year: 2026, month: 11, day: 30, hour: 12).unixSeconds))
        #expect(!records[3].flags.contains(.partial))
    }
}

@Suite("Scenario files")
struct ScenarioParserTests {
    @Test("A scenario file plans the day and lists faults")
    func parsesFile() throws {
        let scenario = try ScenarioParser.parse("""
            # lazy Sunday
            at 00:00 sleep
            at 09:30 desk
            at 10:00 run cadence=170 stride=1.2   # long run
            at 11:30 not-worn
            fault reboot-at=15h
            fault drop=0.01
            """, name: "sunday")
        #expect(scenario.segments.count == 4)
        #expect(scenario.segment(atMinute: 10 * 60 + 30) == ScenarioSegment(startMinute: 600, kind: .run, cadence: 170, strideMetres: 1.2))
        #expect(scenario.segment(atMinute: 23 * 60).kind == .notWorn)
        #expect(scenario.faults == [.rebootAt(.seconds(15 * 3600)), .drop(0.01)])
    }

    @Test("Before the first segment, yesterday's last activity continues")
    func wrapsAround() throws {
        let scenario = try ScenarioParser.parse("at 07:00 walk\nat 22:00 sleep", name: "x")
        #expect(scenario.segment(atMinute: 60).kind == .sleep)
    }

    @Test("Errors name the line and what is wrong")
    func errors() {
        func failure(_ text: String) -> ScenarioParser.Failure? {
            do throws(ScenarioParser.Failure) { _ = try ScenarioParser.parse(text, name: "x"); return nil } catch { return error }
        }
        #expect(failure("at 00:00 sleep\nat 25:00 walk")?.line == 2)
        #expect(failure("at 00:00 swim")?.reason.contains("unknown activity 'swim'") == true)
        #expect(failure("at 00:00 walk cadence=fast")?.reason.contains("NAME=NUMBER") == true)
        #expect(failure("at 00:00 walk\nat 00:00 run")?.reason.contains("already starts") == true)
        #expect(failure("at 00:00 walk\nfault explode")?.reason.contains("unknown fault 'explode'") == true)
        #expect(failure("at 00:00 walk\nfault drop=2")?.reason.contains("probability") == true)
        #expect(failure("# nothing")?.reason.contains("plans nothing") == true)
        #expect(failure("walk at noon")?.line == 1)
    }

    @Test("Fault specs parse with units and refuse nonsense")
    func faultSpecs() throws {
        #expect(try FaultSpec(parsing: "reboot-at=90s") == .rebootAt(.seconds(90)))
        #expect(try FaultSpec(parsing: "disconnect-at=1.5h") == .disconnectAt(.seconds(5400)))
        #expect(try FaultSpec(parsing: "clock-drift=-20ppm") == .clockDrift(-20))
        #expect(try FaultSpec(parsing: "battery=12%") == .battery(12))
        #expect(throws: FaultSpec.ParseFailure.self) { try FaultSpec(parsing: "reboot-at=soon") }
        #expect(throws: FaultSpec.ParseFailure.self) { try FaultSpec(parsing: "disconnect-mid-history=1") }
        #expect(throws: FaultSpec.ParseFailure.self) { try FaultSpec(parsing: "battery=101") }
    }
}
