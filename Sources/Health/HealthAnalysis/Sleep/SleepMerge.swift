import FoundationEssentials

/// One stored sleep-analysis sample as the merge sees it.
public struct SleepInterval: Hashable, Sendable {
    public var start: Date
    public var end: Date
    public var value: SleepValue
    /// Position of the sample's source in the priority order for sleep; lower wins.
    public var rank: Int
    /// Among equal ranks the more recently written wins (the store's change anchor).
    public var recency: Int64

    public init(start: Date, end: Date, value: SleepValue, rank: Int, recency: Int64 = 0) {
        self.start = start
        self.end = end
        self.value = value
        self.rank = rank
        self.recency = recency
    }
}

/// A night's sleep from every source, each moment counted once (`health sleep`).
public struct SleepSummary: Hashable, Sendable {
    /// The merged timeline: consecutive stretches with their value, no overlaps, in time order.
    public var timeline: [SleepInterval]
    /// Seconds covered by any sleep sample of the winning sources (HealthKit's "in bed").
    public var inBed: Double
    /// Seconds whose winning value is one of the asleep values.
    public var asleep: Double
    /// Seconds scored awake inside the night.
    public var awake: Double
    /// Awake stretches with sleep before and after them.
    public var awakenings: Int
    /// asleep / inBed, nil when nothing was in bed.
    public var efficiency: Double? { inBed > 0 ? asleep / inBed : nil }
    public var start: Date? { timeline.first?.start }
    public var end: Date? { timeline.last?.end }
}

/// Merges sleep samples from several sources the way statistics merge steps (HealthKit's source
/// priority, the sweep of Health Connect's `PriorityRecordsAggregator`, which lists sleep among
/// the priority-merged categories): between two consecutive sample borders the best open
/// source (lowest rank, then most recent) alone says what the wearer did, so sleep two devices
/// both recorded is counted once. Within that source a specific value (asleep, awake) wins over
/// the `inBed` sample it sits inside, as HealthKit apps nest them.
public enum SleepMerge {
    public static func summary(_ samples: [SleepInterval], clippedTo window: Range<Date>? = nil) -> SleepSummary {
        var clipped: [SleepInterval] = []
        clipped.reserveCapacity(samples.count)
        for var sample in samples {
            if let window {
                sample.start = max(sample.start, window.lowerBound)
                sample.end = min(sample.end, window.upperBound)
            }
            if sample.end > sample.start { clipped.append(sample) }
        }
        var borders = Set<Date>()
        for sample in clipped { borders.insert(sample.start); borders.insert(sample.end) }
        let times = borders.sorted()
        let byStart = clipped.sorted { $0.start < $1.start }
        var timeline: [SleepInterval] = []
        var open: [SleepInterval] = []
        var next = 0
        for (position, time) in times.enumerated().dropLast() {
            let segmentEnd = times[position + 1]
            open.removeAll { $0.end <= time }
            while next < byStart.count, byStart[next].start <= time {
                if byStart[next].end > time { open.append(byStart[next]) }
                next += 1
            }
            guard let best = open.min(by: { ($0.rank, -$0.recency) < ($1.rank, -$1.recency) }) else { continue }
            let fromBest = open.filter { $0.rank == best.rank }
            let value = fromBest.first(where: { $0.value.isAsleep })?.value
                ?? fromBest.first(where: { $0.value == .awake })?.value ?? best.value
            if var last = timeline.last, last.end == time, last.value == value, last.rank == best.rank {
                last.end = segmentEnd
                timeline[timeline.count - 1] = last
            } else {
                timeline.append(SleepInterval(start: time, end: segmentEnd, value: value, rank: best.rank, recency: best.recency))
            }
        }
        var inBed = 0.0, asleep = 0.0, awake = 0.0
        for stretch in timeline {
            // Whole milliseconds: Date differences carry binary noise (32400.000000004 s).
            let seconds = (stretch.end.timeIntervalSince(stretch.start) * 1000).rounded() / 1000
            inBed += seconds
            if stretch.value.isAsleep { asleep += seconds }
            if stretch.value == .awake { awake += seconds }
        }
        // Awakenings: awake stretches between two asleep ones (stages and sources alternating
        // inside one sleep do not count; only waking does).
        var awakenings = 0
        var sawSleep = false
        var awakeSinceSleep = false
        for stretch in timeline {
            if stretch.value.isAsleep {
                if sawSleep && awakeSinceSleep { awakenings += 1 }
                sawSleep = true
                awakeSinceSleep = false
            } else if stretch.value == .awake {
                awakeSinceSleep = true
            }
        }
        func milliseconds(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }
        return SleepSummary(timeline: timeline, inBed: milliseconds(inBed), asleep: milliseconds(asleep),
                            awake: milliseconds(awake), awakenings: awakenings)
    }
}
