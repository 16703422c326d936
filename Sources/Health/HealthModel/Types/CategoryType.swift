/// A sample type whose value is one of an enumeration (HealthKit `HKCategoryType`).
public struct CategoryType: Hashable, Sendable, CustomStringConvertible {
    public let identifier: String
    public let healthKitName: String
    /// The value names in order of their raw values (`stood` = 0, `idle` = 1 for stand hours).
    public let valueNames: [String]

    public static func == (a: CategoryType, b: CategoryType) -> Bool { a.identifier == b.identifier }
    public func hash(into hasher: inout Hasher) { hasher.combine(identifier) }
    public var description: String { identifier }

    /// HealthKit `appleStandHour`, values `HKCategoryValueAppleStandHour` (stood = 0, idle = 1).
    public static let standHour = CategoryType(identifier: "stand-hour", healthKitName: "AppleStandHour",
                                               valueNames: ["stood", "idle"])

    /// HealthKit `sleepAnalysis`, values `HKCategoryValueSleepAnalysis` in HealthKit's raw order:
    /// inBed = 0, asleepUnspecified = 1, awake = 2, asleepCore = 3, asleepDeep = 4, asleepREM = 5.
    /// BandKit's own sleep scoring (HealthAnalysis) writes only the first three: wrist actigraphy
    /// with a pulse cannot tell sleep stages apart (docs/architecture.md, "Sleep"); the stage
    /// values exist so that imported data from devices that can keeps its meaning.
    public static let sleepAnalysis = CategoryType(
        identifier: "sleep-analysis", healthKitName: "SleepAnalysis",
        valueNames: ["inBed", "asleepUnspecified", "awake", "asleepCore", "asleepDeep", "asleepREM"])

    public static let all: [CategoryType] = [.standHour, .sleepAnalysis]
}
