import BandProtocol

/// The band's own wall clock: what its firmware believes the time is, which may drift from
/// the simulation's true time and is set by a reader through the Current Time Service.
///
/// Kept as a base pair (true time, band time) plus a drift rate, so reading it at any true
/// time is exact and setting it is a new base — no accumulated rounding.
public struct BandClock: Sendable {
    private var baseTrue: Int64
    private var baseBand: Int64
    public var driftPPM: Double
    /// Standard offset from UTC in 15-minute units (CTS Local Time Information, 0x2A0F).
    public var timeZone: Int8
    /// Daylight saving offset in 15-minute units: 0, 2, 4, 8, or 255 unknown (0x2A0D).
    public var dstOffset: UInt8
    /// A reader (or `--start`) has set the clock.
    public var isSet: Bool

    public init(trueTime: BandInstant, bandTime: BandInstant, timeZone: Int8, dstOffset: UInt8 = 0, driftPPM: Double = 0, isSet: Bool) {
        baseTrue = trueTime.milliseconds
        baseBand = bandTime.milliseconds
        self.timeZone = timeZone
        self.dstOffset = dstOffset
        self.driftPPM = driftPPM
        self.isSet = isSet
    }

    /// The UTC times (s since 1970) a reader's Current Time write or `--start` may set:
    /// 1970-01-01 through 2105-12-31, what a minute record can name
    /// (``MinuteRecord/latestMinuteStart``, 2106-02-07) less five weeks for the band to run on.
    /// Found by fuzz/bandserver: a Current Time in year 9999 was accepted and the band trapped
    /// building its next minute record.
    public static let settableSeconds: ClosedRange<Int64> = 0...4_291_747_199

    /// The band's time when the true time is `trueTime`.
    public func now(at trueTime: BandInstant) -> BandInstant {
        let elapsed = trueTime.milliseconds - baseTrue
        let drifted = elapsed + Int64((Double(elapsed) * driftPPM / 1_000_000).rounded())
        return BandInstant(milliseconds: baseBand + drifted)
    }

    /// Sets the band's time to `bandTime` as of `trueTime`.
    public mutating func set(_ bandTime: BandInstant, at trueTime: BandInstant) {
        baseTrue = trueTime.milliseconds
        baseBand = bandTime.milliseconds
        isSet = true
    }

    /// Zone plus DST, the offset every record and live value carries.
    public var utcOffset: LocalTimeOffset {
        guard timeZone != -128 else { return .unknown }
        let dst = dstOffset == 255 ? 0 : Int(dstOffset)
        return LocalTimeOffset(quarterHours: Int8(clamping: Int(timeZone) + dst))
    }

    /// Seconds to add to UTC for local time (unknown zone counts as UTC).
    public var offsetSeconds: Int64 { Int64(utcOffset.seconds ?? 0) }

    /// The local day number (days since 1970-01-01 on the band's calendar) at band time `t`.
    public func localDay(of t: BandInstant) -> Int64 {
        (t.seconds + offsetSeconds).floorDivided(by: 86_400)
    }
}
