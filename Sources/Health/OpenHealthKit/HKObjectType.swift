import Foundation
internal import HealthModel

/// A kind of health data (HealthKit `HKObjectType`). Equal types are equal objects whatever
/// instance carries them, so `Set<HKObjectType>` and `Set<HKSampleType>` work as on Apple.
public class HKObjectType: Hashable, CustomStringConvertible, @unchecked Sendable {
    /// Apple's identifier (`HKQuantityTypeIdentifierStepCount`).
    public let identifier: String

    init(identifier: String) { self.identifier = identifier }

    public static func == (a: HKObjectType, b: HKObjectType) -> Bool { a.identifier == b.identifier }
    public func hash(into hasher: inout Hasher) { hasher.combine(identifier) }
    public var description: String { identifier }

    /// The quantity type, or nil when BandKit's store does not hold it (as HealthKit returns nil
    /// for an identifier it does not know).
    public class func quantityType(forIdentifier identifier: HKQuantityTypeIdentifier) -> HKQuantityType? {
        HKQuantityType.known[identifier.rawValue]
    }

    public class func categoryType(forIdentifier identifier: HKCategoryTypeIdentifier) -> HKCategoryType? {
        HKCategoryType.known[identifier.rawValue]
    }

    public class func characteristicType(forIdentifier identifier: HKCharacteristicTypeIdentifier) -> HKCharacteristicType? {
        HKCharacteristicType.known[identifier.rawValue]
    }

    public class func workoutType() -> HKWorkoutType { HKWorkoutType.shared }

    /// The store's type for this object type; nil for characteristics.
    var sampleType: SampleType? { nil }
}

/// Types of samples: quantities, categories, workouts.
public class HKSampleType: HKObjectType, @unchecked Sendable {
    /// HealthKit's longest allowed duration; BandKit's plausible range of the type.
    public var maximumAllowedDuration: TimeInterval { sampleType?.maximumDuration ?? 0 }
    public var isMaximumDurationRestricted: Bool { true }
}

/// How a quantity type's values combine (HealthKit `HKQuantityAggregationStyle`).
public enum HKQuantityAggregationStyle: Int, Sendable {
    case cumulative = 0
    case discreteArithmetic = 1
    case discreteTemporallyWeighted = 2
    case discreteEquivalentContinuousLevel = 3
    @available(*, deprecated, renamed: "discreteArithmetic")
    public static let discrete = HKQuantityAggregationStyle.discreteArithmetic
}

public final class HKQuantityType: HKSampleType, @unchecked Sendable {
    let model: QuantityType
    /// The unit the store keeps this type's values in.
    let canonicalUnit: HKUnit

    init(_ model: QuantityType) {
        self.model = model
        canonicalUnit = HKUnit(from: model.canonicalUnit.symbol)
        super.init(identifier: "HKQuantityTypeIdentifier" + model.healthKitName)
    }

    static let known: [String: HKQuantityType] = Dictionary(uniqueKeysWithValues: QuantityType.all.map {
        let type = HKQuantityType($0)
        return (type.identifier, type)
    })

    public var aggregationStyle: HKQuantityAggregationStyle {
        model.aggregation == .cumulative ? .cumulative : .discreteArithmetic
    }

    /// Whether quantities in `unit` can be stored as this type.
    public func `is`(compatibleWith unit: HKUnit) -> Bool { canonicalUnit.isCompatible(with: unit) }

    override var sampleType: SampleType? { .quantity(model) }
}

public final class HKCategoryType: HKSampleType, @unchecked Sendable {
    let model: CategoryType

    init(_ model: CategoryType) {
        self.model = model
        super.init(identifier: "HKCategoryTypeIdentifier" + model.healthKitName)
    }

    static let known: [String: HKCategoryType] = Dictionary(uniqueKeysWithValues: CategoryType.all.map {
        let type = HKCategoryType($0)
        return (type.identifier, type)
    })

    override var sampleType: SampleType? { .category(model) }
}

public final class HKWorkoutType: HKSampleType, @unchecked Sendable {
    static let shared = HKWorkoutType(identifier: "HKWorkoutTypeIdentifier")
    override var sampleType: SampleType? { .workout }
}

public final class HKCharacteristicType: HKObjectType, @unchecked Sendable {
    let model: CharacteristicType

    init(_ model: CharacteristicType, identifier: String) {
        self.model = model
        super.init(identifier: identifier)
    }

    static let known: [String: HKCharacteristicType] = [
        HKCharacteristicTypeIdentifier.dateOfBirth.rawValue: HKCharacteristicType(.dateOfBirth, identifier: HKCharacteristicTypeIdentifier.dateOfBirth.rawValue),
        HKCharacteristicTypeIdentifier.biologicalSex.rawValue: HKCharacteristicType(.biologicalSex, identifier: HKCharacteristicTypeIdentifier.biologicalSex.rawValue),
        HKCharacteristicTypeIdentifier.bloodType.rawValue: HKCharacteristicType(.bloodType, identifier: HKCharacteristicTypeIdentifier.bloodType.rawValue),
    ]
}

extension HKSampleType {
    /// The HealthKit object type of a store sample type.
    static func of(_ type: SampleType) -> HKSampleType {
        switch type {
        case .quantity(let model): HKQuantityType.known["HKQuantityTypeIdentifier" + model.healthKitName]!
        case .category(let model): HKCategoryType.known["HKCategoryTypeIdentifier" + model.healthKitName]!
        case .workout: HKWorkoutType.shared
        }
    }
}
