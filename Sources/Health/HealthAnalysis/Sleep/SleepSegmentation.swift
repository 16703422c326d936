/// The HealthKit sleep-analysis values BandKit's scoring writes (`HKCategoryValueSleepAnalysis`
/// raw values; see `CategoryType.sleepAnalysis` for all six).
public enum SleepValue: Int, Hashable, Sendable, CaseIterable {
    case inBed = 0
    case asleepUnspecified = 1
    case awake = 2
    case asleepCore = 3
    case asleepDeep = 4
    case asleepREM = 5

    /// Any of HealthKit's asleep values (unspecified or a stage).
    public var isAsleep: Bool {
        switch self {
        case .asleepUnspecified, .asleepCore, .asleepDeep, .asleepREM: true
        case .inBed, .awake: false
        }
    }
}

/// One stretch of a night in minutes from the window's first minute: `[start, end)`.
public struct SleepSegment: Hashable, Sendable {
    public var value: SleepValue
    public var start: Int
    public var end: Int

    public init(value: SleepValue, start: Int, end: Int) {
        self.value = value
        self.start = start
        self.end = end
    }
}

/// Scored minutes → the samples a night is stored as, the way HealthKit apps store sleep: one
/// `inBed` sample over each sleep period and, inside it, `asleepUnspecified` and `awake` samples
/// that tile it.
///
/// A sleep period is a cluster of asleep minutes: runs of sleep separated by at most
/// ``maximumWakeInside`` minutes awake (a longer wake means the wearer got up), not broken by
/// more than ``maximumUnknownInside`` minutes without a record (band off), holding at least
/// ``minimumAsleep`` asleep minutes (less is dozing in a chair, not a night or a nap).
///
/// A band cannot see a bed: the period starts at the first minute asleep and ends after the
/// last, so "in bed" here is the sleep period and sleep latency (time in bed before falling
/// asleep) is not measured. Unknown minutes inside a period are left out of every segment.
public enum SleepSegmentation {
    public static let maximumWakeInside = 60
    public static let maximumUnknownInside = 10
    public static let minimumAsleep = 20

    public static func segments(_ states: [SleepState]) -> [SleepSegment] {
        var out: [SleepSegment] = []
        for period in periods(states) {
            out.append(SleepSegment(value: .inBed, start: period.lowerBound, end: period.upperBound))
            var index = period.lowerBound
            while index < period.upperBound {
                let state = states[index]
                var end = index + 1
                while end < period.upperBound, states[end] == state { end += 1 }
                switch state {
                case .asleep: out.append(SleepSegment(value: .asleepUnspecified, start: index, end: end))
                case .awake: out.append(SleepSegment(value: .awake, start: index, end: end))
                case .unknown: break
                }
                index = end
            }
        }
        return out
    }

    /// The sleep periods, as minute ranges.
    public static func periods(_ states: [SleepState]) -> [Range<Int>] {
        var periods: [Range<Int>] = []
        var current: Range<Int>? = nil
        var asleepInCurrent = 0
        func close() {
            if let period = current, asleepInCurrent >= minimumAsleep { periods.append(period) }
            current = nil
            asleepInCurrent = 0
        }
        var gapAwake = 0
        var gapUnknown = 0
        for (index, state) in states.enumerated() {
            switch state {
            case .asleep:
                if current != nil, gapAwake <= maximumWakeInside, gapUnknown <= maximumUnknownInside {
                    current = current!.lowerBound..<(index + 1)
                } else {
                    close()
                    current = index..<(index + 1)
                }
                asleepInCurrent += 1
                gapAwake = 0
                gapUnknown = 0
            case .awake: gapAwake += 1
            case .unknown: gapUnknown += 1
            }
        }
        close()
        return periods
    }
}
