/// What one device's live notifications may cost: a token bucket in front of the live stream,
/// with no I/O (the instants come in with each notification).
///
/// A session handles each notification as it reads it from the link; there is no queue in the
/// reader, only the kernel's socket buffer, which is fixed. What a notification costs after that
/// — a parse, a journal append (one `write()`), a minute it may close, a step gap it may open —
/// is bounded per second by this guard and per live write by the write interval, so a device's
/// memory stays fixed however fast it notifies: at most ``burst`` + ``rate`` × the write interval
/// readings, and as many closed minutes, wait for the next write.
///
/// **Drop-newest.** A notification beyond the budget is not handled: counted and dropped.
/// There is nothing older to drop instead — every reading admitted is already folded into its
/// minute — and a flooding device's next notification repeats what the last one said (the same
/// heart rate, a counter a little further on), so dropping the newest loses least. History
/// transfers never go through the guard: they are the band's records, checked and acknowledged.
public struct LiveFloodGuard: Sendable {
    /// Sustained notifications per second: far above what any device sends at real time (a
    /// strap or a watch 1–4 a second per characteristic, a band one snapshot a second) and what
    /// the simulators send at up to 100× (CI runs them at 60×), far below what a runaway
    /// device can over a local link (tens of thousands).
    public static let standardRate = 1024
    /// Notifications admitted at once above the rate (a device flushing what it buffered while
    /// the link was busy).
    public static let standardBurst = 2048

    public let rate: Int
    public let burst: Int
    private var tokens: Double
    private var refilledAt: ContinuousClock.Instant?
    /// Dropped and not yet reported (``droppedToReport(at:)``).
    private var unreported = 0
    private var reportedAt: ContinuousClock.Instant?
    /// Every notification dropped by this guard.
    public private(set) var dropped = 0

    public init(rate: Int = LiveFloodGuard.standardRate, burst: Int = LiveFloodGuard.standardBurst) {
        self.rate = max(1, rate)
        self.burst = max(1, burst)
        tokens = Double(self.burst)
    }

    /// Whether the notification arriving `now` is handled; one that is not is counted.
    public mutating func admit(at now: ContinuousClock.Instant) -> Bool {
        if let refilledAt {
            let elapsed = refilledAt.duration(to: now)
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            if seconds > 0 { tokens = min(Double(burst), tokens + seconds * Double(rate)) }
        }
        refilledAt = now
        guard tokens >= 1 else {
            dropped += 1
            unreported += 1
            return false
        }
        tokens -= 1
        return true
    }

    /// The drops to report now: those since the last report, at most once a second (a report
    /// per drop would cost what the guard saves), or all of them when `final`.
    public mutating func droppedToReport(at now: ContinuousClock.Instant, final: Bool = false) -> Int? {
        guard unreported > 0 else { return nil }
        if !final, let reportedAt, reportedAt.duration(to: now) < .seconds(1) { return nil }
        reportedAt = now
        defer { unreported = 0 }
        return unreported
    }
}
