/// A moment on the simulation's timeline: milliseconds since 1970-01-01 UTC.
///
/// The band's firmware is driven entirely by this time, never by the host's clock, so a run is
/// the same at `--speed 1` and `--speed 1000`, and in a test that advances it by hand.
public struct BandInstant: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var milliseconds: Int64

    public init(milliseconds: Int64) { self.milliseconds = milliseconds }
    public init(seconds: Int64) { milliseconds = seconds * 1000 }

    public var seconds: Int64 { milliseconds.floorDivided(by: 1000) }

    public static func < (lhs: BandInstant, rhs: BandInstant) -> Bool { lhs.milliseconds < rhs.milliseconds }

    public static func + (lhs: BandInstant, rhs: Duration) -> BandInstant {
        BandInstant(milliseconds: lhs.milliseconds + rhs.wholeMilliseconds)
    }

    /// This instant moved by `milliseconds`: what the band's own clock steps use, rather than
    /// `+ Duration`, whose 128-bit arithmetic costs the chip's image 1.7 KB.
    public func adding(milliseconds delta: Int64) -> BandInstant { BandInstant(milliseconds: milliseconds + delta) }

    public static func - (lhs: BandInstant, rhs: BandInstant) -> Duration {
        .milliseconds(lhs.milliseconds - rhs.milliseconds)
    }

    /// ISO 8601 UTC with seconds, e.g. `2026-11-30T09:00:00Z`.
    public var description: String { CivilTime(unixSeconds: seconds).iso8601UTC }
}

extension Duration {
    /// The duration in whole milliseconds (rounded toward zero).
    public var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}

extension Int64 {
    /// Division rounding toward −∞ (dates before 1970 and negative offsets stay on the right day).
    package func floorDivided(by divisor: Int64) -> Int64 {
        let q = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? q - 1 : q
    }

    package func floorModulo(_ divisor: Int64) -> Int64 { self - floorDivided(by: divisor) * divisor }
}
