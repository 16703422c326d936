import CivilTime
import FoundationEssentials

/// Instants on the command line and in import files.
///
/// Accepted forms (ISO 8601 / RFC 3339, with RFC 9557's bracketed zone):
/// - `2026-11-30T08:15:00Z`, `2026-11-30T08:15:00.250+01:00`, `2026-11-30T08:15+0100`: exact instants;
/// - `2026-11-30T08:15:00[Europe/Berlin]`: local time in a named zone;
/// - `2026-11-30T08:15` and `2026-11-30`: local time (a date alone is midnight) in the default zone;
/// - `now`.
public enum TimeParsing {
    public static func instant(_ text: String, defaultZone: TimeZone) -> Date? {
        if text == "now" { return Date() }
        var bytes = Array(text.utf8)
        var zone: TimeZone? = nil
        if bytes.last == UInt8(ascii: "]"), let open = bytes.firstIndex(of: UInt8(ascii: "[")) {
            guard let named = TimeZone(identifier: String(decoding: bytes[(open + 1)..<(bytes.count - 1)], as: UTF8.self)) else {
                return nil
            }
            zone = named
            bytes.removeSubrange(open...)
        }
        var hasOffset = false
        return bytes.withUnsafeBufferPointer { instant($0, zone: zone ?? defaultZone, explicitZone: zone != nil, hasOffset: &hasOffset) }
    }

    /// Fast path for import: parses UTF-8 bytes without building a String.
    /// `hasOffset` tells whether the text carried `Z` or a numeric offset (else it was read in `zone`).
    public static func instant(_ bytes: UnsafeBufferPointer<UInt8>, zone: TimeZone, explicitZone: Bool = false,
                        hasOffset: inout Bool) -> Date? {
        var index = 0
        func digits(_ count: Int) -> Int? {
            guard index + count <= bytes.count else { return nil }
            var value = 0
            for _ in 0..<count {
                let byte = bytes[index]
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
                index += 1
            }
            return value
        }
        func expect(_ character: Unicode.Scalar) -> Bool {
            guard index < bytes.count, bytes[index] == UInt8(ascii: character) else { return false }
            index += 1
            return true
        }
        guard let year = digits(4), expect("-"), let month = digits(2), expect("-"), let day = digits(2),
              (1...12).contains(month), day >= 1, day <= CivilCalendar.daysInMonth(year: year, month: month) else { return nil }
        var hour = 0, minute = 0, second = 0
        var fraction = 0.0
        if index < bytes.count, bytes[index] == UInt8(ascii: "T") || bytes[index] == UInt8(ascii: " ") {
            index += 1
            guard let h = digits(2), expect(":"), let m = digits(2), h < 24, m < 60 else { return nil }
            hour = h
            minute = m
            if expect(":") {
                guard let s = digits(2), s < 61 else { return nil }
                second = s
                if index < bytes.count, bytes[index] == UInt8(ascii: ".") || bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    var scale = 0.1
                    let first = index
                    while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
                        fraction += Double(bytes[index] - 48) * scale
                        scale /= 10
                        index += 1
                    }
                    if index == first { return nil }
                }
            }
        }
        // Offset: Z, ±HH:MM, ±HHMM, ±HH.
        var offset: Int? = nil
        if index < bytes.count {
            if bytes[index] == UInt8(ascii: "Z") || bytes[index] == UInt8(ascii: "z") {
                offset = 0
                index += 1
            } else if bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
                index += 1
                guard let h = digits(2), h <= 23 else { return nil }
                var m = 0
                if expect(":") {
                    guard let value = digits(2) else { return nil }
                    m = value
                } else if index < bytes.count {
                    guard let value = digits(2) else { return nil }
                    m = value
                }
                guard m < 60 else { return nil }
                offset = sign * (h * 3600 + m * 60)
            }
        }
        guard index == bytes.count else { return nil }
        hasOffset = offset != nil
        if explicitZone, offset != nil { return nil }  // "+01:00[Europe/Berlin]" is ambiguous; refuse it
        if let offset {
            let days = CivilCalendar.daysSince1970(year: year, month: month, day: day)
            let seconds = Double(days * 86_400 + hour * 3600 + minute * 60 + second - offset)
            return Date(timeIntervalSince1970: seconds + fraction)
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        return calendar.date(from: components)?.addingTimeInterval(fraction)
    }

    /// The local day `[midnight, next midnight)` in `zone` containing `date`: 23, 24 or 25 hours.
    public static func day(containing date: Date, in zone: TimeZone) -> Range<Date> {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let start = calendar.startOfDay(for: date)
        let end = calendar.date(byAdding: .day, value: 1, to: start) ?? start.addingTimeInterval(86_400)
        return start..<end
    }

    /// RFC 3339 in `zone`, with the zone's offset: `2026-11-30T08:15:00+01:00`.
    public static func format(_ date: Date, in zone: TimeZone) -> String {
        format(date, utcOffsetSeconds: zone.secondsFromGMT(for: date))
    }

    /// RFC 3339 at a fixed offset east of UTC: `2026-11-30T07:15:00Z` for 0,
    /// `2026-11-30T08:15:00+01:00` for 3600; milliseconds (rounded to the nearest, as
    /// `ISO8601DateFormatter` rounds them) only when the instant has a fraction of a second:
    /// `2026-11-30T07:15:00.250Z`. Seconds of the offset are dropped, as RFC 3339 has none.
    public static func format(_ date: Date, utcOffsetSeconds offset: Int) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded()) + Int64(offset) * 1000
        let (localSeconds, millisecond) = CivilCalendar.floorDivide(milliseconds, 1000)
        let (days, secondOfDay) = CivilCalendar.floorDivide(localSeconds, 86_400)
        let (year, month, day) = CivilCalendar.date(daysSince1970: Int(days))
        var out = [UInt8]()
        out.reserveCapacity(29)
        appendDigits(year, width: 4, to: &out)
        out.append(UInt8(ascii: "-"))
        appendDigits(month, width: 2, to: &out)
        out.append(UInt8(ascii: "-"))
        appendDigits(day, width: 2, to: &out)
        out.append(UInt8(ascii: "T"))
        appendDigits(Int(secondOfDay / 3600), width: 2, to: &out)
        out.append(UInt8(ascii: ":"))
        appendDigits(Int(secondOfDay / 60 % 60), width: 2, to: &out)
        out.append(UInt8(ascii: ":"))
        appendDigits(Int(secondOfDay % 60), width: 2, to: &out)
        if date.timeIntervalSince1970.truncatingRemainder(dividingBy: 1) != 0 {
            out.append(UInt8(ascii: "."))
            appendDigits(Int(millisecond), width: 3, to: &out)
        }
        if offset == 0 {
            out.append(UInt8(ascii: "Z"))
        } else {
            let minutes = abs(offset) / 60
            out.append(offset < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
            appendDigits(minutes / 60, width: 2, to: &out)
            out.append(UInt8(ascii: ":"))
            appendDigits(minutes % 60, width: 2, to: &out)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `value` in decimal, zero-padded to at least `width` digits (a negative year keeps its sign).
    static func appendDigits(_ value: Int, width: Int, to out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        let magnitude = value.magnitude
        var divisor: UInt = 1
        var digits = 1
        while divisor <= magnitude / 10 {
            divisor *= 10
            digits += 1
        }
        for _ in digits..<max(width, digits) { out.append(UInt8(ascii: "0")) }
        while divisor > 0 {
            out.append(UInt8(ascii: "0") + UInt8(magnitude / divisor % 10))
            divisor /= 10
        }
    }
}
