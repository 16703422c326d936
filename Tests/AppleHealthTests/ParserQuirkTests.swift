import AppleHealth
import Foundation
import HealthModel
import Testing

/// Real-world quirks of exports.
@Suite struct ParserQuirkTests {
    @Test func nonASCIIAndNonBreakingSpaceSourceNamesAreKeptExactly() throws {
        let names = ["Jürgen’s Apple Watch", "iPhone\u{00A0}de\u{00A0}Zoé", "小米手环"]
        let body = names.map { Fragment.record("HKQuantityTypeIdentifierStepCount", value: "1", source: $0) }.joined()
        let parsed = try Parsed(Fragment.document(body))
        #expect(parsed.quantities.map { $0.source?.id } == names)
    }

    @Test func largeCalorieIsAKilocalorieAndSmallCalorieAThousandth() throws {
        let body = Fragment.record("HKQuantityTypeIdentifierActiveEnergyBurned", value: "10", unit: "Cal")
            + Fragment.record("HKQuantityTypeIdentifierActiveEnergyBurned", value: "10", unit: "kcal", start: "2024-06-01 09:01:00 -0700", end: "2024-06-01 09:02:00 -0700")
            + Fragment.record("HKQuantityTypeIdentifierActiveEnergyBurned", value: "10000", unit: "cal", start: "2024-06-01 09:02:00 -0700", end: "2024-06-01 09:03:00 -0700")
            + Fragment.record("HKQuantityTypeIdentifierBasalEnergyBurned", value: "41.84", unit: "kJ")
        let values = try Parsed(Fragment.document(body)).quantities.map { try $0.canonicalValue() }
        #expect(values.map { ($0 * 1000).rounded() / 1000 } == [10, 10, 10, 10])
    }

    @Test func appleUnitSpellingsConvert() throws {
        let cases: [(String, String, String, Double)] = [
            ("HKQuantityTypeIdentifierDistanceWalkingRunning", "1", "mi", 1609.344),
            ("HKQuantityTypeIdentifierDistanceWalkingRunning", "1", "km", 1000),
            ("HKQuantityTypeIdentifierDistanceWalkingRunning", "10", "ft", 3.048),
            ("HKQuantityTypeIdentifierHeight", "180", "cm", 1.8),
            ("HKQuantityTypeIdentifierHeight", "70", "in", 1.778),
            ("HKQuantityTypeIdentifierBodyMass", "150", "lb", 68.0388555),
            ("HKQuantityTypeIdentifierBodyMassIndex", "22.5", "count", 22.5),
            ("HKQuantityTypeIdentifierBodyTemperature", "98.6", "degF", 37),
            ("HKQuantityTypeIdentifierHeartRateVariabilitySDNN", "45", "ms", 45),
            ("HKQuantityTypeIdentifierRestingHeartRate", "1", "count/s", 60),
        ]
        for (type, value, unit, expected) in cases {
            let sample = try #require(try Parsed(Fragment.document(Fragment.record(type, value: value, unit: unit))).quantities.first)
            #expect(abs(try sample.canonicalValue() - expected) < 1e-6, "\(value) \(unit)")
        }
    }

    @Test func aRecordWithStartEqualToEndIsAnInstant() throws {
        let parsed = try Parsed(Fragment.document(Fragment.record("HKQuantityTypeIdentifierHeartRate", value: "70", unit: "count/min",
                                                                  start: "2024-06-01 09:00:00 -0700", end: "2024-06-01 09:00:00 -0700")))
        #expect(parsed.quantities.first.map { $0.start == $0.end } == true)
    }

    @Test func theSameRecordFromTwoDevicesIsTwoSamplesAndTheSameRecordTwiceIsOne() throws {
        let watch = Fragment.record("HKQuantityTypeIdentifierStepCount", value: "100", device: Fragment.watchDevice)
        let phone = Fragment.record("HKQuantityTypeIdentifierStepCount", value: "100", device: Fragment.phoneDevice)
        let parsed = try Parsed(Fragment.document(watch + phone + watch))
        let ids = parsed.quantities.map(\.syncIdentifier)
        #expect(ids.count == 3)
        #expect(ids[0] != ids[1])
        #expect(ids[0] == ids[2])
        #expect(parsed.quantities.map { $0.device?.name } == ["Apple Watch", "iPhone", "Apple Watch"])
    }

    @Test func hashedSyncIdentifiersAreStableAcrossParses() throws {
        let xml = Fragment.document(Fragment.record("HKQuantityTypeIdentifierStepCount", value: "100"))
        let first = try Parsed(xml).quantities.first?.syncIdentifier
        let second = try Parsed(xml).quantities.first?.syncIdentifier
        #expect(first != nil && first == second)
        #expect(first?.hasPrefix("ah-") == true && first?.count == 35)
    }

    @Test func veryOldAndFutureDatesAreRefusedNamingTheRecord() throws {
        let old = Parsed.error(Fragment.document(Fragment.record("HKQuantityTypeIdentifierStepCount", value: "1",
                                                                 start: "1899-12-31 23:00:00 +0000", end: "1899-12-31 23:01:00 +0000")))
        #expect(old?.kind == .badRecord)
        #expect(old?.description.contains("HKQuantityTypeIdentifierStepCount") == true)
        #expect(old?.description.contains("outside 1900-01-01") == true)
        let future = Parsed.error(Fragment.document(Fragment.record("HKQuantityTypeIdentifierStepCount", value: "1",
                                                                    start: "2100-01-01 00:00:00 +0000", end: "2100-01-01 00:01:00 +0000")))
        #expect(future?.description.contains("outside 1900-01-01") == true)
        // Inside the bounds at both ends.
        let edges = Fragment.record("HKQuantityTypeIdentifierBodyMass", value: "3.2", unit: "kg", start: "1900-01-01 00:00:00 +0000", end: "1900-01-01 00:00:00 +0000")
            + Fragment.record("HKQuantityTypeIdentifierBodyMass", value: "70", unit: "kg", start: "2099-12-31 23:59:59 +0000", end: "2099-12-31 23:59:59 +0000")
        #expect(try Parsed(Fragment.document(edges)).quantities.count == 2)
    }

    @Test func anUnknownUnitNamesTheRecordAndItsPlace() throws {
        let xml = Fragment.document(Fragment.record("HKQuantityTypeIdentifierStepCount", value: "5")
                                    + Fragment.record("HKQuantityTypeIdentifierBodyMass", value: "70", unit: "stone"))
        let error = try #require(Parsed.error(xml))
        #expect(error.kind == .badRecord)
        #expect(error.description.contains("HKQuantityTypeIdentifierBodyMass"))
        #expect(error.description.contains("unknown unit 'stone'"))
        #expect(error.place.hasPrefix("line 11, column"))
    }

    @Test func aUnitOfTheWrongDimensionAndABadValueAreRefused() throws {
        let wrong = Parsed.error(Fragment.document(Fragment.record("HKQuantityTypeIdentifierStepCount", value: "5", unit: "kg")))
        #expect(wrong?.description.contains("does not measure step-count") == true)
        let notANumber = Parsed.error(Fragment.document(Fragment.record("HKQuantityTypeIdentifierStepCount", value: "5 steps")))
        #expect(notANumber?.description.contains("'5 steps' is not a number") == true)
        let implausible = Parsed.error(Fragment.document(Fragment.record("HKQuantityTypeIdentifierHeartRate", value: "900", unit: "count/min")))
        #expect(implausible?.description.contains("outside the plausible") == true)
        let badDate = Parsed.error(Fragment.document(Fragment.record("HKQuantityTypeIdentifierStepCount", value: "5", start: "2024-02-30 09:00:00 -0700")))
        #expect(badDate?.description.contains("'2024-02-30 09:00:00 -0700' is not a date") == true)
    }

    @Test func appleDatesParseAndFormat() throws {
        let parsed = try #require("2024-06-01 09:00:00 -0700".withCString { AppleDate.parse($0) })
        #expect(parsed.secondsSince1970 == 1_717_257_600)
        #expect(parsed.utcOffsetSeconds == -25_200)
        #expect(AppleDate.format(parsed.date, utcOffsetSeconds: -25_200) == "2024-06-01 09:00:00 -0700")
        #expect(AppleDate.format(Date(timeIntervalSince1970: -2_208_988_800), utcOffsetSeconds: 0) == "1900-01-01 00:00:00 +0000")
        for bad in ["2024-06-01T09:00:00-0700", "2024-06-01 09:00:00", "2024-06-01 24:00:00 +0000", "2024-06-01 09:00:00 +0000 ", ""] {
            #expect(bad.withCString { AppleDate.parse($0) } == nil, "\(bad)")
        }
    }

    @Test func deviceStringsParseAndFormatBack() throws {
        let text = "<<HKDevice: 0x283c8a2b0>, name:Anna’s Watch, Series 6, manufacturer:Apple Inc., model:Watch, hardware:Watch6,1, software:9.0, creation date:2022-10-01 10:00:00 +0000>"
        let device = try #require(DeviceString.parse(text))
        #expect(device == DeviceInfo(name: "Anna’s Watch, Series 6", manufacturer: "Apple Inc.", model: "Watch",
                                     hardwareIdentifier: "Watch6,1", firmwareVersion: "9.0"))
        #expect(DeviceString.parse(DeviceString.format(device)) == device)
        #expect(DeviceString.parse("<<HKDevice: 0x0>>") == nil)
    }

    @Test func anEmptySyncIdentifierAndANegativeWorkoutTotalAreRefused() throws {
        let empty = Parsed.error(Fragment.document(Fragment.record("HKQuantityTypeIdentifierStepCount", value: "1",
                                                                   children: "  <MetadataEntry key=\"HKMetadataKeySyncIdentifier\" value=\"\"/>\n")))
        #expect(empty?.message.contains("HKMetadataKeySyncIdentifier is empty") == true)
        let negative = Parsed.error(Fragment.document("""
             <Workout workoutActivityType="HKWorkoutActivityTypeWalking" totalDistance="-1" totalDistanceUnit="km" sourceName="P" startDate="2019-06-01 07:00:00 +0200" endDate="2019-06-01 07:20:00 +0200"/>
            """))
        #expect(negative?.message.contains("totalDistance '-1' is not a number ≥ 0") == true)
    }

    @Test func internedTextsResolveToTheirOwnValuesWhateverTheOrder() throws {
        // Sources alternate, so the intern table's last-hit shortcut misses and its scan must find each.
        let names = ["A", "B", "AB", "", "B", "A", "ABC", "AB"].map { $0.isEmpty ? "Z" : $0 }
        let body = names.enumerated().map { index, name in
            Fragment.record("HKQuantityTypeIdentifierStepCount", value: "\(index)", source: name)
        }.joined()
        #expect(try Parsed(Fragment.document(body)).quantities.map { $0.source?.id } == names)
    }
}
