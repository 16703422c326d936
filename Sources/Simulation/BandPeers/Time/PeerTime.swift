import CivilTime

/// Simulated true time of a peer: UTC milliseconds since 1970 (the wearer's world, not the
/// peer's clock, which a reader may set to anything).
public typealias PeerMilliseconds = Int64

enum PeerTime {
    static let secondMs: Int64 = 1000
    static let minuteMs: Int64 = 60_000
    static let dayMs: Int64 = 86_400_000
    /// Readings come at this many ms past each second.
    static let tickOffsetMs: Int64 = 500

    /// The first reading time (a second plus ``tickOffsetMs``) after `time`.
    static func nextTick(after time: Int64) -> Int64 {
        (floorDivide(time - tickOffsetMs, secondMs) + 1) * secondMs + tickOffsetMs
    }

    static func minuteStart(of time: Int64) -> Int64 { floorDivide(time, minuteMs) * minuteMs }

    /// Floor division that rounds toward −∞ (times before 1970 stay on the right day).
    static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        CivilCalendar.floorDivide(value, divisor).quotient
    }

    /// `yyyy-mm-ddThh:mm:ssZ` (UTC) or with `±hh:mm` for a non-zero offset.
    static func iso8601(_ ms: Int64, offsetSeconds: Int = 0) -> String {
        let local = floorDivide(ms, 1000) + Int64(offsetSeconds)
        let days = floorDivide(local, 86_400)
        let secondOfDay = local - days * 86_400
        let civil = CivilCalendar.date(daysSince1970: Int(days))
        let (year, month, day) = (Int64(civil.year), Int64(civil.month), Int64(civil.day))
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        var text = "\(year)-\(two(month))-\(two(day))T\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60))"
        if offsetSeconds == 0 { return text + "Z" }
        let magnitude = Int64(abs(offsetSeconds))
        text += (offsetSeconds < 0 ? "-" : "+") + two(magnitude / 3600) + ":" + two(magnitude / 60 % 60)
        return text
    }
}

/// Time text for logs and truth files outside this module.
public enum PeerTimeText {
    /// `yyyy-mm-ddThh:mm:ssZ`, or with `±hh:mm` for a non-zero offset.
    public static func iso8601(_ ms: PeerMilliseconds, offsetSeconds: Int = 0) -> String { PeerTime.iso8601(ms, offsetSeconds: offsetSeconds) }
}
