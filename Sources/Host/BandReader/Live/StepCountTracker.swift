/// The last step total a reader saw from a device whose only step figure is a running total for
/// the day (InfiniTime's Motion step count): what it was, when, and on which of the device's
/// local days. Kept in the store's app state with the samples it accounts for (``SampleWriter``),
/// so a restarted reader continues from exactly what was committed.
public struct StepCountState: Equatable, Sendable {
    public var total: UInt32
    /// When it was seen: the device's clock as the reader knows it, seconds since 1970 (UTC).
    public var time: UInt32
    /// The device's local day then (days since 1970 on its local calendar).
    public var localDay: Int64

    public init(total: UInt32, time: UInt32, localDay: Int64) {
        self.total = total
        self.time = time
        self.localDay = localDay
    }

    /// `"<total> <time> <localDay>"`.
    public var stored: String { "\(total) \(time) \(localDay)" }

    public init?(stored: String) {
        let fields = stored.split(separator: " ")
        guard fields.count == 3, let total = UInt32(fields[0]), let time = UInt32(fields[1]), let day = Int64(fields[2]) else { return nil }
        self.init(total: total, time: time, localDay: day)
    }
}

/// Turns a device's daily running step total into step counts that are never negative and
/// never counted twice, with no I/O:
///
/// | reading | while | outcome |
/// |---|---|---|
/// | first of a connection | nothing stored for the device | the total as one gap from the device's local midnight (the count runs from midnight, or from a later reboot) |
/// | first of a connection | same local day, total ≥ last seen | the growth as one gap from the last reading seen (nothing if none) |
/// | first of a connection | same local day, total < last seen | a reboot while away: the total (counted since the reboot) as one gap; what it counted between the last reading and the reboot is gone from the watch and is not invented |
/// | first of a connection | a later local day | midnight passed while away: the total as one gap from that midnight (or the last reading, if later); the rest of the old day is gone from BLE |
/// | first of a connection | an earlier local day | the device's clock went back: no sample, the reading is the new baseline |
/// | later | total ≥ previous | the difference, in the reading's minute |
/// | later | total < previous | a reset (local midnight; a reboot drops the link first): the total, counted since the reset, in the reading's minute; the reading belongs to the next local day whatever the reader's estimate of the device's clock says |
///
/// A reboot while away after which the wearer walked past the old total cannot be told from
/// plain growth; it is counted as the growth (too few steps, never too many). The other way
/// round, a device clock moved forward past a midnight between two connections (a watch whose
/// clock was a day behind, then set) looks like a midnight reset and its whole total is counted
/// once more; the reader sets the clock at every connect, so only the first connection after
/// such a clock error can do this.
public struct StepCountTracker: Sendable {
    public enum Outcome: Equatable, Sendable {
        /// The first reading: it only sets the baseline.
        case baseline
        case unchanged
        /// Steps taken since the previous reading of this connection.
        case steps(UInt32)
        /// Steps taken while the reader was not connected (or before it first saw the device):
        /// one span, no per-minute shape.
        case gap(steps: UInt32, from: UInt32, to: UInt32, reason: GapReason)
    }

    public enum GapReason: String, Sendable {
        case firstSight = "first-sight"
        case away
        case rebootWhileAway = "reboot"
        case midnightWhileAway = "midnight"
    }

    /// The last reading accounted for (stored, or seen on this connection).
    public private(set) var last: StepCountState?
    /// Whether this connection has produced a reading yet.
    private var connected = false
    /// The device's local day at this connection's first reading plus the resets seen since.
    private var dayByResets: Int64 = 0

    public init(stored: StepCountState?) {
        last = stored
    }

    /// A new connection: its first reading is compared with what was last accounted for.
    public mutating func reconnected() { connected = false }

    /// One reading of the running total at `time` (device clock, UTC seconds) in a zone
    /// `utcOffsetSeconds` east of UTC.
    public mutating func observe(total: UInt32, at time: UInt32, utcOffsetSeconds: Int) -> Outcome {
        let isFirst = !connected
        connected = true
        var day = (Int64(time) + Int64(utcOffsetSeconds)).floorDivided(by: 86_400)
        if isFirst {
            dayByResets = day
        } else if let previous = last, total < previous.total {
            // A reset within a connection is the device's midnight (a reboot drops the link).
            dayByResets += 1
        }
        // The day a total belongs to is at least the connection's first day plus the resets seen
        // since: a reader whose estimate of the device's clock lags (a clock running fast, set by
        // hand, another zone) would otherwise file post-midnight totals under the old day, and
        // the next connection would count them again as "midnight while away".
        if !isFirst { day = max(day, dayByResets) }
        let now = StepCountState(total: total, time: time, localDay: day)
        defer { last = now }
        guard let previous = last else {
            guard total > 0 else { return .baseline }
            let midnight = UInt32(clamping: day * 86_400 - Int64(utcOffsetSeconds))
            return .gap(steps: total, from: min(midnight, time), to: time, reason: .firstSight)
        }
        guard isFirst else {
            if total >= previous.total { return total == previous.total ? .unchanged : .steps(total - previous.total) }
            return total == 0 ? .unchanged : .steps(total)
        }
        if day < previous.localDay || time < previous.time { return .baseline }
        if day > previous.localDay {
            guard total > 0 else { return .unchanged }
            let midnight = UInt32(clamping: day * 86_400 - Int64(utcOffsetSeconds))
            return .gap(steps: total, from: min(max(midnight, previous.time), time), to: time, reason: .midnightWhileAway)
        }
        if total < previous.total {
            return total == 0 ? .unchanged : .gap(steps: total, from: previous.time, to: time, reason: .rebootWhileAway)
        }
        return total == previous.total ? .unchanged : .gap(steps: total - previous.total, from: previous.time, to: time, reason: .away)
    }
}

extension Int64 {
    /// Division rounding toward −∞.
    func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}

/// Steps a running total grew by while the reader was not there: written as one sample over
/// the span (marked as a gap in its metadata), never spread into minutes the device did not report.
public struct StepGap: Equatable, Sendable {
    public var steps: UInt32
    /// The span, device clock seconds since 1970 (UTC).
    public var from: UInt32
    public var to: UInt32
    public var reason: StepCountTracker.GapReason
    public var utcOffsetSeconds: Int
    /// The total once the gap is accounted for.
    public var total: StepCountState

    public init(steps: UInt32, from: UInt32, to: UInt32, reason: StepCountTracker.GapReason, utcOffsetSeconds: Int, total: StepCountState) {
        self.steps = steps
        self.from = from
        self.to = to
        self.reason = reason
        self.utcOffsetSeconds = utcOffsetSeconds
        self.total = total
    }
}
