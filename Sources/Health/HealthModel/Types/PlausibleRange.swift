import FoundationEssentials

/// What a sample may be: the bounds every sample's times obey, and per type the longest
/// interval and the range of values (in the type's canonical unit) a measurement of a person
/// can have. Documented in docs/architecture.md ("Plausible ranges").
///
/// Why bounds at all: one import line from year 0000 to 9999 cost 176 s, 3.9 GB and a
/// 2.3 GB store (a merged-hour row per hour it touched), and widened every later scan of the
/// type by its duration. With these bounds the largest accepted sample touches at most
/// 7 × 24 + 1 merged hours, and a query looks back at most 7 days past its range.
///
/// The value ranges are deliberately wider than any physiological filter (the reader drops
/// implausible readings itself, before they reach the store): they refuse what cannot be a
/// measurement of a living person (negative steps or heart rate, 1e300 steps, a height of
/// 1e-200 m), not what is merely unusual.
public struct PlausibleRange: Sendable, Hashable {
    /// Allowed values in the type's canonical unit.
    public var values: ClosedRange<Double>
    /// The longest `end − start`, in seconds.
    public var maximumDuration: Double

    /// 1900-01-01T00:00:00Z: before it no sample can be a measurement taken by a device or
    /// entered for a living person's record (the oldest living people were born after 1900).
    public static let earliest = Date(timeIntervalSince1970: -2_208_988_800)
    /// 2100-01-01T00:00:00Z (exclusive for `end`): far beyond any clock error a band or a
    /// phone has, while a mistyped year (2206, 9999) is refused.
    public static let latest = Date(timeIntervalSince1970: 4_102_444_800)

    static let day: Double = 86_400
    /// Cumulative samples: a week. Apps write totals per minute, hour or day; a week covers a
    /// weekly summary and bounds the merged hours (169) and the look-back of every query.
    static let cumulativeDuration = 7 * day
    /// Discrete samples: a day (an average over a day, a resting heart rate of a day).
    static let discreteDuration = day

    /// Why `start...end` is outside the bounds, or nil.
    public static func problem(start: Date, end: Date, maximumDuration: Double) -> String? {
        if start < earliest || start >= latest {
            return "start \(TimeParsing.format(start, utcOffsetSeconds: 0)) is outside 1900-01-01T00:00:00Z ..< 2100-01-01T00:00:00Z"
        }
        if end > latest {
            return "end \(TimeParsing.format(end, utcOffsetSeconds: 0)) is after 2100-01-01T00:00:00Z"
        }
        let duration = end.timeIntervalSince(start)
        if duration > maximumDuration {
            return "lasts \(describe(duration)), longer than the \(describe(maximumDuration)) a sample of this type may cover"
        }
        return nil
    }

    /// Why `value` is outside ``values``, or nil.
    public func problem(value: Double, unit: HealthUnit) -> String? {
        guard value.isFinite else { return "is not a finite number" }
        guard values.contains(value) else {
            return "\(Self.number(value)) \(unit) is outside the plausible \(Self.number(values.lowerBound))...\(Self.number(values.upperBound)) \(unit)"
        }
        return nil
    }

    static func describe(_ seconds: Double) -> String {
        if seconds >= day, seconds.truncatingRemainder(dividingBy: day) == 0 { return "\(Int(seconds / day)) d" }
        if seconds >= 3600, seconds.truncatingRemainder(dividingBy: 3600) == 0 { return "\(Int(seconds / 3600)) h" }
        return seconds < 1e15 ? "\(Int64(seconds)) s" : "\(seconds) s"
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
    }
}

extension QuantityType {
    /// The plausible values and longest interval of a sample of this type (canonical unit).
    ///
    /// | type | values | longest | why |
    /// |---|---|---|---|
    /// | step-count | 0 … 1 000 000 | 7 d | a week of 100 000 steps a day, with room |
    /// | distance-walking-running | 0 … 1 000 km | 7 d | multi-day ultramarathons cover ~ 900 km a week |
    /// | distance-cycling | 0 … 6 000 km | 7 d | Race Across America: ~ 4 800 km in about 8 days |
    /// | active-energy-burned | 0 … 100 000 kcal | 7 d | extreme endurance days burn ~ 10 000 kcal |
    /// | basal-energy-burned | 0 … 50 000 kcal | 7 d | basal metabolism stays below ~ 5 000 kcal a day |
    /// | flights-climbed | 0 … 100 000 | 7 d | Everesting on stairs is ~ 3 000 flights |
    /// | heart-rate, resting-heart-rate | 1 … 480 /min | 1 d | 480 /min is the fastest human rate on record (Chhabra et al., Indian Pacing Electrophysiol J 2012) |
    /// | heart-rate-variability-sdnn | 0 … 2 000 ms | 1 d | RR intervals lie within 0.2–4 s, so their SD cannot reach 2 s |
    /// | height | 0.2 … 3 m | 1 d | newborns from ~ 0.25 m; the tallest person measured 2.72 m |
    /// | body-mass | 0.2 … 700 kg | 1 d | newborns from ~ 0.25 kg; the heaviest recorded ~ 635 kg |
    /// | body-mass-index | 1 … 300 | 1 d | the heaviest recorded people had a BMI near 200 |
    /// | body-temperature | 10 … 50 °C | 1 d | survived extremes: 13.7 °C and 46.5 °C |
    public var plausibleRange: PlausibleRange {
        let cumulative = PlausibleRange.cumulativeDuration, discrete = PlausibleRange.discreteDuration
        switch identifier {
        case QuantityType.stepCount.identifier: return PlausibleRange(values: 0...1_000_000, maximumDuration: cumulative)
        case QuantityType.distanceWalkingRunning.identifier: return PlausibleRange(values: 0...1_000_000, maximumDuration: cumulative)
        case QuantityType.distanceCycling.identifier: return PlausibleRange(values: 0...6_000_000, maximumDuration: cumulative)
        case QuantityType.activeEnergyBurned.identifier: return PlausibleRange(values: 0...100_000, maximumDuration: cumulative)
        case QuantityType.basalEnergyBurned.identifier: return PlausibleRange(values: 0...50_000, maximumDuration: cumulative)
        case QuantityType.flightsClimbed.identifier: return PlausibleRange(values: 0...100_000, maximumDuration: cumulative)
        case QuantityType.heartRate.identifier, QuantityType.restingHeartRate.identifier:
            return PlausibleRange(values: 1...480, maximumDuration: discrete)
        case QuantityType.heartRateVariabilitySDNN.identifier: return PlausibleRange(values: 0...2_000, maximumDuration: discrete)
        case QuantityType.height.identifier: return PlausibleRange(values: 0.2...3, maximumDuration: discrete)
        case QuantityType.bodyMass.identifier: return PlausibleRange(values: 0.2...700, maximumDuration: discrete)
        case QuantityType.bodyMassIndex.identifier: return PlausibleRange(values: 1...300, maximumDuration: discrete)
        case QuantityType.bodyTemperature.identifier: return PlausibleRange(values: 10...50, maximumDuration: discrete)
        default:
            return PlausibleRange(values: 0...1_000_000, maximumDuration: aggregation == .cumulative ? cumulative : discrete)
        }
    }
}

extension SampleType {
    /// The longest interval a sample of this type may cover, in seconds: a quantity type's
    /// ``PlausibleRange/maximumDuration``, an hour for a stand hour, a day for a sleep stage (a
    /// night in bed is one sample), a week for a workout.
    public var maximumDuration: Double {
        switch self {
        case .quantity(let type): type.plausibleRange.maximumDuration
        case .category(let type): type == .sleepAnalysis ? 86_400 : 3600
        case .workout: PlausibleRange.cumulativeDuration
        }
    }
}
