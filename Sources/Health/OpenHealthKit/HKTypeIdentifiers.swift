/// Quantity type identifiers (HealthKit `HKQuantityTypeIdentifier`). Every type BandKit's store
/// holds is here; so are a few common ones it does not, for which
/// ``HKObjectType/quantityType(forIdentifier:)`` returns nil (as HealthKit does for an
/// identifier it does not know).
public struct HKQuantityTypeIdentifier: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public static let stepCount = Self("HKQuantityTypeIdentifierStepCount")
    public static let distanceWalkingRunning = Self("HKQuantityTypeIdentifierDistanceWalkingRunning")
    public static let distanceCycling = Self("HKQuantityTypeIdentifierDistanceCycling")
    public static let activeEnergyBurned = Self("HKQuantityTypeIdentifierActiveEnergyBurned")
    public static let basalEnergyBurned = Self("HKQuantityTypeIdentifierBasalEnergyBurned")
    public static let flightsClimbed = Self("HKQuantityTypeIdentifierFlightsClimbed")
    public static let heartRate = Self("HKQuantityTypeIdentifierHeartRate")
    public static let restingHeartRate = Self("HKQuantityTypeIdentifierRestingHeartRate")
    public static let heartRateVariabilitySDNN = Self("HKQuantityTypeIdentifierHeartRateVariabilitySDNN")
    public static let height = Self("HKQuantityTypeIdentifierHeight")
    public static let bodyMass = Self("HKQuantityTypeIdentifierBodyMass")
    public static let bodyMassIndex = Self("HKQuantityTypeIdentifierBodyMassIndex")
    public static let bodyTemperature = Self("HKQuantityTypeIdentifierBodyTemperature")
    // Not held by BandKit's store: quantityType(forIdentifier:) returns nil.
    public static let oxygenSaturation = Self("HKQuantityTypeIdentifierOxygenSaturation")
    public static let respiratoryRate = Self("HKQuantityTypeIdentifierRespiratoryRate")
    public static let walkingHeartRateAverage = Self("HKQuantityTypeIdentifierWalkingHeartRateAverage")
    public static let vo2Max = Self("HKQuantityTypeIdentifierVO2Max")
    public static let bodyFatPercentage = Self("HKQuantityTypeIdentifierBodyFatPercentage")
    public static let leanBodyMass = Self("HKQuantityTypeIdentifierLeanBodyMass")
    public static let bloodGlucose = Self("HKQuantityTypeIdentifierBloodGlucose")
    public static let dietaryWater = Self("HKQuantityTypeIdentifierDietaryWater")
    public static let dietaryEnergyConsumed = Self("HKQuantityTypeIdentifierDietaryEnergyConsumed")
    public static let appleExerciseTime = Self("HKQuantityTypeIdentifierAppleExerciseTime")
    public static let distanceSwimming = Self("HKQuantityTypeIdentifierDistanceSwimming")
}

/// Category type identifiers (HealthKit `HKCategoryTypeIdentifier`).
public struct HKCategoryTypeIdentifier: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public static let sleepAnalysis = Self("HKCategoryTypeIdentifierSleepAnalysis")
    public static let appleStandHour = Self("HKCategoryTypeIdentifierAppleStandHour")
    // Not held by BandKit's store: categoryType(forIdentifier:) returns nil.
    public static let mindfulSession = Self("HKCategoryTypeIdentifierMindfulSession")
}

/// Characteristic type identifiers (HealthKit `HKCharacteristicTypeIdentifier`).
public struct HKCharacteristicTypeIdentifier: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public static let dateOfBirth = Self("HKCharacteristicTypeIdentifierDateOfBirth")
    public static let biologicalSex = Self("HKCharacteristicTypeIdentifierBiologicalSex")
    public static let bloodType = Self("HKCharacteristicTypeIdentifierBloodType")
    // Not held by BandKit's store: characteristicType(forIdentifier:) returns nil.
    public static let fitzpatrickSkinType = Self("HKCharacteristicTypeIdentifierFitzpatrickSkinType")
}

/// `HKCategoryValueAppleStandHour`.
public enum HKCategoryValueAppleStandHour: Int, Sendable {
    case stood = 0, idle = 1
}

/// `HKCategoryValueSleepAnalysis`, Apple's raw values.
public enum HKCategoryValueSleepAnalysis: Int, Sendable {
    case inBed = 0, asleepUnspecified = 1, awake = 2, asleepCore = 3, asleepDeep = 4, asleepREM = 5
    @available(*, deprecated, renamed: "asleepUnspecified")
    public static let asleep = HKCategoryValueSleepAnalysis.asleepUnspecified
}

/// Apple's sort keys for `NSSortDescriptor(key:ascending:)`.
public let HKSampleSortIdentifierStartDate = "startDate"
public let HKSampleSortIdentifierEndDate = "endDate"
/// HealthKit's "no limit" for sample queries.
public let HKObjectQueryNoLimit = 0

// Metadata keys BandKit's store keeps with meaning (others are kept as strings).
public let HKMetadataKeySyncIdentifier = "HKMetadataKeySyncIdentifier"
public let HKMetadataKeySyncVersion = "HKMetadataKeySyncVersion"
public let HKMetadataKeyExternalUUID = "HKMetadataKeyExternalUUID"
public let HKMetadataKeyTimeZone = "HKMetadataKeyTimeZone"
public let HKMetadataKeyWasUserEntered = "HKMetadataKeyWasUserEntered"
public let HKMetadataKeyDeviceName = "HKMetadataKeyDeviceName"
public let HKMetadataKeyDeviceManufacturerName = "HKMetadataKeyDeviceManufacturerName"
