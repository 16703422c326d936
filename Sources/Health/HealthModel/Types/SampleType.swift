/// Any type a sample can have; the unit of authorization and of storage.
public enum SampleType: Hashable, Sendable, CustomStringConvertible {
    case quantity(QuantityType)
    case category(CategoryType)
    /// Workouts (HealthKit `HKWorkoutType`).
    case workout

    public var identifier: String {
        switch self {
        case .quantity(let type): type.identifier
        case .category(let type): type.identifier
        case .workout: "workout"
        }
    }

    public var description: String { identifier }

    public static let all: [SampleType] =
        QuantityType.all.map(SampleType.quantity) + CategoryType.all.map(SampleType.category) + [.workout]

    /// Looks a type up by its kebab-case identifier or a HealthKit spelling: `step-count`,
    /// `stepCount`, `HKQuantityTypeIdentifierStepCount`, `HKCategoryTypeIdentifierAppleStandHour`.
    public init(named name: String) throws(HealthModelError) {
        var key = name
        for prefix in ["HKQuantityTypeIdentifier", "HKCategoryTypeIdentifier", "HKWorkoutTypeIdentifier"]
        where key.hasPrefix(prefix) {
            key = String(key.dropFirst(prefix.count))
        }
        let folded = key.lowercased().filter { $0 != "-" && $0 != "_" }
        for type in SampleType.all {
            let healthKit: String
            switch type {
            case .quantity(let q): healthKit = q.healthKitName
            case .category(let c): healthKit = c.healthKitName
            case .workout: healthKit = "Workout"
            }
            if name == type.identifier || folded == healthKit.lowercased()
                || folded == type.identifier.filter({ $0 != "-" }) {
                self = type
                return
            }
        }
        throw HealthModelError.unknownType(name)
    }

    public var quantityType: QuantityType? { if case .quantity(let q) = self { q } else { nil } }
}

extension QuantityType {
    /// Looks up a quantity type by name or HealthKit alias; a category or workout name is an error.
    public init(named name: String) throws(HealthModelError) {
        guard case .quantity(let type) = try SampleType(named: name) else {
            throw HealthModelError.notAQuantityType(name)
        }
        self = type
    }
}

/// Characteristics: facts about the user that are not samples. Apps may be granted read access;
/// only the owner (the `health` command) writes them, as in HealthKit.
public enum CharacteristicType: String, CaseIterable, Hashable, Sendable {
    case dateOfBirth = "date-of-birth"
    case biologicalSex = "biological-sex"
    case bloodType = "blood-type"
}
