import BandProtocol
import BandTestSupport
import BandWire
import Testing

@Suite("Live Activity characteristic")
struct LiveActivityTests {
    // 2026-11-30 09:00:00 UTC = 1_796_029_200; India (+05:30 = 22 quarter hours), boot 3,
    // local day 20_787 (2026-11-30), worn + clock set, 4321 steps, 3210.5 m, 123.4 kcal.
    let value = LiveActivity(timestamp: 1_796_029_200, utcOffset: LocalTimeOffset(quarterHours: 22), bootEpoch: 3,
                             localDay: 20_787, flags: [.worn, .clockSet], steps: 4321,
                             distanceDecimetres: 32_105, energyDecikilocalories: 1234)

    @Test("Encodes to the documented 20 bytes and back")
    func vector() {
        checkCodec(value, "10 3b 0d 6b 16 0300 3351 03 e1100000 697d00 d20400")
        #expect(value.encodedBytes().count == LiveActivity.size)
        #expect(LiveActivity.size <= 20, "must fit a notification at ATT_MTU 23")
    }

    @Test("Negative quarter-hour offsets and unknown flag bits survive")
    func negativeOffsetAndUnknownFlags() throws {
        var west = value
        west.utcOffset = LocalTimeOffset(quarterHours: -14) // Newfoundland −3:30
        west.flags = LiveActivityFlags(rawValue: 0x83)
        let decoded = try LiveActivity(parsingAll: west.encodedBytes())
        #expect(decoded == west)
        #expect(decoded.utcOffset.seconds == -12_600)
        #expect(decoded.utcOffset.description == "-03:30")
        #expect(decoded.flags.contains(.worn))
    }

    @Test("24-bit fields carry their maximum")
    func uint24Maximum() throws {
        var big = value
        big.distanceDecimetres = 0xFF_FFFF
        big.energyDecikilocalories = 0xFF_FFFF
        big.steps = .max
        #expect(try LiveActivity(parsingAll: big.encodedBytes()) == big)
    }

    @Test("Offset −128 means unknown")
    func unknownOffset() {
        #expect(LocalTimeOffset.unknown.seconds == nil)
        #expect(LocalTimeOffset(quarterHours: 23).description == "+05:45")
    }
}
