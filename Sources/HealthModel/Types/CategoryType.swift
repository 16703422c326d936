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

    public static let all: [CategoryType] = [.standHour]
}
