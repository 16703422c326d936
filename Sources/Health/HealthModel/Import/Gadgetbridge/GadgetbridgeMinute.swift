import FoundationEssentials

/// One row of a Gadgetbridge activity-sample table (TIMESTAMP in Unix seconds, STEPS,
/// HEART_RATE, RAW_KIND), checked before anything is made of it.
public struct GadgetbridgeMinute: Sendable, Hashable {
    public var timestamp: Int64
    public var steps: Int64?
    public var heartRate: Int64?
    public var rawKind: Int64?

    public init(timestamp: Int64, steps: Int64?, heartRate: Int64?, rawKind: Int64?) {
        self.timestamp = timestamp
        self.steps = steps
        self.heartRate = heartRate
        self.rawKind = rawKind
    }

    /// Why a row cannot be a minute a band measured. Such a row is skipped whole and counted.
    public enum Problem: String, Sendable, Hashable, CaseIterable, Comparable {
        case millisecondTimestamp = "timestamp in milliseconds"
        case timestampBefore2000 = "timestamp before 2000"
        case futureTimestamp = "timestamp in the future"
        case timestampNotInteger = "timestamp not an integer"
        case negativeSteps = "negative steps"
        case implausibleSteps = "more than 1000 steps in a minute"
        case implausibleHeartRate = "heart rate outside 20…250"

        public static func < (a: Problem, b: Problem) -> Bool { a.rawValue < b.rawValue }
    }

    /// 2000-01-01: Gadgetbridge (2015) and every band it reads are younger; 0 and small
    /// values are unset clocks.
    static let earliest: Int64 = 946_684_800
    /// Anything from 1e11 on read as seconds is after the year 5000, as milliseconds 1973 on:
    /// a row written in the wrong unit.
    static let millisecondsFrom: Int64 = 100_000_000_000

    /// What is wrong with the row, or nil. `now` bounds the future (a day of clock skew allowed).
    public func problem(now: Date) -> Problem? {
        if timestamp >= Self.millisecondsFrom { return .millisecondTimestamp }
        if timestamp < Self.earliest { return .timestampBefore2000 }
        if Double(timestamp) > now.timeIntervalSince1970 + 86_400 { return .futureTimestamp }
        if let steps, steps < 0 { return .negativeSteps }
        if let steps, steps > 1000 { return .implausibleSteps }
        if let heartRate, !Self.isNoReading(heartRate), !(20...250).contains(heartRate) { return .implausibleHeartRate }
        return nil
    }

    /// Gadgetbridge writes 0 or 255 (some devices -1) where the band took no reading.
    public static func isNoReading(_ heartRate: Int64) -> Bool { heartRate == 0 || heartRate == 255 || heartRate == -1 }

    /// The heart rate when the band took a reading.
    public var measuredHeartRate: Int64? {
        guard let heartRate, !Self.isNoReading(heartRate) else { return nil }
        return heartRate
    }
}
