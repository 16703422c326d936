import HealthTestSupport
import Foundation
import HealthModel
import Testing

@Suite struct UnitTests {
    @Test(arguments: [
        (1.0, HealthUnit.kilometer, HealthUnit.meter, 1000.0),
        (1.0, .mile, .meter, 1609.344),
        (12.0, .inch, .foot, 1.0),
        (180.0, .centimeter, .meter, 1.8),
        (1.0, .largeCalorie, .kilocalorie, 1.0),
        (1000.0, .smallCalorie, .kilocalorie, 1.0),
        (4.184, .kilojoule, .kilocalorie, 1.0),
        (1.0, .pound, .kilogram, 0.45359237),
        (500.0, .gram, .kilogram, 0.5),
        (1.0, .countPerSecond, .countPerMinute, 60.0),
        (1500.0, .millisecond, .second, 1.5),
        (98.6, .degreeFahrenheit, .degreeCelsius, 37.0),
        (37.0, .degreeCelsius, .degreeFahrenheit, 98.6),
        (50.0, .percent, .count, 0.5),
    ])
    func convertsWithinADimension(value: Double, from: HealthUnit, to: HealthUnit, expected: Double) throws {
        let converted = try from.convert(value, to: to)
        #expect(abs(converted - expected) < 1e-9 * max(1, abs(expected)))
    }

    @Test func convertingAcrossDimensionsThrows() {
        #expect(throws: UnitError.incompatible(from: .count, to: .meter)) { try HealthUnit.count.convert(1, to: .meter) }
        #expect(throws: UnitError.incompatible(from: .countPerMinute, to: .count)) {
            try Quantity(70, .countPerMinute).value(in: .count)
        }
    }

    @Test func calAndCalAreDifferentUnits() throws {
        #expect(try HealthUnit(parsing: "Cal") == .largeCalorie)
        #expect(try HealthUnit(parsing: "cal") == .smallCalorie)
    }

    @Test func unknownUnitsAreNamedInTheError() {
        #expect(throws: UnitError.unknownUnit("furlong")) { try HealthUnit(parsing: "furlong") }
    }

    @Test(arguments: ["step-count", "stepCount", "HKQuantityTypeIdentifierStepCount", "StepCount"])
    func typeNamesAcceptHealthKitSpellings(name: String) throws {
        #expect(try SampleType(named: name) == .quantity(.stepCount))
    }

    @Test func categoryAndQuantityNamesResolve() throws {
        #expect(try SampleType(named: "HKCategoryTypeIdentifierAppleStandHour") == .category(.standHour))
        #expect(try SampleType(named: "heartRateVariabilitySDNN") == .quantity(.heartRateVariabilitySDNN))
        #expect(throws: HealthModelError.unknownType("stepz")) { try SampleType(named: "stepz") }
        #expect(throws: HealthModelError.notAQuantityType("stand-hour")) { try QuantityType(named: "stand-hour") }
    }

    @Test func timeOrderedIdentifiersSortByCreationTime() {
        let early = UUID.timeOrdered(at: at("2026-01-01T00:00:00Z"))
        let late = UUID.timeOrdered(at: at("2026-01-01T00:00:01Z"))
        #expect(early.uuidString < late.uuidString)
        #expect(early.uuidString.dropFirst(14).first == "7")  // version 7
    }
}
