/// Folds live readings into the current minute of the band's clock and hands back each minute
/// when the next one starts.
///
/// Readings are filed under the minute their band time falls in. A reading stamped earlier than
/// the open minute (a late notification) is filed under the open minute rather than reopening a
/// closed one, which would write the same minute twice; the band's history record replaces the
/// live minute either way.
public struct MinuteAggregator: Sendable {
    public private(set) var current: LiveMinute?
    /// Bound on the RR intervals kept per minute: 300 bpm for a minute, more than a heart beats.
    public static let maximumRRIntervalsPerMinute = 300

    public init() {}

    /// Adds the activity between two counter readings, stamped with the later one's time.
    /// `receivedAt` (the reader's time, milliseconds since 1970) names the stream's part of a
    /// minute it opens (``LiveMinute/part``); nil uses the band time.
    public mutating func add(_ delta: CounterDelta, at time: UInt32, utcOffsetSeconds: Int?, receivedAt: Int64? = nil) -> LiveMinute? {
        let closed = advance(to: time, utcOffsetSeconds: utcOffsetSeconds, receivedAt: receivedAt)
        current!.activity.steps &+= delta.steps
        current!.activity.distanceDecimetres &+= delta.distanceDecimetres
        current!.activity.energyDecikilocalories &+= delta.energyDecikilocalories
        return closed
    }

    /// Adds steps from a daily running total (``StepCountTracker``), and the total after them.
    public mutating func add(countedSteps steps: UInt32, total: StepCountState, at time: UInt32, utcOffsetSeconds: Int?,
                             receivedAt: Int64? = nil) -> LiveMinute? {
        let closed = advance(to: time, utcOffsetSeconds: utcOffsetSeconds, receivedAt: receivedAt)
        current!.countedSteps &+= steps
        current!.stepCountEnd = total
        return closed
    }

    /// Adds one Heart Rate Measurement: its rate and any RR intervals it carried, and the growth
    /// of its Energy Expended. With `contact` false (the sensor said it has no skin contact) the
    /// rate is only counted as such and its intervals are left out.
    public mutating func add<Intervals: Sequence<UInt16>>(heartRate bpm: Int?, rrIntervals: Intervals, at time: UInt32,
                                                          utcOffsetSeconds: Int?, contact: Bool = true, energyKilojoules: Int = 0,
                                                          receivedAt: Int64? = nil) -> LiveMinute? {
        let closed = advance(to: time, utcOffsetSeconds: utcOffsetSeconds, receivedAt: receivedAt)
        current!.energyKilojoules += energyKilojoules
        guard contact else {
            if let bpm, bpm > 0 { current!.heartRate.addWithoutContact() }
            return closed
        }
        if let bpm, bpm > 0 { current!.heartRate.add(bpm) }
        for interval in rrIntervals where current!.rrIntervals.count < Self.maximumRRIntervalsPerMinute {
            current!.rrIntervals.append(interval)
        }
        return closed
    }

    /// Closes the open minute (the stream is stopping): returns it if it holds anything.
    public mutating func flush() -> LiveMinute? {
        defer { current = nil }
        guard let current, !current.isEmpty else { return nil }
        return current
    }

    /// Opens the minute `time` falls in if it is later than the open one; returns the closed one.
    private mutating func advance(to time: UInt32, utcOffsetSeconds: Int?, receivedAt: Int64?) -> LiveMinute? {
        let start = time - time % 60
        let part = receivedAt ?? Int64(time) * 1000
        guard let open = current else {
            current = LiveMinute(start: start, utcOffsetSeconds: utcOffsetSeconds)
            current!.part = part
            current!.rrIntervals.reserveCapacity(Self.maximumRRIntervalsPerMinute)
            return nil
        }
        guard start > open.start else { return nil }
        var next = LiveMinute(start: start, utcOffsetSeconds: utcOffsetSeconds)
        next.part = part
        next.rrIntervals.reserveCapacity(Self.maximumRRIntervalsPerMinute)
        current = next
        return open.isEmpty ? nil : open
    }
}
