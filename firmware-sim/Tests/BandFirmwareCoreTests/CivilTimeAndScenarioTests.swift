import BandFirmwareCore
import Testing

/// Civil-time arithmetic (no band). The Current Time Service conversations run on the Linux band
/// and the chip's band in ChipRuntimeTests/ClockConversationTests.
@Suite("Civil time")
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
