import Foundation
@testable import OpenHealthKit
import Testing

@Suite struct HKUnitTests {
    @Test func appleUnitStringsParseIntoTheUnitsTheFactoriesMake() {
        #expect(HKUnit(from: "count/min") == HKUnit.count().unitDivided(by: .minute()))
        #expect(HKUnit(from: "kg") == HKUnit.gramUnit(with: .kilo))
        #expect(HKUnit(from: "mcg") == HKUnit.gramUnit(with: .micro))
        #expect(HKUnit(from: "km") == HKUnit.meterUnit(with: .kilo))
        #expect(HKUnit(from: "kcal") == HKUnit.kilocalorie())
        #expect(HKUnit(from: "mL") == HKUnit.literUnit(with: .milli))
        #expect(HKUnit(from: "kg/m^2") == HKUnit.gramUnit(with: .kilo).unitDivided(by: HKUnit.meter().unitRaised(toPower: 2)))
        #expect(HKUnit(from: "1/s") == HKUnit.second().reciprocal())
        #expect(HKUnit(from: "min") == HKUnit.minute())
        #expect(HKUnit(from: "mmHg") == HKUnit.millimeterOfMercury())
    }

    @Test func unitStringsSpellCompoundAndInverseUnits() {
        #expect(HKUnit.count().unitDivided(by: .minute()).unitString == "count/min")
        #expect(HKUnit.gramUnit(with: .kilo).unitString == "kg")
        #expect(HKUnit.meter().unitDivided(by: HKUnit.second().unitRaised(toPower: 2)).unitString == "m/s^2")
        #expect(HKUnit.second().reciprocal().unitString == "1/s")
        #expect(HKUnit(from: "kcal/(kg·hr)").unitString == "kcal/(kg·hr)")
        #expect(HKUnit(from: HKUnit(from: "kcal/(kg·hr)").unitString) == HKUnit(from: "kcal/kg/hr"))
    }

    @Test func conversions() throws {
        func value(_ amount: Double, _ from: String, _ to: String) throws -> Double {
            try HKQuantity(unit: HKUnit(from: from), doubleValue: amount).doubleValue(checkedFor: HKUnit(from: to))
        }
        #expect(try value(1, "Cal", "kcal") == 1)
        #expect(try value(1, "kcal", "cal") == 1000)
        #expect(try value(1, "kcal", "kJ") == 4.184)
        #expect(try value(1, "mi", "km") == 1.609344)
        #expect(try value(1, "lb", "kg") == 0.45359237)
        #expect(abs(try value(98.6, "degF", "degC") - 37) < 1e-9)
        #expect(abs(try value(0, "degC", "K") - 273.15) < 1e-9)
        #expect(try value(1, "count/s", "count/min") == 60)
        #expect(abs(try value(1, "Hz", "count/min") - 60) < 1e-9)
        #expect(try value(1, "%", "count") == 0.01)
        #expect(abs(try value(500, "mg/dL", "g/L") - 5) < 1e-12)
        #expect(abs(try value(1, "L", "fl_oz_us") - 33.814022701843) < 1e-9)
    }

    @Test func incompatibleUnitsAreAnErrorNeverACrash() {
        let heartRate = HKQuantity(unit: HKUnit(from: "count/s"), doubleValue: 1.2)
        #expect(!heartRate.is(compatibleWith: .count()))
        #expect(heartRate.doubleValue(for: .count()).isNaN)
        #expect(throws: HKError(.errorInvalidArgument, "Attempt to convert incompatible units: count/s, count")) {
            try heartRate.doubleValue(checkedFor: .count())
        }
        #expect(heartRate.compare(HKQuantity(unit: .meter(), doubleValue: 1)) == .orderedSame)
    }

    @Test func unknownUnitStringsAreTheNullUnit() {
        #expect(HKUnit.parse("furlongs") == nil)
        #expect(HKUnit.parse("kg/") == nil)
        #expect(HKUnit.parse("m^") == nil)
        #expect(HKUnit.parse("(m") == nil)
        #expect(HKUnit.parse("") == nil)
        #expect(HKUnit.parse("Kcal") == nil, "K is kelvin, not a prefix")
        #expect(HKUnit.parse("m^65") == nil)
        #expect(HKUnit.parse("(((((((((m)))))))))") == nil, "nested deeper than 8")
        #expect(HKUnit.parse("((m^8)^8)^8") == nil, "a power beyond 64")
        #expect(HKUnit.parse("m^64·m^64") == nil)
        #expect(HKUnit.meter().unitRaised(toPower: Int.max).isNull())
        #expect(HKUnit(from: "m/m").unitString == "1")
        #expect(HKUnit.parse(HKUnit(from: "m/m").unitString) == HKUnit(from: "m/m"))
        let unit = HKUnit(from: "furlongs")
        #expect(unit.isNull())
        #expect(!HKQuantity(unit: unit, doubleValue: 1).is(compatibleWith: unit))
    }

    @Test func quantitiesCompareAcrossUnits() {
        let mile = HKQuantity(unit: .mile(), doubleValue: 1)
        let kilometre = HKQuantity(unit: .meterUnit(with: .kilo), doubleValue: 1)
        #expect(kilometre < mile)
        #expect(mile.compare(kilometre) == .orderedDescending)
        #expect(HKQuantity(unit: .largeCalorie(), doubleValue: 2) == HKQuantity(unit: .kilocalorie(), doubleValue: 2))
    }

    @Test func typesAndIdentifiers() {
        #expect(HKObjectType.quantityType(forIdentifier: .stepCount)?.aggregationStyle == .cumulative)
        #expect(HKObjectType.quantityType(forIdentifier: .heartRate)?.aggregationStyle == .discreteArithmetic)
        #expect(HKObjectType.quantityType(forIdentifier: .oxygenSaturation) == nil)
        #expect(HKObjectType.quantityType(forIdentifier: HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierNope")) == nil)
        #expect(HKObjectType.categoryType(forIdentifier: .sleepAnalysis) != nil)
        #expect(HKObjectType.categoryType(forIdentifier: .appleStandHour) != nil)
        #expect(HKObjectType.characteristicType(forIdentifier: .bloodType) != nil)
        #expect(HKObjectType.characteristicType(forIdentifier: .fitzpatrickSkinType) == nil)
        let types: Set<HKObjectType> = [HKObjectType.quantityType(forIdentifier: .height)!, HKObjectType.quantityType(forIdentifier: .height)!,
                                        HKObjectType.workoutType()]
        #expect(types.count == 2)
        #expect(HKObjectType.quantityType(forIdentifier: .bodyMass)!.is(compatibleWith: .pound()))
        #expect(!HKObjectType.quantityType(forIdentifier: .bodyMass)!.is(compatibleWith: .meter()))
        #expect(HKWorkoutActivityType.highIntensityIntervalTraining.storeName == "highIntensityIntervalTraining")
        #expect(HKWorkoutActivityType(storeName: "high-intensity-interval-training") == .highIntensityIntervalTraining)
        #expect(HKWorkoutActivityType(storeName: "running") == .running)
        #expect(HKWorkoutActivityType.running.rawValue == 37)
    }
}
