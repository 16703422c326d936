import BandWire
import CivilTime

/// Date Time (0x2A08), also the first 7 bytes of Current Time: a local wall-clock time.
///
/// GATT XML `date_time.xml`; Wireshark `packet-btatt.c` `dissect_date_time`.
///
/// | offset | size | field | range |
/// |---|---|---|---|
/// | 0 | 2 | year | 1582–9999, 0 = unknown |
/// | 2 | 1 | month | 1–12, 0 = unknown |
/// | 3 | 1 | day | 1–31 (and within the month when year and month are known), 0 = unknown |
/// | 4 | 1 | hours | 0–23 |
/// | 5 | 1 | minutes | 0–59 |
/// | 6 | 1 | seconds | 0–59 |
///
/// No time zone: the value is local time; Local Time Information (0x2A0F) gives the offset.
public struct DateTime: WireCodable, Hashable, Sendable, CustomStringConvertible {
    public var year: UInt16
    public var month: UInt8
    public var day: UInt8
    public var hours: UInt8
    public var minutes: UInt8
    public var seconds: UInt8

    public static let yearRange: ClosedRange<UInt16> = 1582...9999

    public init(year: UInt16, month: UInt8, day: UInt8, hours: UInt8, minutes: UInt8, seconds: UInt8) {
        self.year = year
        self.month = month
        self.day = day
        self.hours = hours
        self.minutes = minutes
        self.seconds = seconds
    }

    /// The wall-clock time `secondsSince1970` seconds after 1970-01-01 00:00:00 (proleptic
    /// Gregorian, no leap seconds). Years outside 1582–9999 are a programming error.
    public init(secondsSince1970: Int64) {
        let (days, secondOfDay) = CivilCalendar.floorDivide(secondsSince1970, 86_400)
        let date = CivilCalendar.date(daysSince1970: Int(days))
        precondition(Self.yearRange.contains(UInt16(clamping: date.year)), "year \(date.year) outside 1582–9999")
        self.init(year: UInt16(date.year), month: UInt8(date.month), day: UInt8(date.day),
                  hours: UInt8(secondOfDay / 3600), minutes: UInt8(secondOfDay / 60 % 60), seconds: UInt8(secondOfDay % 60))
    }

    /// Nil when the year, month or day is unknown (0).
    public var secondsSince1970: Int64? {
        guard let days = daysSince1970 else { return nil }
        return Int64(days) * 86_400 + Int64(hours) * 3600 + Int64(minutes) * 60 + Int64(seconds)
    }

    var daysSince1970: Int? {
        guard year != 0, month != 0, day != 0 else { return nil }
        return CivilCalendar.daysSince1970(year: Int(year), month: Int(month), day: Int(day))
    }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        var field = input
        year = try input.readUInt16LE("year")
        guard year == 0 || Self.yearRange.contains(year) else { throw field.error(.invalidValue, "year") }
        field = input
        month = try input.readUInt8("month")
        guard month <= 12 else { throw field.error(.invalidValue, "month") }
        field = input
        day = try input.readUInt8("day")
        let lastDay = year != 0 && month != 0 ? CivilCalendar.daysInMonth(year: Int(year), month: Int(month)) : 31
        guard day <= lastDay else { throw field.error(.invalidValue, "day") }
        field = input
        hours = try input.readUInt8("hours")
        guard hours <= 23 else { throw field.error(.invalidValue, "hours") }
        field = input
        minutes = try input.readUInt8("minutes")
        guard minutes <= 59 else { throw field.error(.invalidValue, "minutes") }
        field = input
        seconds = try input.readUInt8("seconds")
        guard seconds <= 59 else { throw field.error(.invalidValue, "seconds") }
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt16LE(year)
        output.writeUInt8(month)
        output.writeUInt8(day)
        output.writeUInt8(hours)
        output.writeUInt8(minutes)
        output.writeUInt8(seconds)
    }

    /// `2026-11-30 09:05:07`, with `?` for unknown date parts.
    public var description: String {
        func pad(_ value: some BinaryInteger, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        let date = [year == 0 ? "????" : pad(year, 4), month == 0 ? "??" : pad(month, 2), day == 0 ? "??" : pad(day, 2)]
        return date.joined(separator: "-") + " " + [pad(hours, 2), pad(minutes, 2), pad(seconds, 2)].joined(separator: ":")
    }
}
