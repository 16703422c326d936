import CivilTime
import FoundationEssentials
import HealthModel

/// The date form of export.xml: `2024-06-01 09:00:00 -0700` (local time and its UTC offset).
///
/// | bytes | field |
/// |---|---|
/// | 0–9 | `YYYY-MM-DD` |
/// | 10 | space |
/// | 11–18 | `HH:MM:SS` |
/// | 19 | space |
/// | 20–24 | `±HHMM` |
///
/// Parsed straight from the attribute's bytes (no String, no Calendar): an export holds
/// three dates per record and millions of records.
public enum AppleDate {
    /// A parsed date: the instant in whole seconds since 1970 and the offset it was written in.
    public struct Parsed: Hashable, Sendable {
        public var secondsSince1970: Int64
        public var utcOffsetSeconds: Int32
        public var date: Date { Date(timeIntervalSince1970: Double(secondsSince1970)) }
    }

    /// Parses the 25-byte form; nil for anything else (including impossible days and times).
    public static func parse(_ text: UnsafePointer<CChar>) -> Parsed? {
        var index = 0
        func digits(_ count: Int) -> Int? {
            var value = 0
            for _ in 0..<count {
                let byte = UInt8(bitPattern: text[index])
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
                index += 1
            }
            return value
        }
        func expect(_ ascii: UInt8) -> Bool {
            guard UInt8(bitPattern: text[index]) == ascii else { return false }
            index += 1
            return true
        }
        // Each check stops at the first unexpected byte, so a short string ends at its NUL.
        guard let year = digits(4), expect(0x2D), let month = digits(2), expect(0x2D), let day = digits(2),
              expect(0x20), let hour = digits(2), expect(0x3A), let minute = digits(2), expect(0x3A),
              let second = digits(2), expect(0x20) else { return nil }
        let signByte = UInt8(bitPattern: text[index])
        guard signByte == 0x2B || signByte == 0x2D else { return nil }
        index += 1
        guard let offsetHours = digits(2), let offsetMinutes = digits(2), text[index] == 0 else { return nil }
        guard (1...12).contains(month), day >= 1, day <= CivilCalendar.daysInMonth(year: year, month: month),
              hour < 24, minute < 60, second < 60, offsetHours < 24, offsetMinutes < 60 else { return nil }
        let offset = (signByte == 0x2D ? -1 : 1) * (offsetHours * 3600 + offsetMinutes * 60)
        let days = CivilCalendar.daysSince1970(year: year, month: month, day: day)
        let local = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        return Parsed(secondsSince1970: local - Int64(offset), utcOffsetSeconds: Int32(offset))
    }

    /// Formats `date` (whole seconds) in the form above at `utcOffsetSeconds`.
    public static func format(_ date: Date, utcOffsetSeconds offset: Int) -> String {
        let seconds = Int64((date.timeIntervalSince1970).rounded(.down)) + Int64(offset)
        let days = Int(seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400)
        let secondOfDay = Int(seconds - Int64(days) * 86_400)
        let (year, month, day) = CivilCalendar.date(daysSince1970: days)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        func four(_ value: Int) -> String { String(repeating: "0", count: max(0, 4 - String(value).count)) + String(value) }
        let magnitude = abs(offset)
        return "\(four(year))-\(two(month))-\(two(day)) \(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60)) "
            + "\(offset < 0 ? "-" : "+")\(two(magnitude / 3600))\(two(magnitude / 60 % 60))"
    }
}
