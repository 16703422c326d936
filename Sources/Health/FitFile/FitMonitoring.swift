import BandWire

/// A monitoring file read into intervals: steps and active energy between two readings of the
/// device's daily counters, and heart-rate readings.
public struct FitMonitoring: Hashable, Sendable {
    public enum Quantity: Hashable, Sendable { case steps, activeKilocalories }

    public struct Interval: Hashable, Sendable {
        public var quantity: Quantity
        /// FIT seconds.
        public var start: UInt32
        public var end: UInt32
        public var value: Double

        public init(quantity: Quantity, start: UInt32, end: UInt32, value: Double) {
            self.quantity = quantity
            self.start = start
            self.end = end
            self.value = value
        }
    }

    public struct HeartRate: Hashable, Sendable {
        public var timestamp: UInt32
        public var beatsPerMinute: Int

        public init(timestamp: UInt32, beatsPerMinute: Int) {
            self.timestamp = timestamp
            self.beatsPerMinute = beatsPerMinute
        }
    }

    public var identity: FitFileIdentity
    public var intervals: [Interval]
    public var heartRates: [HeartRate]

    public init(identity: FitFileIdentity, intervals: [Interval], heartRates: [HeartRate]) {
        self.identity = identity
        self.intervals = intervals
        self.heartRates = heartRates
    }
}

/// Turns cumulative counters into intervals. `cycles` (steps while walking or running) is counted
/// per activity type and `active_calories` across them; both restart at the device's local midnight,
/// so a reading below the previous one starts a new day and counts from zero. The first reading of
/// each counter in a file is its baseline: what came before it belongs to an earlier file.
struct FitMonitoringBuilder {
    private var lastTimestamp: UInt32?
    private var counters: [Int64: (time: UInt32, value: Int64)] = [:]
    private var intervals: [FitMonitoring.Interval] = []
    private var heartRates: [FitMonitoring.HeartRate] = []
    private static let activeCaloriesKey: Int64 = -1
    private static let stepActivityTypes: Set<Int64> = [1, 6]  // running, walking

    mutating func add(_ message: FitMessage) throws(ParseError) {
        var time = message.timestamp
        if time == nil, let short = message.integer(26) {
            guard let last = lastTimestamp else {
                throw ParseError(.invalidValue, at: message.offset, field: "timestamp_16 before any timestamp")
            }
            time = last &+ ((UInt32(truncatingIfNeeded: short) &- (last & 0xFFFF)) & 0xFFFF)
        }
        guard let time else { return }
        lastTimestamp = time
        guard message.globalNumber == FitMessageNumber.monitoring else { return }
        if let activity = message.integer(5), Self.stepActivityTypes.contains(activity), let cycles = message.integer(3) {
            try count(.steps, key: activity, value: cycles, at: time, message, limit: 100_000)
        }
        if let calories = message.integer(19) {
            try count(.activeKilocalories, key: Self.activeCaloriesKey, value: calories, at: time, message, limit: 20_000)
        }
        if let rate = message.integer(27), rate != 0 {
            guard FitPlausible.heartRate.contains(Int(rate)) else { throw ParseError(.invalidValue, at: message.offset, field: "heart_rate") }
            heartRates.append(.init(timestamp: time, beatsPerMinute: Int(rate)))
        }
    }

    private mutating func count(_ quantity: FitMonitoring.Quantity, key: Int64, value: Int64, at time: UInt32,
                                _ message: FitMessage, limit: Int64) throws(ParseError) {
        defer { counters[key] = (time, value) }
        guard let previous = counters[key] else { return }
        guard time >= previous.time else { throw ParseError(.invalidValue, at: message.offset, field: "timestamp before the previous reading") }
        let delta = value >= previous.value ? value - previous.value : value
        guard delta <= limit else { throw ParseError(.invalidValue, at: message.offset, field: quantity == .steps ? "cycles" : "active_calories") }
        guard delta > 0 else { return }
        intervals.append(.init(quantity: quantity, start: previous.time, end: time, value: Double(delta)))
    }

    func finish(identity: FitFileIdentity) -> FitMonitoring {
        FitMonitoring(identity: identity, intervals: intervals, heartRates: heartRates)
    }
}
