import BandFirmware
import BandProtocol
import BandWire
import Testing

/// The Linux firmware's Current Time and Local Time Information conversations, run against the
/// Linux band and the chip's band: the zone configured at start (link 0x10 on the chip), the
/// clock and zone set by writes as the band's clock and live counters show them, refused writes,
/// and the partial minutes around a clock change. Civil-time arithmetic (no band) stays in
/// BandFirmwareTests/ClockAndTimeTests.
@Suite("Clock conversations on the Linux band and the chip's band")
struct ClockConversationTests {
    @Test("Current Time reads the band's local time; Local Time Information its zone", arguments: BandKind.allCases)
    func readCurrentTime(_ kind: BandKind) throws {
        var c = try TwinConversation(kind, BandSetup(start: BandSetup.monday0800, timeZoneQuarterHours: 22))   // +05:30
        // 08:00 UTC = 13:30 local, Monday, fractions 0, adjust reason 0.
        try c.exchange("0a 2700", "0b ea07 0b 1e 0d 1e 00 01 00 00")
        try c.exchange("0a 2a00", "0b 16 00")
    }

    @Test("Writing zone then local time sets the clock; quarter-hour zones and DST read back", arguments: BandKind.allCases)
    func setClockAndZone(_ kind: BandKind) throws {
        var c = try TwinConversation(kind)
        _ = try c.pair()
        try c.exchange("0a 2a00", "0b 00 00")
        try c.exchange("12 2a00 17 04", "13")           // +05:45, DST +1 h
        try c.exchange("0a 2a00", "0b 17 04")
        // Local 2026-12-01 10:15:30 (Tuesday) at +06:45.
        try c.exchange("12 2700 ea07 0c 01 0a 0f 1e 02 00 01", "13")
        try c.send("0a 2700")
        let read = c.next()
        #expect(read.map { Hex.encode(Array($0.prefix(9))) } == "0bea070c010a0f1e02", "the local time written reads back")
        // = 03:30:30 UTC: the band's clock, its offset in force and its local day.
        let live = try c.liveActivity()
        #expect(live.timestamp == UInt32(CivilTime(year: 2026, month: 12, day: 1, hour: 3, minute: 30, second: 30).unixSeconds))
        #expect(live.utcOffset == LocalTimeOffset(quarterHours: 27))
        #expect(live.localDay == UInt16(CivilTime.days(year: 2026, month: 12, day: 1)))
    }

    @Test("Setting the clock closes the minute in progress as partial and the next one too", arguments: BandKind.allCases)
    func clockChangeMarksPartialMinutes(_ kind: BandKind) throws {
        var c = try TwinConversation(kind, .monday("walk"))
        _ = try c.advance(seconds: 90)
        try c.exchange("12 2700 ea07 0b 1e 0c 00 00 01 00 01", "13") // 12:00:00 local (UTC)
        _ = try c.advance(seconds: 121)
        let records = c.band.recorded.map(\.record)
        try #require(records.count == 4)
        #expect(!records[0].flags.contains(.partial))
        #expect(records[1].flags.contains(.partial), "cut short by the clock change")
        #expect(records[2].flags.contains(.partial) && records[2].minuteStart == UInt32(CivilTime(year: 2026, month: 11, day: 30, hour: 12).unixSeconds))
        #expect(!records[3].flags.contains(.partial))
    }

    @Test("Out-of-range times and zones are refused with 0xFF; wrong sizes with 0x0D", arguments: BandKind.allCases)
    func invalidTimeWrites(_ kind: BandKind) throws {
        var c = try TwinConversation(kind)
        try c.exchange("12 2700 ea07 0d 01 0a 0f 1e 00 00 01", "01 12 2700 ff")   // month 13
        try c.exchange("12 2700 0000 0c 01 0a 0f 1e 00 00 01", "01 12 2700 ff")   // year unknown
        try c.exchange("12 2700 ea07 0c 01 0a 0f 1e 05 00 01", "01 12 2700 ff")   // 1 Dec 2026 is not a Friday
        try c.exchange("12 2700 ea07 0c 01 0a 0f", "01 12 2700 0d")
        try c.exchange("12 2a00 39 00", "01 12 2a00 ff")                          // +14:15
        try c.exchange("12 2a00 00 03", "01 12 2a00 ff")                          // DST 45 min
        try c.exchange("12 2a00 00", "01 12 2a00 0d")
    }

    /// fuzz/findings/bandserver-minute-record-trap: a Current Time in year 4629 was accepted, and
    /// the band trapped at its next second building a minute record that could not name the
    /// minute. The band keeps to times a record can name (BandClock.settableSeconds).
    @Test("Times a minute record cannot name are refused with 0xFF; the band keeps its clock and records on", arguments: BandKind.allCases)
    func timesBeyondTheRecordsAreRefused(_ kind: BandKind) throws {
        var c = try TwinConversation(kind, .monday("walk"))
        _ = try c.pair()
        try c.exchange("12 2700 1512 01 01 00 00 00 00 00 00", "01 12 2700 ff")   // 4629-01-01, the fuzzer's write
        try c.exchange("12 2700 0f27 0c 1f 17 3b 3b 00 00 00", "01 12 2700 ff")   // 9999-12-31 23:59:59
        try c.exchange("12 2700 3a08 01 01 00 00 00 00 00 00", "01 12 2700 ff")   // 2106-01-01
        try c.exchange("12 2700 b107 0c 1f 17 3b 3b 00 00 00", "01 12 2700 ff")   // 1969-12-31 23:59:59
        // +01:00: local 1970-01-01 00:30 is 1969 in UTC.
        try c.exchange("12 2a00 04 00", "13")
        try c.exchange("12 2700 b207 01 01 00 1e 00 00 00 00", "01 12 2700 ff")
        _ = try c.advance(seconds: 120)
        let live = try c.liveActivity()
        #expect(live.timestamp == UInt32(BandSetup.monday0800.seconds + 120), "the refused writes left the clock alone")
        // (The zone write closed 08:00 early; its rest is a second record of the same minute.)
        #expect(Set(c.band.recorded.map(\.record.minuteStart)) == [1_796_025_600, 1_796_025_660])
        // The last settable second is accepted: 2105-12-31 23:59:59 local = 22:59:59 UTC, and the
        // band records on past it.
        try c.exchange("12 2700 3908 0c 1f 17 3b 3b 00 00 00", "13")
        _ = try c.advance(seconds: 62)
        #expect(c.band.recorded.last?.record.minuteStart == 4_291_743_600, "2105-12-31 23:00 UTC")
    }

    @Test("A clock that runs past what a record can name (2106-02-07 06:28) records no more minutes and keeps running", arguments: BandKind.allCases)
    func aClockPastTheLastNameableMinuteRecordsNoHistory(_ kind: BandKind) throws {
        let last = MinuteRecord.latestMinuteStart
        var c = try TwinConversation(kind, BandSetup(start: BandInstant(seconds: last - 120), scenario: Scenario.builtIn("walk")!))
        _ = try c.pair()
        _ = try c.advance(seconds: 300)
        #expect(c.band.recorded.map { Int64($0.record.minuteStart) } == [last - 120, last - 60, last])
        let live = try c.liveActivity()
        #expect(live.steps > 300, "the counters still count: \(live.steps) steps")
    }
}
