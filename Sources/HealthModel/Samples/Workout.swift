import FoundationEssentials

/// The kind of a workout (HealthKit `HKWorkoutActivityType`); open so unknown kinds survive.
public struct WorkoutActivityType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    public static let walking = WorkoutActivityType(rawValue: "walking")
    public static let running = WorkoutActivityType(rawValue: "running")
    public static let cycling = WorkoutActivityType(rawValue: "cycling")
    public static let swimming = WorkoutActivityType(rawValue: "swimming")
    public static let hiking = WorkoutActivityType(rawValue: "hiking")
    public static let other = WorkoutActivityType(rawValue: "other")

    /// A name the command line and import accept: 1–64 of `a-z`, `0-9` and `-`, starting with a
    /// letter (HealthKit's `HKWorkoutActivityType` cases in kebab case: `running`,
    /// `high-intensity-interval-training`). Anything else is refused rather than stored and
    /// later printed to a terminal.
    public static func isValidName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (1...64).contains(bytes.count), let first = bytes.first, (0x61...0x7A).contains(first) else { return false }
        return bytes.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D }
    }
}

/// A workout: an activity over an interval with its totals (HealthKit `HKWorkout`).
public struct Workout: Hashable, Sendable {
    public var id: UUID
    public var activity: WorkoutActivityType
    public var start: Date
    public var end: Date
    public var totalEnergyBurned: Quantity?
    public var totalDistance: Quantity?
    public var source: AppIdentity?
    public var device: DeviceInfo?
    public var metadata: [String: String]

    public init(id: UUID = .timeOrdered(), activity: WorkoutActivityType, start: Date, end: Date,
                totalEnergyBurned: Quantity? = nil, totalDistance: Quantity? = nil,
                device: DeviceInfo? = nil, metadata: [String: String] = [:], source: AppIdentity? = nil) {
        self.id = id
        self.activity = activity
        self.start = start
        self.end = end
        self.totalEnergyBurned = totalEnergyBurned
        self.totalDistance = totalDistance
        self.source = source
        self.device = device
        self.metadata = metadata
    }

    public var duration: TimeInterval { end.timeIntervalSince(start) }
}
