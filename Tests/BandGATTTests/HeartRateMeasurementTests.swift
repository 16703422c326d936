import BandGATT
import BandTestSupport
import BandWire
import Testing

@Suite struct HeartRateMeasurementTests {
    /// Real Cardiosport strap notifications (ble-formats.md §1).
    @Test func contactAnd82BeatsPerMinute() throws {
        let measurement = try decode(HeartRateMeasurement.self, bytes("06 52"))
        #expect(measurement.beatsPerMinute == 82)
        #expect(measurement.sensorContact == .detected)
        #expect(measurement.energyExpended == nil)
        #expect(measurement.rrIntervals == nil)
        #expect(!measurement.usesUInt16Format)
        #expect(encoded(measurement) == bytes("06 52"))
    }

    @Test func contactWithTwoRRIntervals() throws {
        let measurement = try decode(HeartRateMeasurement.self, bytes("16 55 b6 02 94 02"))
        #expect(measurement.beatsPerMinute == 85)
        #expect(measurement.sensorContact == .detected)
        #expect(measurement.rrIntervals?.map(\.rawValue) == [694, 660])
        #expect(measurement.rrIntervals?.map(\.seconds) == [694.0 / 1024, 660.0 / 1024])
        #expect(measurement.rrIntervals?.first?.milliseconds == 677.734375)
        #expect(encoded(measurement) == bytes("16 55 b6 02 94 02"))
    }

    @Test func uint16ValueWithEnergy() throws {
        // flags 0x0f: uint16, contact, energy; 0x012c = 300 bpm, 0x1234 kJ.
        let measurement = try decode(HeartRateMeasurement.self, bytes("0f 2c 01 34 12"))
        #expect(measurement.beatsPerMinute == 300)
        #expect(measurement.usesUInt16Format)
        #expect(measurement.energyExpended == 0x1234)
        #expect(measurement.sensorContact == .detected)
    }

    @Test func encoderPicksUInt16OnlyWhenNeededOrAsked() {
        #expect(encoded(HeartRateMeasurement(beatsPerMinute: 255)) == bytes("00 ff"))
        #expect(encoded(HeartRateMeasurement(beatsPerMinute: 256)) == bytes("01 00 01"))
        #expect(encoded(HeartRateMeasurement(beatsPerMinute: 60, usesUInt16Format: true)) == bytes("01 3c 00"))
    }

    @Test func contactBitMeansNothingWithoutTheSupportBit() throws {
        #expect(try decode(HeartRateMeasurement.self, bytes("00 50")).sensorContact == .notSupported)
        #expect(try decode(HeartRateMeasurement.self, bytes("02 50")).sensorContact == .notSupported)
        #expect(try decode(HeartRateMeasurement.self, bytes("04 50")).sensorContact == .notDetected)
        #expect(try decode(HeartRateMeasurement.self, bytes("06 50")).sensorContact == .detected)
        // …but the bit survives a round trip.
        #expect(encoded(try decode(HeartRateMeasurement.self, bytes("02 50"))) == bytes("02 50"))
    }

    @Test func reservedFlagBitsSurviveARoundTrip() throws {
        let measurement = try decode(HeartRateMeasurement.self, bytes("e6 50"))
        #expect(measurement.unmodelledFlagBits == 0xE0)
        #expect(measurement.sensorContact == .detected)
        #expect(encoded(measurement) == bytes("e6 50"))
    }

    @Test func equalityIsEqualityOfTheEncodedBytes() {
        #expect(HeartRateMeasurement(beatsPerMinute: 300) == HeartRateMeasurement(beatsPerMinute: 300, usesUInt16Format: true))
        #expect(HeartRateMeasurement(beatsPerMinute: 70) != HeartRateMeasurement(beatsPerMinute: 70, usesUInt16Format: true))
        #expect(HeartRateMeasurement(beatsPerMinute: 70, sensorContact: .detected)
                == HeartRateMeasurement(beatsPerMinute: 70, sensorContact: .detected, unmodelledFlagBits: 0x02))
        #expect(HeartRateMeasurement(beatsPerMinute: 70) != HeartRateMeasurement(beatsPerMinute: 70, unmodelledFlagBits: 0x02))
        #expect(HeartRateMeasurement(beatsPerMinute: 70) != HeartRateMeasurement(beatsPerMinute: 70, rrIntervals: RRIntervals()))
    }

    @Test func rrFlagWithNoIntervalsIsPresentButEmpty() throws {
        let measurement = try decode(HeartRateMeasurement.self, bytes("10 50"))
        #expect(measurement.rrIntervals == RRIntervals())
        #expect(encoded(measurement) == bytes("10 50"))
    }

    @Test func oddRRByteIsATruncatedIntervalAtItsOffset() {
        #expect(throws: ParseError(.truncated, at: 6, field: "RR-interval")) {
            _ = try decode(HeartRateMeasurement.self, bytes("16 55 b6 02 94 02 01"))
        }
        #expect(throws: ParseError(.truncated, at: 4, field: "RR-interval")) {
            _ = try decode(HeartRateMeasurement.self, bytes("1e 55 10 00 b6"))
        }
    }

    @Test func missingEnergyAndValueAreTruncated() {
        #expect(throws: ParseError(.truncated, at: 2, field: "energy expended")) { _ = try decode(HeartRateMeasurement.self, bytes("08 50")) }
        #expect(throws: ParseError(.truncated, at: 1, field: "heart rate value")) { _ = try decode(HeartRateMeasurement.self, bytes("01 50")) }
        #expect(throws: ParseError(.truncated, at: 0, field: "flags")) { _ = try decode(HeartRateMeasurement.self, []) }
    }

    @Test func truncationAtEveryOffsetOnlyStopsOnWholeRRIntervals() {
        // Prefixes that end after a whole interval (or before any) are shorter valid measurements.
        #expect(prefixesNotTruncated(HeartRateMeasurement.self, bytes("16 55 b6 02 94 02")) == [2, 4])
        #expect(prefixesNotTruncated(HeartRateMeasurement.self, bytes("1f 2c 01 34 12 b6 02")) == [5])
        #expect(prefixesNotTruncated(HeartRateMeasurement.self, bytes("0f 2c 01 34 12")) == [])
    }

    @Test func holdsAsManyRRIntervalsAsA512ByteValueCanCarry() throws {
        let input = bytes("10 50") + [UInt8](repeating: 0x03, count: 510)
        let measurement = try decode(HeartRateMeasurement.self, input)
        #expect(measurement.rrIntervals?.count == 255)
        #expect(encoded(measurement) == input)
        #expect(throws: ParseError(.invalidValue, at: 512, field: "RR-interval count")) {
            _ = try decode(HeartRateMeasurement.self, input + [0x03, 0x03])
        }
    }

    /// Sixteen intervals stay inline; every longer list spills the rest and still reads back in order.
    @Test(arguments: [0, 1, 15, 16, 17, 40, 254, 255])
    func rrIntervalListsOfEveryLengthDecodeInOrderAndReencode(count: Int) throws {
        let raw = (0..<count).map { UInt16(600 + 7 * $0) }
        let input = bytes("10 50") + raw.flatMap { [UInt8(truncatingIfNeeded: $0), UInt8($0 >> 8)] }
        let measurement = try decode(HeartRateMeasurement.self, input)
        let intervals = try #require(measurement.rrIntervals)
        #expect(intervals.count == count)
        #expect(intervals.map(\.rawValue) == raw)
        var visited: [UInt16] = []
        intervals.forEachRawValue { visited.append($0) }
        #expect(visited == raw)
        #expect(encoded(measurement) == input)
        #expect(RRIntervals(raw: raw) == intervals)
        // Half an interval at the end is cut short right there.
        #expect(throws: ParseError(.truncated, at: input.count, field: "RR-interval")) {
            _ = try decode(HeartRateMeasurement.self, input + [0x01])
        }
    }

    @Test func appendingBeyondTheCapacityIsRefused() {
        var intervals = RRIntervals()
        for i in 0..<RRIntervals.capacity {
            let appended = intervals.append(RRInterval(rawValue: UInt16(i)))
            #expect(appended)
        }
        let overflowed = intervals.append(RRInterval(rawValue: 1))
        #expect(!overflowed)
        #expect(intervals.count == 255 && intervals[254].rawValue == 254 && intervals[16].rawValue == 16)
        intervals.removeAll()
        #expect(intervals.isEmpty)
    }

    @Test func rrIntervalFromSecondsRoundsToTheNearest1024th() {
        #expect(RRInterval(seconds: 0.5).rawValue == 512)
        #expect(RRInterval(seconds: 0.6777).rawValue == 694)
        #expect(RRInterval(seconds: 100).rawValue == UInt16.max)
        #expect(RRInterval(seconds: -1).rawValue == 0)
    }

    static let contactStates: [(HeartRateMeasurement.SensorContact, UInt8)] = [
        (.notSupported, 0), (.notSupported, 0x02), (.notDetected, 0), (.detected, 0),
    ]

    /// Every combination of the optional parts, as Bumble's profile tests do.
    @Test(arguments: [false, true], [UInt16(72), 300])
    func everyCombinationOfOptionalFieldsRoundTrips(uint16: Bool, bpm: UInt16) throws {
        for (contact, extraBits) in Self.contactStates {
            for reserved: UInt8 in [0, 0xA0] {
                for energy: UInt16? in [nil, 0, 65535] {
                    for rrCount in [nil] + (0...6).map(Optional.some) + [200] {
                        let rr = rrCount.map { count in RRIntervals(raw: (0..<count).map { UInt16(600 + $0 * 7) }) }
                        let measurement = HeartRateMeasurement(
                            beatsPerMinute: bpm, sensorContact: contact, energyExpended: energy, rrIntervals: rr,
                            usesUInt16Format: uint16, unmodelledFlagBits: extraBits | reserved)
                        let (decoded, wire, reencoded) = try roundTrip(measurement)
                        #expect(decoded == measurement)
                        #expect(decoded.usesUInt16Format == (uint16 || bpm > 255))
                        #expect(reencoded == wire)
                        #expect(wire.count == measurement.encodedCount)
                        #expect((wire[0] & 0x08 != 0) == (energy != nil))
                        #expect((wire[0] & 0x10 != 0) == (rr != nil))
                        #expect(wire[0] & 0xE0 == reserved)
                    }
                }
            }
        }
    }
}
