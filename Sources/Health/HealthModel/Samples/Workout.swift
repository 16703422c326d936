import FoundationEssentials

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
