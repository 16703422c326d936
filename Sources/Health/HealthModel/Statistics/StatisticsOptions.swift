import FoundationEssentials

/// Which statistics to compute (HealthKit `HKStatisticsOptions`).
///
/// Cumulative types allow only ``sum``; discrete types allow any of ``average``, ``minimum``,
/// ``maximum`` and ``mostRecent``. Mixing the two kinds is an error, as in HealthKit.
public struct StatisticsOptions: OptionSet, Hashable, Sendable {
    public var rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let sum = StatisticsOptions(rawValue: 1 << 0)
    public static let average = StatisticsOptions(rawValue: 1 << 1)
    public static let minimum = StatisticsOptions(rawValue: 1 << 2)
    public static let maximum = StatisticsOptions(rawValue: 1 << 3)
    public static let mostRecent = StatisticsOptions(rawValue: 1 << 4)

    public static let discrete: StatisticsOptions = [.average, .minimum, .maximum, .mostRecent]

    /// The options a type allows when none are asked for: sum, or average for discrete types.
    public static func defaults(for type: QuantityType) -> StatisticsOptions {
        type.aggregation == .cumulative ? .sum : .average
    }

    /// Throws unless every option suits the type's aggregation style.
    public func validate(for type: QuantityType) throws(StatisticsError) {
        if isEmpty { throw StatisticsError.noOptions }
        switch type.aggregation {
        case .cumulative where !subtracting(.sum).isEmpty:
            throw StatisticsError.optionsNotAllowed(type: type, options: subtracting(.sum))
        case .discrete where contains(.sum):
            throw StatisticsError.optionsNotAllowed(type: type, options: .sum)
        default:
            break
        }
    }

    public var names: [String] {
        var names: [String] = []
        if contains(.sum) { names.append("sum") }
        if contains(.average) { names.append("average") }
        if contains(.minimum) { names.append("minimum") }
        if contains(.maximum) { names.append("maximum") }
        if contains(.mostRecent) { names.append("most recent") }
        return names
    }
}

/// A statistics request the type cannot answer.
public enum StatisticsError: Error, Hashable, Sendable, CustomStringConvertible {
    case noOptions
    case optionsNotAllowed(type: QuantityType, options: StatisticsOptions)
    case emptyRange
    /// About `count` buckets of `interval`, more than ``BucketCalendar/maximumBuckets``.
    case tooManyBuckets(interval: BucketInterval, count: Int)

    public var description: String {
        switch self {
        case .noOptions:
            return "no statistic requested"
        case .optionsNotAllowed(let type, let options):
            let allowed = type.aggregation == .cumulative ? "sum" : "average, minimum, maximum, most recent"
            return "\(type) is \(type.aggregation): \(options.names.joined(separator: ", ")) not allowed (allowed: \(allowed))"
        case .emptyRange:
            return "the time range is empty (its end is not after its start)"
        case .tooManyBuckets(let interval, let count):
            return "the range holds about \(count) buckets by \(interval.rawValue), more than the \(BucketCalendar.maximumBuckets) one query may return; "
                + "narrow the range or choose a longer bucket"
        }
    }
}

/// The values of one bucket, merged over sources or for one source. Nil means "no data".
public struct StatisticsValues: Hashable, Sendable {
    public var sum: Double?
    public var average: Double?
    public var minimum: Double?
    public var maximum: Double?
    public var mostRecent: Double?
    public var mostRecentDate: Date?
    /// Discrete statistics: how many samples the bucket holds (0 for sums, which count time, not samples).
    public var sampleCount: Int

    public init(sum: Double? = nil, average: Double? = nil, minimum: Double? = nil, maximum: Double? = nil,
                mostRecent: Double? = nil, mostRecentDate: Date? = nil, sampleCount: Int = 0) {
        self.sum = sum
        self.average = average
        self.minimum = minimum
        self.maximum = maximum
        self.mostRecent = mostRecent
        self.mostRecentDate = mostRecentDate
        self.sampleCount = sampleCount
    }

    /// The value an option asks for (the first of sum, average, minimum, maximum, most recent).
    public func value(for options: StatisticsOptions) -> Double? {
        if options.contains(.sum) { return sum }
        if options.contains(.average) { return average }
        if options.contains(.minimum) { return minimum }
        if options.contains(.maximum) { return maximum }
        if options.contains(.mostRecent) { return mostRecent }
        return nil
    }
}

/// Statistics over one bucket `[start, end)` (HealthKit `HKStatistics`), values in ``unit``.
public struct Statistics: Hashable, Sendable {
    public var start: Date
    public var end: Date
    public var unit: HealthUnit
    /// Merged over every visible source (cumulative types: by source priority, without double counting).
    public var values: StatisticsValues
    /// Per-source values, in priority order, when asked for (HealthKit `.separateBySource`).
    public var bySource: [SourceStatistics]

    public init(start: Date, end: Date, unit: HealthUnit, values: StatisticsValues, bySource: [SourceStatistics] = []) {
        self.start = start
        self.end = end
        self.unit = unit
        self.values = values
        self.bySource = bySource
    }

    public var sum: Double? { values.sum }
    public var average: Double? { values.average }
    public var minimum: Double? { values.minimum }
    public var maximum: Double? { values.maximum }
    public var mostRecent: Double? { values.mostRecent }
}

/// One source's values within a bucket.
public struct SourceStatistics: Hashable, Sendable {
    public var source: String
    public var values: StatisticsValues
    public init(source: String, values: StatisticsValues) {
        self.source = source
        self.values = values
    }
}
