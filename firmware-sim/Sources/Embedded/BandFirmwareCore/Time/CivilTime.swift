import CivilTime

/// A proleptic Gregorian date and time of day, converted to and from Unix seconds without
/// Foundation (the date arithmetic is module CivilTime's `CivilCalendar`, after H. Hinnant's
/// "chrono-Compatible Low-Level Date Algorithms").
public struct CivilTime: Hashable, Sendable {
    public var year: Int
    public var month: Int
    public var day: Int
    public var hour: Int
    public var minute: Int
    public var second: Int

    public init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    /// The civil time `unixSeconds` seconds after 1970-01-01T00:00:00 (in whatever zone the
    /// seconds were shifted into).
    public init(unixSeconds: Int64) {
        let days = unixSeconds.floorDivided(by: 86_400)
        let secondsOfDay = Int(unixSeconds - days * 86_400)
        let (y, m, d) = Self.civil(fromDays: days)
        self.init(year: y, month: m, day: d, hour: secondsOfDay / 3600, minute: secondsOfDay / 60 % 60, second: secondsOfDay % 60)
    }

    public var unixSeconds: Int64 {
        Self.days(year: year, month: month, day: day) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    }

    /// 1 = Monday … 7 = Sunday, as Current Time Service's Day of Week.
    public var dayOfWeek: Int {
        let days = Self.days(year: year, month: month, day: day)
        // 1970-01-01 was a Thursday (4).
        return Int((days + 3).floorModulo(7)) + 1
    }

    public var isValid: Bool {
        (1...12).contains(month) && day >= 1 && day <= Self.daysInMonth(year: year, month: month)
            && (0...23).contains(hour) && (0...59).contains(minute) && (0...59).contains(second)
    }

    public static func daysInMonth(year: Int, month: Int) -> Int {
        CivilCalendar.daysInMonth(year: year, month: month)
    }

    /// Days since 1970-01-01 of a civil date.
    public static func days(year: Int, month: Int, day: Int) -> Int64 {
        Int64(CivilCalendar.daysSince1970(year: year, month: month, day: day))
    }

    /// The civil date `days` days after 1970-01-01.
    public static func civil(fromDays days: Int64) -> (year: Int, month: Int, day: Int) {
        CivilCalendar.date(daysSince1970: Int(days))
    }

    /// `2026-11-30T09:00:00Z` (the fields taken as UTC).
    public var iso8601UTC: String { iso8601Date + "T" + two(hour) + ":" + two(minute) + ":" + two(second) + "Z" }

    public var iso8601Date: String {
        let y = String(year)
        return String(repeating: "0", count: max(0, 4 - y.count)) + y + "-" + two(month) + "-" + two(day)
    }

    private func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }

    /// Parses `YYYY-MM-DDTHH:MM[:SS](Z|±HH:MM)`; returns the UTC instant and the offset in
    /// seconds that the text named (0 for `Z`), or nil when malformed.
    public static func parseISO8601(_ text: String) -> (unixSeconds: Int64, offsetSeconds: Int)? {
        let chars = Array(text.utf8)
        var index = 0
        func number(_ digits: Int) -> Int? {
            guard index + digits <= chars.count else { return nil }
            var value = 0
            for _ in 0..<digits {
                let c = chars[index]
                guard c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(c - UInt8(ascii: "0"))
                index += 1
            }
            return value
        }
        func expect(_ c: Character) -> Bool {
            guard index < chars.count, chars[index] == c.asciiValue! else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2),
              expect("T") || expect(" "), let hour = number(2), expect(":"), let minute = number(2) else { return nil }
        var second = 0
        if index < chars.count, chars[index] == UInt8(ascii: ":") {
            index += 1
            guard let s = number(2) else { return nil }
            second = s
        }
        var offset = 0
        if expect("Z") || expect("z") {
            offset = 0
        } else if index < chars.count, chars[index] == UInt8(ascii: "+") || chars[index] == UInt8(ascii: "-") {
            let negative = chars[index] == UInt8(ascii: "-")
            index += 1
            guard let oh = number(2), expect(":"), let om = number(2), oh <= 23, om <= 59 else { return nil }
            offset = (oh * 3600 + om * 60) * (negative ? -1 : 1)
        } else {
            return nil
        }
        guard index == chars.count else { return nil }
        let civil = CivilTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        guard civil.isValid else { return nil }
        return (civil.unixSeconds - Int64(offset), offset)
    }
}
