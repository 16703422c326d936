import FoundationEssentials

/// One point of a workout's track (a GPS record): where, and how the athlete was, at an instant.
/// Every value but the time is optional: indoor workouts have no position, some devices no cadence.
public struct WorkoutTrackPoint: Hashable, Sendable {
    public var time: Date
    /// Degrees (WGS 84).
    public var latitude: Double?
    public var longitude: Double?
    /// Metres above sea level.
    public var altitude: Double?
    /// Beats per minute.
    public var heartRate: Double?
    /// Revolutions (cycling) or strides (running) per minute.
    public var cadence: Double?
    /// Metres since the workout's start.
    public var distance: Double?
    /// Metres per second.
    public var speed: Double?

    public init(time: Date, latitude: Double? = nil, longitude: Double? = nil, altitude: Double? = nil, heartRate: Double? = nil,
                cadence: Double? = nil, distance: Double? = nil, speed: Double? = nil) {
        self.time = time
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.heartRate = heartRate
        self.cadence = cadence
        self.distance = distance
        self.speed = speed
    }

    /// Why the point is implausible, or nil: a position off the globe, a heart rate no heart beats.
    public var problem: String? {
        func outside(_ value: Double?, _ range: ClosedRange<Double>, _ name: String) -> String? {
            guard let value else { return nil }
            return value.isFinite && range.contains(value) ? nil : "\(name) \(value) is outside \(range.lowerBound) … \(range.upperBound)"
        }
        if (latitude == nil) != (longitude == nil) { return "a position needs both latitude and longitude" }
        return outside(latitude, -90...90, "latitude") ?? outside(longitude, -180...180, "longitude")
            ?? outside(altitude, -500...10_000, "altitude") ?? outside(heartRate, 1...250, "heart rate")
            ?? outside(cadence, 0...254, "cadence") ?? outside(distance, 0...6_000_000, "distance")
            ?? outside(speed, 0...400, "speed")
    }
}

/// A lap of a workout (HealthKit's lap `HKWorkoutEvent`, with the lap's totals).
public struct WorkoutLap: Hashable, Sendable {
    public var start: Date
    public var end: Date
    /// Metres.
    public var distance: Double?
    /// Kilocalories.
    public var energy: Double?
    public var averageHeartRate: Double?
    public var maximumHeartRate: Double?
    public var averageCadence: Double?
    public var maximumCadence: Double?

    public init(start: Date, end: Date, distance: Double? = nil, energy: Double? = nil, averageHeartRate: Double? = nil,
                maximumHeartRate: Double? = nil, averageCadence: Double? = nil, maximumCadence: Double? = nil) {
        self.start = start
        self.end = end
        self.distance = distance
        self.energy = energy
        self.averageHeartRate = averageHeartRate
        self.maximumHeartRate = maximumHeartRate
        self.averageCadence = averageCadence
        self.maximumCadence = maximumCadence
    }
}

/// A workout's laps and track points, kept for export (GPX, TCX, FIT).
public struct WorkoutTrack: Hashable, Sendable {
    public var laps: [WorkoutLap]
    public var points: [WorkoutTrackPoint]

    public init(laps: [WorkoutLap] = [], points: [WorkoutTrackPoint] = []) {
        self.laps = laps
        self.points = points
    }

    public var isEmpty: Bool { laps.isEmpty && points.isEmpty }
}
