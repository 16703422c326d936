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

    @Test("A non-zero reserved byte is accepted and survives a round trip (found by fuzz/bandprotocol)")
    func reservedByteSurvives() throws {
        let wire = bytes("103b0d6b 04 07 7000 5303 2b00 60 58 68 7a")
        let record = try MinuteRecord(parsingAll: wire)
        #expect(record.reserved == 0x7A)
        #expect(record.encodedBytes() == wire)
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
