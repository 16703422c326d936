#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials

/// How a place's wall clock relates to UTC at an instant: what the reader needs to set a band's
/// clock (Current Time Service) and to stamp samples with their recording offset.
///
/// Foundation's `TimeZone` conforms as it is (any named zone: what tests and replays pass);
/// ``SystemTimeZone`` is the host's own zone, read by the C library.
public protocol LocalTimeRules: Sendable {
    /// A name for messages (`Europe/Berlin`).
    var identifier: String { get }
    /// Seconds east of UTC at `date`, DST included.
    func secondsFromGMT(for date: Date) -> Int
    /// The DST part of ``secondsFromGMT(for:)`` at `date` (0 outside DST).
    func daylightSavingTimeOffset(for date: Date) -> TimeInterval
}

extension TimeZone: LocalTimeRules {}

/// The host's time zone as the C library reads it: `TZ`, else `/etc/localtime`, with the system's
/// tzdata — what `date(1)` shows.
///
/// This is what `TimeZone.current` answers too, but on Linux a named zone there is ICU's
/// (FoundationInternationalization): its code and zone data cost the reader several MB of
/// resident memory for two numbers a session. `localtime_r` gives the same offset; quarter-hour
/// zones (Nepal, Chatham) and DST transitions come straight from tzdata.
///
/// The DST part is the offset minus the zone's standard offset, found by reading the same
/// wall-clock time as standard time (`mktime`). Zones whose tzdata models a *negative* DST (Europe/Dublin's winter
/// GMT, Africa/Casablanca during Ramadan) report DST 0 with the whole offset as standard time:
/// Local Time Information has no negative DST code, and the band's local time stays right.
public struct SystemTimeZone: LocalTimeRules {
    public init() {}

    public var identifier: String {
        #if canImport(Glibc)
        if let variable = getenv("TZ"), variable.pointee != 0 {
            let value = String(cString: variable)
            return value.hasPrefix(":") ? String(value.dropFirst()) : value
        }
        var target = [CChar](repeating: 0, count: 1024)
        let count = readlink("/etc/localtime", &target, target.count - 1)
        if count > 0 {
            let path = String(decoding: target[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if let range = path.firstRange(of: "zoneinfo/") { return String(path[range.upperBound...]) }
            return path
        }
        return "local time"
        #else
        return TimeZone.current.identifier
        #endif
    }

    public func secondsFromGMT(for date: Date) -> Int {
        #if canImport(Glibc)
        Int(Self.localTime(date).tm_gmtoff)
        #else
        TimeZone.current.secondsFromGMT(for: date)
        #endif
    }

    public func daylightSavingTimeOffset(for date: Date) -> TimeInterval {
        #if canImport(Glibc)
        var local = Self.localTime(date)
        guard local.tm_isdst > 0 else { return 0 }
        // The same wall-clock time read as standard time (POSIX mktime with tm_isdst = 0; glibc
        // takes the standard offset of the nearest period of standard time) lands the DST part
        // later than the instant itself.
        let instant = time_t(date.timeIntervalSince1970.rounded(.down))
        local.tm_isdst = 0
        let asStandardTime = mktime(&local)
        guard asStandardTime != -1 else { return 0 }
        let daylight = Int(asStandardTime - instant)
        return daylight > 0 ? TimeInterval(daylight) : 0
        #else
        TimeZone.current.daylightSavingTimeOffset(for: date)
        #endif
    }

    #if canImport(Glibc)
    private static func localTime(_ date: Date) -> tm {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var result = tm()
        localtime_r(&seconds, &result)
        return result
    }
    #endif
}
