import Foundation
internal import HealthModel

/// A workout: an activity over an interval with its totals (HealthKit `HKWorkout`).
public final class HKWorkout: HKSample, @unchecked Sendable {
    public let workoutActivityType: HKWorkoutActivityType
    public let duration: TimeInterval
    public let totalEnergyBurned: HKQuantity?
    public let totalDistance: HKQuantity?
    /// Computes the statistics of samples recorded during the workout (set on workouts read
    /// from a store; nil on a workout made in memory).
    let statisticsProvider: (@Sendable (HKWorkout, HKQuantityType) -> HKStatistics?)?

    public init(activityType: HKWorkoutActivityType, start startDate: Date, end endDate: Date, duration: TimeInterval = 0,
                totalEnergyBurned: HKQuantity? = nil, totalDistance: HKQuantity? = nil, device: HKDevice? = nil,
                metadata: [String: Any]? = nil) {
        workoutActivityType = activityType
        self.duration = duration > 0 ? duration : endDate.timeIntervalSince(startDate)
        self.totalEnergyBurned = totalEnergyBurned
        self.totalDistance = totalDistance
        statisticsProvider = nil
        super.init(type: HKWorkoutType.shared, start: startDate, end: endDate, uuid: UUID(), metadata: metadata,
                   device: device, source: nil)
    }

    public convenience init(activityType: HKWorkoutActivityType, start startDate: Date, end endDate: Date) {
        self.init(activityType: activityType, start: startDate, end: endDate, duration: 0)
    }

    public convenience init(activityType: HKWorkoutActivityType, start startDate: Date, end endDate: Date, duration: TimeInterval,
                            totalEnergyBurned: HKQuantity?, totalDistance: HKQuantity?, metadata: [String: Any]?) {
        self.init(activityType: activityType, start: startDate, end: endDate, duration: duration,
                  totalEnergyBurned: totalEnergyBurned, totalDistance: totalDistance, device: nil, metadata: metadata)
    }

    init(stored workout: Workout, statistics: (@Sendable (HKWorkout, HKQuantityType) -> HKStatistics?)?) {
        workoutActivityType = HKWorkoutActivityType(storeName: workout.activity.rawValue)
        duration = workout.duration
        totalEnergyBurned = workout.totalEnergyBurned.map { HKQuantity(unit: HKUnit(from: $0.unit.symbol), doubleValue: $0.value) }
        totalDistance = workout.totalDistance.map { HKQuantity(unit: HKUnit(from: $0.unit.symbol), doubleValue: $0.value) }
        statisticsProvider = statistics
        let metadata: [String: Any] = workout.metadata
        super.init(type: HKWorkoutType.shared, start: workout.start, end: workout.end, uuid: workout.id,
                   metadata: metadata.isEmpty ? nil : metadata, device: workout.device.map(HKDevice.init), source: workout.source)
    }

    /// The statistics of a quantity type over the workout, from the samples the store holds for
    /// its interval: energy and distance are the workout's own totals when it has them, heart rate
    /// the average, minimum and maximum of the readings during it. Nil when there is no data.
    public func statistics(for quantityType: HKQuantityType) -> HKStatistics? {
        if quantityType.identifier == HKQuantityTypeIdentifier.activeEnergyBurned.rawValue, let totalEnergyBurned {
            return HKStatistics(type: quantityType, start: startDate, end: endDate, sum: totalEnergyBurned)
        }
        if quantityType.identifier == HKQuantityTypeIdentifier.distanceWalkingRunning.rawValue
            || quantityType.identifier == HKQuantityTypeIdentifier.distanceCycling.rawValue, let totalDistance {
            return HKStatistics(type: quantityType, start: startDate, end: endDate, sum: totalDistance)
        }
        return statisticsProvider?(self, quantityType)
    }

    public var allStatistics: [HKQuantityType: HKStatistics] {
        var result: [HKQuantityType: HKStatistics] = [:]
        for type in HKQuantityType.known.values {
            if let statistics = statistics(for: type) { result[type] = statistics }
        }
        return result
    }

    override var problem: String? {
        if let problem = super.problem { return problem }
        if let totalEnergyBurned, !totalEnergyBurned.is(compatibleWith: .kilocalorie()) {
            return "totalEnergyBurned in \(totalEnergyBurned.unit.unitString) is not an energy"
        }
        if let totalDistance, !totalDistance.is(compatibleWith: .meter()) {
            return "totalDistance in \(totalDistance.unit.unitString) is not a length"
        }
        return nil
    }

    func model() throws(HKError) -> Workout {
        if let problem { throw HKError(.errorInvalidArgument, problem) }
        let fields = try MetadataMapping(metadata)
        var text = fields.text
        if let syncIdentifier = fields.syncIdentifier {
            text[HKMetadataKeySyncIdentifier] = syncIdentifier
            text[HKMetadataKeySyncVersion] = String(fields.syncVersion)
        }
        if let zone = fields.timeZone { text[HKMetadataKeyTimeZone] = zone.identifier }
        var energy: Quantity?, distance: Quantity?
        if let totalEnergyBurned { energy = Quantity(try totalEnergyBurned.doubleValue(checkedFor: .kilocalorie()), .kilocalorie) }
        if let totalDistance { distance = Quantity(try totalDistance.doubleValue(checkedFor: .meter()), .meter) }
        return Workout(id: uuid, activity: WorkoutActivityType(rawValue: workoutActivityType.storeName), start: startDate, end: endDate,
                       totalEnergyBurned: energy, totalDistance: distance, device: device?.info, metadata: text)
    }
}
