import BandWire
import Testing

/// The Linux firmware's Current Time and Local Time Information conversations, run against the
/// Linux band and the chip's band. Linux-only ones stay in BandFirmwareTests/ClockAndTimeTests:
/// a configured zone (the chip's comes with link 0x10), the band's internal clock and live
/// counters, and the minute-record callbacks.
@Suite("Clock conversations on the Linux band and the chip's band")
struct ClockConversationTests {
    @Test("Writing zone then local time sets the clock; quarter-hour zones and DST read back", arguments: BandKind.allCases)
    func setClockAndZone(_ kind: BandKind) throws {
        var c = try TwinConversation(kind)
        try c.exchange("0a 2a00", "0b 00 00")
        try c.exchange("12 2a00 17 04", "13")           // +05:45, DST +1 h
        try c.exchange("0a 2a00", "0b 17 04")
        // Local 2026-12-01 10:15:30 (Tuesday) at +06:45.
        try c.exchange("12 2700 ea07 0c 01 0a 0f 1e 02 00 01", "13")
        try c.send("0a 2700")
        let read = c.next()
        #expect(read.map { Hex.encode(Array($0.prefix(9))) } == "0bea070c010a0f1e02", "the local time written reads back")
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
}
