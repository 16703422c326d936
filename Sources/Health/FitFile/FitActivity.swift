import BandWire

/// One `record` message of an activity: where and how the athlete was at a second.
public struct FitTrackPoint: Hashable, Sendable {
    public var timestamp: UInt32
    /// Degrees.
    public var latitude: Double?
    public var longitude: Double?
    /// Metres above sea level.
    public var altitude: Double?
    /// Beats per minute.
    public var heartRate: Int?
    /// Revolutions (or strides) per minute.
    public var cadence: Int?
    /// Metres since the start.
    public var distance: Double?
    /// Metres per second.
    public var speed: Double?

    public init(timestamp: UInt32, latitude: Double? = nil, longitude: Double? = nil, altitude: Double? = nil, heartRate: Int? = nil,
                cadence: Int? = nil, distance: Double? = nil, speed: Double? = nil) {
        self.timestamp = timestamp
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.heartRate = heartRate
        self.cadence = cadence
        self.distance = distance
        self.speed = speed
    }
}

/// A lap or a session's summary: its span and totals.
public struct FitSummary: Hashable, Sendable {
    public var start: UInt32
    /// Seconds from start to end, timer pauses included.
    public var elapsed: Double
    public var timerTime: Double?
    public var distance: Double?
    /// Kilocalories.
    public var calories: Double?
    public var averageHeartRate: Int?
    public var maximumHeartRate: Int?
    public var averageCadence: Int?
    public var maximumCadence: Int?
    /// The profile's `sport` and `sub_sport` (sessions only).
    public var sport: Int64?
    public var subSport: Int64?

    public init(start: UInt32, elapsed: Double, timerTime: Double? = nil, distance: Double? = nil, calories: Double? = nil,
                averageHeartRate: Int? = nil, maximumHeartRate: Int? = nil, averageCadence: Int? = nil, maximumCadence: Int? = nil,
                sport: Int64? = nil, subSport: Int64? = nil) {
        self.start = start
        self.elapsed = elapsed
        self.timerTime = timerTime
        self.distance = distance
        self.calories = calories
        self.averageHeartRate = averageHeartRate
        self.maximumHeartRate = maximumHeartRate
        self.averageCadence = averageCadence
        self.maximumCadence = maximumCadence
        self.sport = sport
        self.subSport = subSport
    }

    /// The end, in FIT seconds (start + elapsed, rounded down).
    public var end: UInt32 { start &+ UInt32(clamping: Int64(elapsed)) }
}

/// An activity file's content: who wrote it, its sessions, laps and track.
public struct FitActivity: Hashable, Sendable {
    public var identity: FitFileIdentity
    public var sessions: [FitSummary]
    public var laps: [FitSummary]
    public var points: [FitTrackPoint]

    public init(identity: FitFileIdentity, sessions: [FitSummary], laps: [FitSummary], points: [FitTrackPoint]) {
        self.identity = identity
        self.sessions = sessions
        self.laps = laps
        self.points = points
    }
}

/// Plausible ranges for the values an activity carries: anything outside is damage, refused with
/// the message's offset rather than stored.
enum FitPlausible {
    static let heartRate = 1...250
    static let cadence = 0...254
    static let altitude = -500.0...10_000
    static let distance = 0.0...6_000_000
    static let speed = 0.0...400
    static let calories = 0.0...100_000
    static let elapsed = 0.0...(7 * 86_400)

    static func check<T: Comparable>(_ value: T?, _ range: ClosedRange<T>, _ message: FitMessage, _ field: StaticString) throws(ParseError) -> T? {
        guard let value else { return nil }
        guard range.contains(value) else { throw ParseError(.invalidValue, at: message.offset, field: field) }
        return value
    }
}

extension FitSummary {
    /// A `session` (sessionFields) or `lap` message; nil when it has neither a start nor a timestamp.
    init?(_ message: FitMessage, isSession: Bool) throws(ParseError) {
        let start = FitTime.time(message.integer(2)) ?? message.timestamp
        guard let start else { return nil }
        var elapsed = try FitPlausible.check(message.scaled(7, scale: 1000), FitPlausible.elapsed, message, "total_elapsed_time")
        if elapsed == nil, let end = message.timestamp, end >= start {
            elapsed = try FitPlausible.check(Double(end - start), FitPlausible.elapsed, message, "timestamp (end) after start_time")
        }
        self.init(start: start, elapsed: elapsed ?? 0,
                  timerTime: try FitPlausible.check(message.scaled(8, scale: 1000), FitPlausible.elapsed, message, "total_timer_time"),
                  distance: try FitPlausible.check(message.scaled(9, scale: 100), FitPlausible.distance, message, "total_distance"),
                  calories: try FitPlausible.check(message.number(11), FitPlausible.calories, message, "total_calories"))
        let heart: (UInt8, UInt8) = isSession ? (16, 17) : (15, 16)
        let cadence: (UInt8, UInt8) = isSession ? (18, 19) : (17, 18)
        averageHeartRate = try FitPlausible.check(message.integer(heart.0).map(Int.init), FitPlausible.heartRate, message, "avg_heart_rate")
        maximumHeartRate = try FitPlausible.check(message.integer(heart.1).map(Int.init), FitPlausible.heartRate, message, "max_heart_rate")
        averageCadence = try FitPlausible.check(message.integer(cadence.0).map(Int.init), FitPlausible.cadence, message, "avg_cadence")
        maximumCadence = try FitPlausible.check(message.integer(cadence.1).map(Int.init), FitPlausible.cadence, message, "max_cadence")
        if isSession {
            sport = message.integer(5)
            subSport = message.integer(6)
        }
    }

    /// The message's fields; `index` is its message_index.
    func fields(isSession: Bool, index: Int, firstLap: Int = 0, lapCount: Int = 0) -> [FitOutField] {
        let heart: (UInt8, UInt8) = isSession ? (16, 17) : (15, 16)
        let cadence: (UInt8, UInt8) = isSession ? (18, 19) : (17, 18)
        func scaled(_ value: Double?, _ scale: Double) -> FitValue { .integer(value.map { Int64(($0 * scale).rounded()) }) }
        var fields = [
            FitOutField(FitDecoder.timestampField, .uint32, .integer(Int64(end))),
            FitOutField(254, .uint16, .integer(Int64(index))),
            FitOutField(0, .enumeration, .integer(isSession ? 8 : 9)),  // event: session / lap
            FitOutField(1, .enumeration, .integer(1)),  // event_type: stop
            FitOutField(2, .uint32, .integer(Int64(start))),
            FitOutField(7, .uint32, scaled(elapsed, 1000)),
            FitOutField(8, .uint32, scaled(timerTime, 1000)),
            FitOutField(9, .uint32, scaled(distance, 100)),
            FitOutField(11, .uint16, .integer(calories.map { Int64($0.rounded()) })),
            FitOutField(heart.0, .uint8, .integer(averageHeartRate.map(Int64.init))),
            FitOutField(heart.1, .uint8, .integer(maximumHeartRate.map(Int64.init))),
            FitOutField(cadence.0, .uint8, .integer(averageCadence.map(Int64.init))),
            FitOutField(cadence.1, .uint8, .integer(maximumCadence.map(Int64.init))),
        ]
        if isSession {
            fields += [FitOutField(5, .enumeration, .integer(sport)), FitOutField(6, .enumeration, .integer(subSport)),
                       FitOutField(25, .uint16, .integer(Int64(firstLap))), FitOutField(26, .uint16, .integer(Int64(lapCount)))]
        }
        return fields
    }
}

extension FitTrackPoint {
    init?(_ message: FitMessage) throws(ParseError) {
        guard let timestamp = message.timestamp else { return nil }
        self.init(timestamp: timestamp)
        if let lat = message.integer(0), let lon = message.integer(1) {
            latitude = try FitPlausible.check(FitPosition.degrees(lat), -90...90, message, "position_lat")
            longitude = try FitPlausible.check(FitPosition.degrees(lon), -180...180, message, "position_long")
        }
        altitude = try FitPlausible.check(message.scaled(78, scale: 5, offset: 500) ?? message.scaled(2, scale: 5, offset: 500),
                                          FitPlausible.altitude, message, "altitude")
        // 0 bpm is how several devices say "no reading".
        heartRate = try FitPlausible.check(message.integer(3).map(Int.init).flatMap { $0 == 0 ? nil : $0 }, FitPlausible.heartRate, message, "heart_rate")
        cadence = try FitPlausible.check(message.integer(4).map(Int.init), FitPlausible.cadence, message, "cadence")
        distance = try FitPlausible.check(message.scaled(5, scale: 100), FitPlausible.distance, message, "distance")
        speed = try FitPlausible.check(message.scaled(73, scale: 1000) ?? message.scaled(6, scale: 1000), FitPlausible.speed, message, "speed")
    }

    var fields: [FitOutField] {
        [
            FitOutField(FitDecoder.timestampField, .uint32, .integer(Int64(timestamp))),
            FitOutField(0, .sint32, .integer(latitude.map { Int64(FitPosition.semicircles($0)) })),
            FitOutField(1, .sint32, .integer(longitude.map { Int64(FitPosition.semicircles($0)) })),
            FitOutField(3, .uint8, .integer(heartRate.map(Int64.init))),
            FitOutField(4, .uint8, .integer(cadence.map(Int64.init))),
            FitOutField(5, .uint32, .integer(distance.map { Int64(($0 * 100).rounded()) })),
            FitOutField(73, .uint32, .integer(speed.map { Int64(($0 * 1000).rounded()) })),
            FitOutField(78, .uint32, .integer(altitude.map { Int64((($0 + 500) * 5).rounded()) })),
        ]
    }
}
