/// The kind of a workout: one of HealthKit's `HKWorkoutActivityType` cases, by its case name
/// (`running`, `traditionalStrengthTraining`).
///
/// One vocabulary for everything that reads or writes an activity — the command line, NDJSON
/// import and export, Apple Health import and export — so whatever one of them writes the
/// others read back. ``init(name:)`` is the one validation: it takes the case name or its
/// kebab-case spelling (`traditional-strength-training`, easier to type) and gives the case
/// name; anything else (`<script>`, a typo, an activity HealthKit does not have) is refused
/// rather than stored and later printed to a terminal or a spreadsheet.
public struct WorkoutActivityType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The case name as stored. Rows written before the vocabulary may hold another spelling;
    /// ``canonical`` maps those back.
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// The activity `name` spells (case name or kebab case), or nil when it is not one.
    public init?(name: String) {
        guard let found = Self.byName[name] else { return nil }
        rawValue = found
    }

    /// Whether `name` is an activity of the vocabulary (``init(name:)`` succeeds).
    public static func isValidName(_ name: String) -> Bool { byName[name] != nil }

    /// The activity an Apple Health export's `HKWorkoutActivityTypeRunning` names, or nil.
    public init?(appleIdentifier: String) {
        let prefix = "HKWorkoutActivityType"
        guard appleIdentifier.hasPrefix(prefix) else { return nil }
        let name = appleIdentifier.dropFirst(prefix.count)
        guard let first = name.first, first.isASCII, first.isUppercase else { return nil }
        self.init(name: first.lowercased() + name.dropFirst())
    }

    /// `HKWorkoutActivityTypeTraditionalStrengthTraining`.
    public var appleIdentifier: String {
        let name = canonical.rawValue
        return "HKWorkoutActivityType" + name.prefix(1).uppercased() + name.dropFirst()
    }

    /// The case name for a stored spelling (kebab case from before the vocabulary); itself when
    /// it is not in the vocabulary.
    public var canonical: WorkoutActivityType { Self(name: rawValue) ?? self }

    /// The kebab-case spelling, `traditional-strength-training`.
    public var kebabName: String { Self.kebabCase(canonical.rawValue) }

    private static func kebabCase(_ name: String) -> String {
        var text = ""
        for character in name {
            if character.isUppercase { text += "-" + character.lowercased() } else { text.append(character) }
        }
        return text
    }

    /// What to say when a name is refused.
    public static let namesHint = "a HealthKit activity such as running, walking, cycling, traditionalStrengthTraining "
        + "or high-intensity-interval-training ('health workouts add --help' lists them all)"

    public static let walking = WorkoutActivityType(rawValue: "walking")
    public static let running = WorkoutActivityType(rawValue: "running")
    public static let cycling = WorkoutActivityType(rawValue: "cycling")
    public static let swimming = WorkoutActivityType(rawValue: "swimming")
    public static let hiking = WorkoutActivityType(rawValue: "hiking")
    public static let other = WorkoutActivityType(rawValue: "other")

    /// Every `HKWorkoutActivityType` case, in HealthKit's raw-value order (1…84, then other =
    /// 3000), deprecated ones included: an old export still holds them.
    public static let all: [WorkoutActivityType] = [
        "americanFootball", "archery", "australianFootball", "badminton", "baseball", "basketball", "bowling", "boxing",
        "climbing", "cricket", "crossTraining", "curling", "cycling", "dance", "danceInspiredTraining", "elliptical",
        "equestrianSports", "fencing", "fishing", "functionalStrengthTraining", "golf", "gymnastics", "handball", "hiking",
        "hockey", "hunting", "lacrosse", "martialArts", "mindAndBody", "mixedMetabolicCardioTraining", "paddleSports",
        "play", "preparationAndRecovery", "racquetball", "rowing", "rugby", "running", "sailing", "skatingSports",
        "snowSports", "soccer", "softball", "squash", "stairClimbing", "surfingSports", "swimming", "tableTennis", "tennis",
        "trackAndField", "traditionalStrengthTraining", "volleyball", "walking", "waterFitness", "waterPolo", "waterSports",
        "wrestling", "yoga", "barre", "coreTraining", "crossCountrySkiing", "downhillSkiing", "flexibility",
        "highIntensityIntervalTraining", "jumpRope", "kickboxing", "pilates", "snowboarding", "stairs", "stepTraining",
        "wheelchairWalkPace", "wheelchairRunPace", "taiChi", "mixedCardio", "handCycling", "discSports", "fitnessGaming",
        "cardioDance", "socialDance", "pickleball", "cooldown", "swimBikeRun", "transition", "underwaterDiving", "other",
    ].map { WorkoutActivityType(rawValue: $0) }

    private static let byName: [String: String] = {
        var names: [String: String] = [:]
        for activity in all {
            names[activity.rawValue] = activity.rawValue
            names[kebabCase(activity.rawValue)] = activity.rawValue
        }
        return names
    }()
}
