import FoundationEssentials

/// What a day or week chart shows, already read from the store and merged (the `health chart`
/// command and the dashboard fill it; the renderers only draw).
public struct ChartData: Sendable {
    /// Heart rate in one bucket: average, minimum and maximum of the readings in it.
    public struct HeartRate: Hashable, Sendable {
        public var start: Date
        public var end: Date
        public var average: Double
        public var minimum: Double
        public var maximum: Double
        public init(start: Date, end: Date, average: Double, minimum: Double, maximum: Double) {
            self.start = start
            self.end = end
            self.average = average
            self.minimum = minimum
            self.maximum = maximum
        }
    }

    /// A merged sum in one bucket (steps per hour or per day).
    public struct Total: Hashable, Sendable {
        public var start: Date
        public var end: Date
        public var value: Double
        public init(start: Date, end: Date, value: Double) {
            self.start = start
            self.end = end
            self.value = value
        }
    }

    public struct Workout: Hashable, Sendable {
        public var start: Date
        public var end: Date
        public var activity: String
        public init(start: Date, end: Date, activity: String) {
            self.start = start
            self.end = end
            self.activity = activity
        }
    }

    public var title: String
    public var range: Range<Date>
    public var zone: TimeZone
    /// Buckets with readings only, in time order.
    public var heartRate: [HeartRate]
    /// Every bucket of the range (value 0 where nothing was recorded), in time order.
    public var steps: [Total]
    /// The merged sleep timeline (``SleepMerge``), clipped to the range.
    public var sleep: [SleepInterval]
    public var workouts: [Workout]

    public init(title: String, range: Range<Date>, zone: TimeZone, heartRate: [HeartRate], steps: [Total],
                sleep: [SleepInterval], workouts: [Workout]) {
        self.title = title
        self.range = range
        self.zone = zone
        self.heartRate = heartRate
        self.steps = steps
        self.sleep = sleep
        self.workouts = workouts
    }

    /// Whether the range is longer than a day (a week chart): ticks at midnights instead of hours.
    public var isMultiDay: Bool { range.upperBound.timeIntervalSince(range.lowerBound) > 25 * 3600 }
}

/// The local-time axis: ticks at local hours (a day) or local midnights (a week), placed by the
/// instant they fall on, so a 23-hour day has 23 hour ticks and a 25-hour day 25 (its repeated
/// hour labelled twice), and nothing is stretched.
public enum ChartAxis {
    public struct Tick: Hashable, Sendable {
        public var time: Date
        public var label: String
        /// Labelled ticks get text; the others only a grid line.
        public var labelled: Bool
    }

    public static func ticks(for range: Range<Date>, zone: TimeZone, multiDay: Bool) -> [Tick] {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        var ticks: [Tick] = []
        if multiDay {
            var day = calendar.startOfDay(for: range.lowerBound)
            if day < range.lowerBound { day = calendar.date(byAdding: .day, value: 1, to: day) ?? range.upperBound }
            while day < range.upperBound, ticks.count < 400 {
                let parts = calendar.dateComponents([.month, .day, .weekday], from: day)
                let names = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
                let weekday = names[((parts.weekday ?? 1) - 1) % 7]
                ticks.append(Tick(time: day, label: "\(weekday) \(parts.day ?? 0)", labelled: true))
                guard let next = calendar.date(byAdding: .day, value: 1, to: day) else { break }
                day = next
            }
            return ticks
        }
        // Every local full hour in the range: step an hour of physical time from the first one.
        let firstMinute = calendar.component(.minute, from: range.lowerBound)
        let firstSecond = calendar.component(.second, from: range.lowerBound)
        var time = range.lowerBound.addingTimeInterval(firstMinute == 0 && firstSecond == 0 ? 0 : TimeInterval(3600 - firstMinute * 60 - firstSecond))
        while time < range.upperBound, ticks.count < 400 {
            let hour = calendar.component(.hour, from: time)
            ticks.append(Tick(time: time, label: hour < 10 ? "0\(hour)" : String(hour), labelled: hour % 3 == 0))
            time = time.addingTimeInterval(3600)
        }
        return ticks
    }
}
