import BandWire
import CivilTime

/// Current Time (0x2A2B), in the Current Time service (0x1805).
///
/// Current Time Service 1.1 §3.1; GATT XML `current_time.xml`, `exact_time_256.xml`,
/// `day_of_week.xml`; Wireshark `packet-btatt.c` field order.
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 7 | date time (see ``DateTime``) |
/// | 7 | 1 | day of week: 1 Monday … 7 Sunday, 0 unknown, 8–255 invalid |
/// | 8 | 1 | fractions256: 1/256 s |
/// | 9 | 1 | adjust reason: bit 0 manual, bit 1 external reference, bit 2 time zone change, bit 3 DST change |
public struct CurrentTime: WireCodable, Hashable, Sendable {
    public struct DayOfWeek: RawRepresentable, Hashable, Sendable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public static let unknown = DayOfWeek(rawValue: 0)
        public static let monday = DayOfWeek(rawValue: 1)
        public static let tuesday = DayOfWeek(rawValue: 2)
        public static let wednesday = DayOfWeek(rawValue: 3)
        public static let thursday = DayOfWeek(rawValue: 4)
        public static let friday = DayOfWeek(rawValue: 5)
        public static let saturday = DayOfWeek(rawValue: 6)
        public static let sunday = DayOfWeek(rawValue: 7)
    }

    /// Why the time was last set. Reserved bits 4–7 are kept.
    public struct AdjustReason: OptionSet, Hashable, Sendable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public static let manualTimeUpdate = AdjustReason(rawValue: 0x01)
        public static let externalReferenceTimeUpdate = AdjustReason(rawValue: 0x02)
        public static let changeOfTimeZone = AdjustReason(rawValue: 0x04)
        public static let changeOfDST = AdjustReason(rawValue: 0x08)
    }

    public var dateTime: DateTime
    public var dayOfWeek: DayOfWeek
    /// 1/256 s past ``dateTime``.
    public var fractions256: UInt8
    public var adjustReason: AdjustReason

    public init(dateTime: DateTime, dayOfWeek: DayOfWeek, fractions256: UInt8 = 0, adjustReason: AdjustReason = []) {
        self.dateTime = dateTime
        self.dayOfWeek = dayOfWeek
        self.fractions256 = fractions256
        self.adjustReason = adjustReason
    }

    /// The local wall-clock time `secondsSince1970` (+ `fractions256`/256 s), with the day of
    /// week computed.
    public init(secondsSince1970: Int64, fractions256: UInt8 = 0, adjustReason: AdjustReason = []) {
        let dateTime = DateTime(secondsSince1970: secondsSince1970)
        let days = Int(CivilCalendar.floorDivide(secondsSince1970, 86_400).quotient)
        self.init(dateTime: dateTime, dayOfWeek: DayOfWeek(rawValue: UInt8(CivilCalendar.isoWeekday(daysSince1970: days))),
                  fractions256: fractions256, adjustReason: adjustReason)
    }

    /// Whole seconds of the wall-clock time since 1970-01-01 00:00; nil when the date is unknown.
    /// To get Unix time, subtract the UTC offset (``LocalTimeInformation/utcOffsetSeconds``).
    public var secondsSince1970: Int64? { dateTime.secondsSince1970 }

    /// ``secondsSince1970`` plus the 1/256 s fraction (exact in a Double).
    public var fractionalSecondsSince1970: Double? {
        secondsSince1970.map { Double($0) + Double(fractions256) / 256 }
    }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        dateTime = try DateTime(parsing: &input)
        let field = input
        dayOfWeek = DayOfWeek(rawValue: try input.readUInt8("day of week"))
        guard dayOfWeek.rawValue <= 7 else { throw field.error(.invalidValue, "day of week") }
        fractions256 = try input.readUInt8("fractions256")
        adjustReason = AdjustReason(rawValue: try input.readUInt8("adjust reason"))
    }

    public func encode(into output: inout ByteWriter) {
        dateTime.encode(into: &output)
        output.writeUInt8(dayOfWeek.rawValue)
        output.writeUInt8(fractions256)
        output.writeUInt8(adjustReason.rawValue)
    }
}
