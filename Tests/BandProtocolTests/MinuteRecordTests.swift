import BandProtocol
import BandTestSupport
import BandWire
import Testing

@Suite("Minute records")
struct MinuteRecordTests {
    let walking = MinuteRecord(minuteStart: 1_796_029_200, utcOffset: LocalTimeOffset(quarterHours: 4),
                               flags: [.worn, .clockSet], steps: 112, distanceDecimetres: 851,
                               energyDecikilocalories: 43,
                               heartRate: HeartRateSummary(average: 96, minimum: 88, maximum: 104))
    let offWrist = MinuteRecord(minuteStart: 60, utcOffset: .utc, flags: [], steps: 0, distanceDecimetres: 0,
                                energyDecikilocalories: 0, heartRate: nil)

    @Test("A worn minute with heart rate: documented 16 bytes")
    func wornVector() {
        checkCodec(walking, "103b0d6b 04 07 7000 5303 2b00 60 58 68 00")
        #expect(walking.encodedBytes().count == MinuteRecord.size)
    }

    @Test("A minute without heart rate has no summary and zero bytes, flag bit 1 clear")
    func notMeasuredVector() {
        checkCodec(offWrist, "3c000000 00 00 0000 0000 0000 00 00 00 00")
        #expect(offWrist.heartRate == nil && !offWrist.worn)
    }

    @Test("Every combination of worn, heart rate, clock-set and partial round-trips")
    func everyFlagCombination() throws {
        for bits in 0..<16 {
            let flags = MinuteRecordFlags(rawValue: UInt8(bits))
            let hr = flags.contains(.heartRatePresent) ? HeartRateSummary(average: 70, minimum: 60, maximum: 80) : nil
            let record = MinuteRecord(minuteStart: 120, utcOffset: LocalTimeOffset(quarterHours: -20), flags: flags,
                                      steps: UInt16(bits), distanceDecimetres: 1, energyDecikilocalories: 2, heartRate: hr)
            #expect(try MinuteRecord(parsingAll: record.encodedBytes()) == record)
        }
    }

    @Test("A record from a band before activity sessions (byte 15 = 0, flag bit 4 clear) decodes as before: no session")
    func oldBandRecord() throws {
        let record = try MinuteRecord(parsingAll: bytes("103b0d6b 04 07 7000 5303 2b00 60 58 68 00"))
        #expect(record.activity == .none && !record.startsSession)
        #expect(record == walking)
    }

    @Test("The first minute of a walking session: byte 15 = 1 and flag bit 4, documented bytes")
    func sessionStartVector() {
        // checkCodec also cuts the bytes at every offset and expects "truncated" at each.
        let start = MinuteRecord(minuteStart: walking.minuteStart, utcOffset: walking.utcOffset, flags: [.worn, .clockSet, .sessionStart],
                                 steps: 112, distanceDecimetres: 851, energyDecikilocalories: 43, heartRate: walking.heartRate,
                                 activity: .walking)
        checkCodec(start, "103b0d6b 04 17 7000 5303 2b00 60 58 68 01")
        #expect(start.startsSession && start.activity == .walking)
    }

    @Test("A running minute that continues a session: byte 15 = 2, flag bit 4 clear")
    func sessionContinuesVector() {
        let running = MinuteRecord(minuteStart: 1_796_029_260, utcOffset: .utc, flags: [.worn], steps: 165,
                                   distanceDecimetres: 1_815, energyDecikilocalories: 121,
                                   heartRate: HeartRateSummary(average: 150, minimum: 141, maximum: 158), activity: .running)
        checkCodec(running, "4c3b0d6b 00 03 a500 1707 7900 96 8d 9e 02")
        #expect(!running.startsSession)
    }

    @Test("Every activity and session-start combination round-trips; an unknown activity survives (open)")
    func everyActivity() throws {
        for raw in [UInt8(0), 1, 2, 3, 0x7A, 0xFF] {
            for flags: MinuteRecordFlags in [[.worn], [.worn, .sessionStart]] {
                let record = MinuteRecord(minuteStart: 180, utcOffset: .utc, flags: flags, steps: 9, distanceDecimetres: 7,
                                          energyDecikilocalories: 5, heartRate: nil, activity: MinuteActivity(rawValue: raw))
                let decoded = try MinuteRecord(parsingAll: record.encodedBytes())
                #expect(decoded == record)
                #expect(decoded.activity.rawValue == raw)
                // The initialiser drops a session start it could not send (activity none).
                #expect(decoded.startsSession == (raw != 0 && flags.contains(.sessionStart)))
            }
        }
        let unknown = try MinuteRecord(parsingAll: bytes("103b0d6b 04 07 7000 5303 2b00 60 58 68 7a"))
        #expect(unknown.activity.rawValue == 0x7A && unknown.activity.isSession)
        #expect(unknown.encodedBytes() == bytes("103b0d6b 04 07 7000 5303 2b00 60 58 68 7a"))
    }

    @Test("A session start on a minute without activity is refused at the flags byte (offset 5)")
    func sessionStartWithoutActivity() {
        #expect(parseError(MinuteRecord.self, "3c000000 00 11 0000 0000 0000 00 00 00 00")
            == ParseError(.invalidValue, at: 5, field: "minute flags (session start without an activity in byte 15)"))
    }

    @Test("A start that is not on a minute boundary is refused at offset 0")
    func misalignedStart() {
        #expect(parseError(MinuteRecord.self, "3d000000 00 00 0000 0000 0000 00 00 00 00")
            == ParseError(.invalidValue, at: 0, field: "minute start (not on a minute boundary)"))
    }

    @Test("Heart-rate bytes must agree with the flag and be ordered min ≤ avg ≤ max")
    func inconsistentHeartRate() {
        // flag clear but a value present
        #expect(parseError(MinuteRecord.self, "3c000000 00 00 0000 0000 0000 48 00 00 00")?.offset == 12)
        // flag set, min > avg
        #expect(parseError(MinuteRecord.self, "3c000000 00 02 0000 0000 0000 50 58 60 00")?.kind == .invalidValue)
        // flag set, zero minimum
        #expect(parseError(MinuteRecord.self, "3c000000 00 02 0000 0000 0000 00 00 00 00")?.offset == 12)
    }
}
