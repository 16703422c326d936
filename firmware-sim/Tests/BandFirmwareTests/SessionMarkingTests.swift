import BandFirmware
import BandProtocol
import Testing

/// The band marks its walk and run sessions in the minute records (byte 15 and flag bit 4,
/// docs/protocol.md "Activity sessions") from what its scenario has the wearer do.
@Suite("Band sessions: activity byte and session-start flag from the scenario")
struct SessionMarkingTests {
    /// testStart is 08:00 UTC (minute 480 of the day), zone UTC.
    private func records(_ segments: [ScenarioSegment], minutes: Int, rebootAfter: Int? = nil) throws -> [MinuteRecord] {
        var configuration = testConfiguration()
        configuration.scenario = Scenario(name: "sessions", segments: segments)
        let band = try SimulatedBand(configuration: configuration)
        var out: [MinuteRecord] = []
        band.onMinuteRecorded = { _, record in out.append(record) }
        if let rebootAfter {
            band.advance(by: .seconds(Int64(rebootAfter) * 60 + 30))
            band.reboot()
            band.advance(by: .seconds(Int64(minutes - rebootAfter) * 60))
        } else {
            band.advance(by: .seconds(Int64(minutes) * 60 + 1))
        }
        return out
    }

    /// One letter per record: `.` none, `w`/`r` walking/running continuing, `W`/`R` a session start.
    private func pattern(_ records: [MinuteRecord]) -> String {
        String(records.map { record -> Character in
            switch (record.activity, record.startsSession) {
            case (.walking, false): "w"
            case (.walking, true): "W"
            case (.running, false): "r"
            case (.running, true): "R"
            default: record.startsSession ? "?" : "."
            }
        })
    }

    @Test("Desk, a walk, a run straight after it, desk, a walk, band off: each session starts once, desk strolls are none")
    func walkThenRun() throws {
        let out = try records([
            ScenarioSegment(startMinute: 0, kind: .desk),
            ScenarioSegment(startMinute: 482, kind: .walk),
            ScenarioSegment(startMinute: 485, kind: .run),
            ScenarioSegment(startMinute: 489, kind: .desk),
            ScenarioSegment(startMinute: 491, kind: .walk),
            ScenarioSegment(startMinute: 493, kind: .notWorn),
        ], minutes: 15)
        #expect(pattern(out) == "..WwwRrrr..Ww..")
        // The activity says what the minute was, the counters agree: running minutes have more steps.
        #expect(out[5].steps > out[2].steps && out[2].steps > 0)
    }

    @Test("A walk that lasts all day is one session however many minutes pass")
    func oneLongSession() throws {
        let out = try records([ScenarioSegment(startMinute: 0, kind: .walk)], minutes: 90)
        #expect(out.count == 90)
        #expect(out[0].startsSession && out.dropFirst().allSatisfy { $0.activity == .walking && !$0.startsSession })
    }

    @Test("A reboot ends the session (the band's RAM is empty): the next minute, partial, starts a new one")
    func rebootStartsNewSession() throws {
        let out = try records([ScenarioSegment(startMinute: 0, kind: .run)], minutes: 6, rebootAfter: 3)
        // 3 whole minutes; the 30 s before the reboot are lost; its last 30 s are a partial minute
        // that starts a new session, then two whole minutes.
        #expect(pattern(out) == "RrrRrr")
        #expect(out[3].flags.contains(.partial))
    }

    @Test("Sleep and desk days have no sessions at all")
    func noSessions() throws {
        let out = try records([ScenarioSegment(startMinute: 0, kind: .sleep), ScenarioSegment(startMinute: 485, kind: .desk)], minutes: 30)
        #expect(out.allSatisfy { $0.activity == .none && !$0.startsSession })
    }
}
