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

    /// HealthKit `sleepAnalysis`, values `HKCategoryValueSleepAnalysis` in their raw order:
    /// inBed = 0, asleepUnspecified (formerly asleep) = 1, awake = 2, asleepCore = 3,
    /// asleepDeep = 4, asleepREM = 5.
    public static let sleepAnalysis = CategoryType(identifier: "sleep-analysis", healthKitName: "SleepAnalysis",
                                                   valueNames: ["in-bed", "asleep-unspecified", "awake", "asleep-core",
                                                                "asleep-deep", "asleep-rem"])

    public static let all: [CategoryType] = [.standHour, .sleepAnalysis]
}
