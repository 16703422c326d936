import FoundationEssentials
import HealthModel

/// A workout with the figures a person asks about it (HealthKit `HKWorkout` totals and the
/// statistics an app computes over the samples inside the workout).
public struct WorkoutStatistics: Hashable, Sendable {
    public var workout: Workout
    public var duration: TimeInterval
    /// The workout's own total when it has one, else the merged sum of the distance samples inside
    /// it (walking/running, or cycling for a ride): never both, never counted twice.
    public var distanceMetres: Double?
    /// As for distance: the workout's total, else merged active-energy samples inside it.
    public var energyKilocalories: Double?
    /// Average and maximum of the heart-rate samples inside the workout, every visible source.
    public var averageHeartRate: Double?
    public var maximumHeartRate: Double?
}

extension HealthStore {
    /// Statistics of one workout from the samples `app` may read inside `[start, end)`.
    public func statistics(of workout: Workout, as app: AppIdentity) throws -> WorkoutStatistics {
        var result = WorkoutStatistics(workout: workout, duration: workout.duration)
        result.distanceMetres = try workout.totalDistance?.value(in: .meter)
        result.energyKilocalories = try workout.totalEnergyBurned?.value(in: .kilocalorie)
        guard workout.end > workout.start else { return result }
        let range = workout.start..<workout.end
        func merged(_ type: QuantityType, _ options: StatisticsOptions) throws -> StatisticsValues? {
            try statistics(type: type, range: range, options: options, timeZone: TimeZone(identifier: "UTC")!, as: app).first?.values
        }
        if result.distanceMetres == nil {
            let type: QuantityType = workout.activity == .cycling ? .distanceCycling : .distanceWalkingRunning
            result.distanceMetres = try merged(type, .sum)?.sum
        }
        if result.energyKilocalories == nil { result.energyKilocalories = try merged(.activeEnergyBurned, .sum)?.sum }
        let heart = try merged(.heartRate, [.average, .maximum])
        result.averageHeartRate = heart?.average
        result.maximumHeartRate = heart?.maximum
        return result
    }
}
