import BandGATT
import BandTestSupport
import BandWire
import Testing

@Suite struct RSCTests {
    @Test func fullMeasurementDecodesInSIGUnits() throws {
        // Running, stride and distance: 3.5 m/s (896/256), 172 /min, 1.25 m, 4321.7 m.
        let input = bytes("07 80 03 ac 7d 00 d1 a8 00 00")
        let measurement = try decode(RSCMeasurement.self, input)
        #expect(measurement.instantaneousSpeed == 896)
        #expect(measurement.speedMetersPerSecond == 3.5)
        #expect(measurement.cadenceStepsPerMinute == 172)
        #expect(measurement.instantaneousStrideLength == 125)
        #expect(measurement.strideLengthMeters == 1.25)
        #expect(measurement.totalDistance == 43217)
        #expect(measurement.totalDistanceMeters == 4321.7)
        #expect(measurement.isRunning)
        #expect(encoded(measurement) == input)
    }

    @Test func walkingWithoutOptionalFields() throws {
        let measurement = try decode(RSCMeasurement.self, bytes("00 40 01 64"))
        #expect(!measurement.isRunning)
        #expect(measurement.speedMetersPerSecond == 1.25)
        #expect(measurement.strideLengthMeters == nil)
        #expect(measurement.totalDistanceMeters == nil)
    }

    @Test func truncationAtEveryOffset() {
        #expect(prefixesNotTruncated(RSCMeasurement.self, bytes("07 80 03 ac 7d 00 d1 a8 00 00")) == [])
        #expect(prefixesNotTruncated(RSCMeasurement.self, bytes("02 80 03 ac d1 a8 00 00")) == [])
        #expect(throws: ParseError(.truncated, at: 6, field: "total distance")) {
            _ = try decode(RSCMeasurement.self, bytes("03 80 03 ac 7d 00 d1 a8"))
        }
    }

    @Test func trailingBytesAfterTheLastFlaggedField() {
        #expect(throws: ParseError(.trailingBytes, at: 4)) { _ = try decode(RSCMeasurement.self, bytes("00 40 01 64 7d 00")) }
    }

    @Test func everyCombinationOfOptionalFieldsRoundTrips() throws {
        for stride: UInt16? in [nil, 0, 125, .max] {
            for distance: UInt32? in [nil, 0, 43217, .max] {
                for running in [false, true] {
                    for reserved: UInt8 in [0, 0x08, 0xF8] {
                        let measurement = RSCMeasurement(
                            instantaneousSpeed: 0xABCD, instantaneousCadence: 181, instantaneousStrideLength: stride,
                            totalDistance: distance, isRunning: running, reservedFlagBits: reserved)
                        let (decoded, wire, reencoded) = try roundTrip(measurement)
                        #expect(decoded == measurement)
                        #expect(reencoded == wire)
                        #expect(wire.count == 4 + (stride == nil ? 0 : 2) + (distance == nil ? 0 : 4))
                        #expect(wire[0] == (stride == nil ? 0 : 1) | (distance == nil ? 0 : 2) | (running ? 4 : 0) | reserved)
                    }
                }
            }
        }
    }

    @Test func featureFlagsKeepReservedBits() throws {
        let feature = try decode(RSCFeature.self, bytes("07 80"))
        #expect(feature.contains(.instantaneousStrideLengthMeasurement))
        #expect(feature.contains(.totalDistanceMeasurement))
        #expect(feature.contains(.walkingOrRunningStatus))
        #expect(!feature.contains(.sensorCalibrationProcedure))
        #expect(encoded(feature) == bytes("07 80"))
        #expect(throws: ParseError(.truncated, at: 0, field: "RSC feature")) { _ = try decode(RSCFeature.self, bytes("07")) }
    }
}
