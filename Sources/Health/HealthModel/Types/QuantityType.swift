/// How values of a quantity type combine (HealthKit `HKQuantityAggregationStyle`).
public enum AggregationStyle: String, Hashable, Sendable {
    /// Values add up over time (steps, distance, energy): statistics offer only the sum, and
    /// sources are merged by priority so that overlapping recordings are not counted twice.
    case cumulative
    /// Each value is a measurement of a level (heart rate, body mass): average, minimum, maximum
    /// and most recent, over all sources, with no merge.
    case discrete
}

/// A kind of measured quantity: its name, aggregation style and the canonical unit its values are
/// stored in (HealthKit `HKQuantityType`).
///
/// Names are the kebab-case identifiers (`step-count`); HealthKit spellings (`stepCount`,
/// `HKQuantityTypeIdentifierStepCount`) are accepted as aliases by ``SampleType/init(named:)``.
public struct QuantityType: Hashable, Sendable, CustomStringConvertible {
    public let identifier: String
    public let aggregation: AggregationStyle
    public let canonicalUnit: HealthUnit
    /// The HealthKit identifier suffix (`StepCount` in `HKQuantityTypeIdentifierStepCount`).
    public let healthKitName: String

    init(_ identifier: String, _ aggregation: AggregationStyle, _ unit: HealthUnit, healthKit: String) {
        self.identifier = identifier
        self.aggregation = aggregation
        self.canonicalUnit = unit
        self.healthKitName = healthKit
    }

    public static func == (a: QuantityType, b: QuantityType) -> Bool { a.identifier == b.identifier }
    public func hash(into hasher: inout Hasher) { hasher.combine(identifier) }
    public var description: String { identifier }

    public static let stepCount = QuantityType("step-count", .cumulative, .count, healthKit: "StepCount")
    public static let distanceWalkingRunning = QuantityType("distance-walking-running", .cumulative, .meter, healthKit: "DistanceWalkingRunning")
    public static let distanceCycling = QuantityType("distance-cycling", .cumulative, .meter, healthKit: "DistanceCycling")
    public static let activeEnergyBurned = QuantityType("active-energy-burned", .cumulative, .kilocalorie, healthKit: "ActiveEnergyBurned")
    public static let basalEnergyBurned = QuantityType("basal-energy-burned", .cumulative, .kilocalorie, healthKit: "BasalEnergyBurned")
    public static let flightsClimbed = QuantityType("flights-climbed", .cumulative, .count, healthKit: "FlightsClimbed")
    public static let heartRate = QuantityType("heart-rate", .discrete, .countPerMinute, healthKit: "HeartRate")
    public static let restingHeartRate = QuantityType("resting-heart-rate", .discrete, .countPerMinute, healthKit: "RestingHeartRate")
    public static let heartRateVariabilitySDNN = QuantityType("heart-rate-variability-sdnn", .discrete, .millisecond, healthKit: "HeartRateVariabilitySDNN")
    public static let height = QuantityType("height", .discrete, .meter, healthKit: "Height")
    public static let bodyMass = QuantityType("body-mass", .discrete, .kilogram, healthKit: "BodyMass")
    public static let bodyMassIndex = QuantityType("body-mass-index", .discrete, .count, healthKit: "BodyMassIndex")
    public static let bodyTemperature = QuantityType("body-temperature", .discrete, .degreeCelsius, healthKit: "BodyTemperature")

    public static let all: [QuantityType] = [
        .stepCount, .distanceWalkingRunning, .distanceCycling, .activeEnergyBurned, .basalEnergyBurned,
        .flightsClimbed, .heartRate, .restingHeartRate, .heartRateVariabilitySDNN, .height, .bodyMass,
        .bodyMassIndex, .bodyTemperature,
    ]
}
