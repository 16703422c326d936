import BandFirmware
import BandProtocol
import Testing

/// The band marks its walk and run sessions in the minute records (byte 15 and flag bit 4,
/// docs/protocol.md "Activity sessions") from what its scenario has the wearer do — on the Linux
/// band and on the chip's band (its scenario sent by the host, link 0x12), read from the records
/// each band reports, and on the reader's side from the records a history transfer brings.
@Suite("Band sessions on the Linux band and the chip's band")
struct SessionMarkingConversationTests {
    /// Monday 08:00 UTC (minute 480 of the day), zone UTC; a reset `resetAfter` minutes and 30 s
    /// in. Returns the records the band reported, after checking that a reader's transfer brings
    /// the same ones.
    private func records(_ kind: BandKind, _ segments: [ScenarioSegment], minutes: Int, resetAfter: Int? = nil,
                         sourceLocation: SourceLocation = #_sourceLocation) throws -> [MinuteRecord] {
        var c = try TwinConversation(kind, BandSetup(start: BandSetup.monday0800, scenario: Scenario(name: "sessions", segments: segments)))
        let key = try #require(try c.pair())
        if let resetAfter {
            _ = try c.advance(seconds: resetAfter * 60 + 30)
            try c.reset()
            #expect(try c.authenticate(key: key).0.status == .success, sourceLocation: sourceLocation)
            _ = try c.advance(seconds: (minutes - resetAfter) * 60)
        } else {
            _ = try c.advance(seconds: minutes * 60 + 1)
        }
        try c.exchange("12 3100 0200", "13")
        try c.exchange("12 3400 0100", "13")
        let recorded = c.band.recorded.map(\.record)
        let fetched = try c.fetch(cursor: 0)
        #expect(fetched.complete?.crc == fetched.crc && fetched.records == recorded, "what the reader gets is what the band marked",
                sourceLocation: sourceLocation)
        return recorded
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

    @Test("Desk, a walk, a run straight after it, desk, a walk, band off: each session starts once, desk strolls are none",
          arguments: BandKind.allCases)
    func walkThenRun(_ kind: BandKind) throws {
        let out = try records(kind, [
            ScenarioSegment(startMinute: 0, kind: .desk),
            ScenarioSegment(startMinute: 482, kind: .walk),
            ScenarioSegment(startMinute: 485, kind: .run),
            ScenarioSegment(startMinute: 489, kind: .desk),
            ScenarioSegment(startMinute: 491, kind: .walk),
            ScenarioSegment(startMinute: 493, kind: .notWorn),
        ], minutes: 15)
        #expect(pattern(out) == "..WwwRrrr..Ww..")
        // The activity says what the minute was, the counters agree: running minutes have more steps.
        try #require(out.count == 15)
        #expect(out[5].steps > out[2].steps && out[2].steps > 0)
    }

    @Test("A walk that lasts all day is one session however many minutes pass", arguments: BandKind.allCases)
    func oneLongSession(_ kind: BandKind) throws {
        let out = try records(kind, [ScenarioSegment(startMinute: 0, kind: .walk)], minutes: 90)
        #expect(out.count == 90)
        #expect(out.first?.startsSession == true && out.dropFirst().allSatisfy { $0.activity == .walking && !$0.startsSession })
    }

    @Test("A reset ends the session (the band's RAM is empty): the next minute, partial, starts a new one", arguments: BandKind.allCases)
    func resetStartsNewSession(_ kind: BandKind) throws {
        let out = try records(kind, [ScenarioSegment(startMinute: 0, kind: .run)], minutes: 6, resetAfter: 3)
        // 3 whole minutes; the 30 s before the reset are lost; its last 30 s are a partial minute
        // that starts a new session, then two whole minutes.
        #expect(pattern(out) == "RrrRrr")
        #expect(out.count == 6 && out[3].flags.contains(.partial))
    }

    @Test("Sleep and desk days have no sessions at all", arguments: BandKind.allCases)
    func noSessions(_ kind: BandKind) throws {
        let out = try records(kind, [ScenarioSegment(startMinute: 0, kind: .sleep), ScenarioSegment(startMinute: 485, kind: .desk)], minutes: 30)
        #expect(out.count == 30)
        #expect(out.allSatisfy { $0.activity == .none && !$0.startsSession })
    }
}
