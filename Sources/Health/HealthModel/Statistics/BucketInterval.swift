import FoundationEssentials

/// The length of statistics buckets (HealthKit collection `intervalComponents`).
///
/// Minutes and hours are fixed durations; days, weeks and months are calendar periods in the
/// query's time zone, so a day is 23 or 25 hours long across a daylight-saving change.
public enum BucketInterval: String, Hashable, Sendable, CaseIterable {
    case minute, hour, day, week, month

    var fixedMicroseconds: Int64? {
        switch self {
        case .minute: 60_000_000
        case .hour: 3_600_000_000
        default: nil
        }
    }

    var calendarComponent: Calendar.Component {
        switch self {
        case .minute: .minute
        case .hour: .hour
        case .day: .day
        case .week: .weekOfYear
        case .month: .month
        }
    }
}

/// Splits a time range into statistics buckets.
public enum BucketCalendar {
    /// The most buckets one statistics query returns: a leap year by minute (527,040) fits,
    /// 1900–2099 by minute (105 million, gigabytes held at once) does not. Every bucket is held
    /// in memory until the answer is complete, so a wider request is refused, not attempted.
    public static let maximumBuckets = 600_000

    /// At least as many buckets as ``borders(range:interval:anchor:timeZone:)`` would make, found
    /// without making them: the range over the shortest a bucket can be (a day of 23 hours, a
    /// month of 28 days less an hour), plus the two clipped edges.
    public static func bucketCountBound(range: Range<Date>, interval: BucketInterval?) -> Int {
        guard let interval, range.lowerBound < range.upperBound else { return 1 }
        let shortest: Double = switch interval {
        case .minute: 60
        case .hour: 3_600
        case .day: 23 * 3_600
        case .week: 7 * 86_400 - 3_600
        case .month: 28 * 86_400 - 3_600
        }
        let count = (range.upperBound.timeIntervalSince(range.lowerBound) / shortest).rounded(.up) + 2
        return count < Double(Int.max / 2) ? Int(count) : Int.max / 2
    }

    /// Why statistics over `range` by `interval` would make too many buckets, or nil.
    public static func tooManyBuckets(range: Range<Date>, interval: BucketInterval?) -> StatisticsError? {
        let bound = bucketCountBound(range: range, interval: interval)
        guard bound > maximumBuckets, let interval else { return nil }
        return .tooManyBuckets(interval: interval, count: bound)
    }

    /// The Gregorian calendar in `timeZone`, weeks starting on Monday (ISO 8601).
    public static func calendar(in timeZone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        calendar.firstWeekday = 2
        calendar.minimumDaysInFirstWeek = 4
        return calendar
    }

    /// The default anchor: the start of the period containing `date` (local midnight for
    /// minutes, hours and days; Monday 00:00 for weeks; the 1st 00:00 for months).
    public static func defaultAnchor(for date: Date, interval: BucketInterval, calendar: Calendar) -> Date {
        switch interval {
        case .minute, .hour, .day: return calendar.startOfDay(for: date)
        case .week: return calendar.dateInterval(of: .weekOfYear, for: date)?.start ?? calendar.startOfDay(for: date)
        case .month: return calendar.dateInterval(of: .month, for: date)?.start ?? calendar.startOfDay(for: date)
        }
    }

    /// Bucket borders in microseconds: the first is `range.lowerBound`, the last `range.upperBound`,
    /// and in between every border `anchor + n × interval` strictly inside the range. Buckets at the
    /// edges are clipped to the range, never extended beyond it. Without an interval the whole
    /// range is one bucket.
    public static func borders(range: Range<Date>, interval: BucketInterval?, anchor: Date? = nil,
                               timeZone: TimeZone) -> [Int64] {
        let from = range.lowerBound.microsecondsSince1970
        let to = range.upperBound.microsecondsSince1970
        guard from < to else { return [from, max(from, to)] }
        guard let interval else { return [from, to] }
        let calendar = calendar(in: timeZone)
        let anchorDate = anchor ?? defaultAnchor(for: range.lowerBound, interval: interval, calendar: calendar)
        var borders: [Int64] = [from]
        if let step = interval.fixedMicroseconds {
            let phase = anchorDate.microsecondsSince1970
            // First border strictly after `from` that is congruent to the anchor.
            var offset = (from - phase) % step
            if offset < 0 { offset += step }
            var border = from - offset + step
            borders.reserveCapacity(Int((to - from) / step) + 2)
            while border < to {
                borders.append(border)
                border += step
            }
        } else {
            // Count whole periods from the anchor: estimate, then step to the first border after `from`.
            let nominal: Double = interval == .day ? 86_400 : interval == .week ? 604_800 : 2_629_746
            var n = Int((range.lowerBound.timeIntervalSince(anchorDate) / nominal).rounded(.down)) - 1
            func border(_ n: Int) -> Date {
                calendar.date(byAdding: interval.calendarComponent, value: n, to: anchorDate) ?? anchorDate
            }
            while border(n) > range.lowerBound { n -= 1 }
            while border(n + 1) <= range.lowerBound { n += 1 }
            n += 1
            while true {
                let next = border(n).microsecondsSince1970
                if next >= to { break }
                if next > borders.last! { borders.append(next) }
                n += 1
            }
        }
        borders.append(to)
        return borders
    }
}
