import HealthModel

/// The names export.xml uses for the store's types, units and category values.
public enum AppleTypes {
    /// `HKQuantityTypeIdentifierStepCount`, `HKCategoryTypeIdentifierSleepAnalysis`, …
    public static func identifier(of type: SampleType) -> String {
        switch type {
        case .quantity(let quantity): "HKQuantityTypeIdentifier" + quantity.healthKitName
        case .category(let category): "HKCategoryTypeIdentifier" + category.healthKitName
        case .workout: "HKWorkoutTypeIdentifier"
        }
    }

    /// The store's type for an export.xml `type`, or nil for one the store does not keep.
    /// Only the full HealthKit spelling is accepted: a Record's type always carries its prefix.
    public static func sampleType(identifier: String) -> SampleType? {
        byIdentifier[identifier]
    }

    private static let byIdentifier: [String: SampleType] = Dictionary(
        uniqueKeysWithValues: SampleType.all.filter { $0 != .workout }.map { (identifier(of: $0), $0) })

    /// The `HKCategoryValue…` names of each category's values, in raw-value order.
    public static func valueNames(of type: CategoryType) -> [String] {
        switch type {
        case .sleepAnalysis:
            ["HKCategoryValueSleepAnalysisInBed", "HKCategoryValueSleepAnalysisAsleepUnspecified",
             "HKCategoryValueSleepAnalysisAwake", "HKCategoryValueSleepAnalysisAsleepCore",
             "HKCategoryValueSleepAnalysisAsleepDeep", "HKCategoryValueSleepAnalysisAsleepREM"]
        case .standHour:
            ["HKCategoryValueAppleStandHourStood", "HKCategoryValueAppleStandHourIdle"]
        default:
            type.valueNames.map { "HKCategoryValue" + type.healthKitName + $0 }
        }
    }

    /// The raw value of a category value name; older spellings included (`…SleepAnalysisAsleep`,
    /// iOS < 16, is today's asleepUnspecified). A plain integer is accepted too.
    public static func categoryValue(_ text: String, of type: CategoryType) -> Int? {
        if let index = valueNames(of: type).firstIndex(of: text) { return index }
        if type == .sleepAnalysis, text == "HKCategoryValueSleepAnalysisAsleep" { return 1 }
        if let number = Int(text), type.valueNames.indices.contains(number) { return number }
        return nil
    }

    /// Apple's unit strings, as they appear in the `unit` attribute. Most are the store's own
    /// symbols; the rest are listed here. Case matters (`Cal` is a kilocalorie, `cal` a thousandth).
    public static func unit(_ text: String) -> HealthUnit? {
        if let unit = try? HealthUnit(parsing: text) { return unit }
        return appleSpellings[text]
    }

    private static let appleSpellings: [String: HealthUnit] = [
        "count/min": .countPerMinute, "count/s": .countPerSecond, "kcal": .kilocalorie, "Cal": .largeCalorie,
        "cal": .smallCalorie, "kJ": .kilojoule, "degC": .degreeCelsius, "degF": .degreeFahrenheit,
        "mi": .mile, "ft": .foot, "in": .inch, "cm": .centimeter, "km": .kilometer, "m": .meter,
        "lb": .pound, "kg": .kilogram, "g": .gram, "%": .percent, "ms": .millisecond, "s": .second, "min": .minute,
    ]
}
