import FoundationEssentials

/// The band's clock as seen from the host: where it was at the last trustworthy observation and
/// how fast it runs against the host's (1 for a real band; faster for a simulator running
/// accelerated). Heart Rate Measurements carry no time, so this is what stamps them.
///
/// One damaged notification must not drag the estimate away: once the rate is known (half a
/// second of host time observed), an observation farther from the extrapolated time than
/// `window(after:)` is held back, and only a run of ``outliersBeforeReset`` such observations
/// in a row (the clock really was set) restarts the estimate from them.
public struct BandClockEstimator: Sendable {
    public static let outliersBeforeReset = 3
    private var first: (band: Double, host: Date)?
    private var last: (band: Double, host: Date)?
    private var outliers = 0

    public init() {}

    /// Band seconds per host second, from the longest baseline available (1 until it is known).
    public var rate: Double {
        guard let first, let last else { return 1 }
        let host = last.host.timeIntervalSince(first.host)
        let band = last.band - first.band
        guard host >= 0.2, band > 0 else { return 1 }
        return min(100_000, max(0.001, band / host))
    }

    /// Whether enough host time has been observed for the rate, and so outliers, to mean anything.
    var rateIsKnown: Bool {
        guard let first, let last else { return false }
        return last.host.timeIntervalSince(first.host) >= 0.5
    }

    /// The band's time at host time `host`, or nil before any observation.
    public func estimate(at host: Date) -> Double? {
        guard let last else { return nil }
        return last.band + max(0, host.timeIntervalSince(last.host)) * rate
    }

    /// How far an observation may lie from the estimate: half a minute, plus a tenth of the
    /// time extrapolated over (whole-second timestamps and host scheduling jitter).
    func window(after host: Date) -> Double {
        guard let last else { return .infinity }
        return 30 + 0.1 * max(0, host.timeIntervalSince(last.host)) * rate
    }

    /// Takes the band's timestamp `band` seen at host time `host`; returns whether it was used.
    /// A `trusted` observation (the band's Current Time, read) is the clock itself, not a value
    /// that may be damaged: far from the estimate, it restarts the estimate at once (the clock
    /// was set, or runs at another pace than was learnt).
    @discardableResult
    public mutating func observe(_ band: UInt32, at host: Date, trusted: Bool = false) -> Bool {
        observe(seconds: Double(band), at: host, trusted: trusted)
    }

    /// The same, for a band time with a fraction of a second (a Current Time read).
    @discardableResult
    public mutating func observe(seconds value: Double, at host: Date, trusted: Bool = false) -> Bool {
        if rateIsKnown, let expected = estimate(at: host), abs(value - expected) > window(after: host) {
            outliers += 1
            guard trusted || outliers >= Self.outliersBeforeReset else { return false }
            first = nil
        }
        outliers = 0
        if first == nil { first = (value, host) }
        last = (value, host)
        return true
    }
}
