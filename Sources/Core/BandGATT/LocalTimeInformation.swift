import BandWire

/// Local Time Information (0x2A0F), in the Current Time service (0x1805).
///
/// Current Time Service 1.1 §3.2; GATT XML `local_time_information.xml`, `time_zone.xml`,
/// `dst_offset.xml`.
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 1 | time zone, sint8, 15-minute steps from UTC: −48…+56, −128 unknown |
/// | 1 | 1 | DST offset, uint8, 15-minute steps: 0 standard, 2 half an hour, 4 one hour, 8 two hours, 255 unknown |
///
/// The time zone excludes DST; local time = UTC + time zone + DST offset.
public struct LocalTimeInformation: WireCodable, Hashable, Sendable {
    public struct DSTOffset: RawRepresentable, Hashable, Sendable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public static let standardTime = DSTOffset(rawValue: 0)
        public static let halfAnHourDaylightTime = DSTOffset(rawValue: 2)
        public static let daylightTime = DSTOffset(rawValue: 4)
        public static let doubleDaylightTime = DSTOffset(rawValue: 8)
        public static let unknown = DSTOffset(rawValue: 255)

        /// 0, 2, 4, 8 or 255; every other value is reserved.
        public var isDefined: Bool {
            switch rawValue {
            case 0, 2, 4, 8, 255: true
            default: false
            }
        }

        /// Nil when unknown.
        public var seconds: Int? { self == .unknown ? nil : Int(rawValue) * 900 }
    }

    public static let timeZoneRange: ClosedRange<Int8> = -48...56
    public static let unknownTimeZone: Int8 = -128

    /// 15-minute steps from UTC, or ``unknownTimeZone``.
    public var timeZone: Int8
    public var dstOffset: DSTOffset

    public init(timeZone: Int8, dstOffset: DSTOffset) {
        precondition(timeZone == Self.unknownTimeZone || Self.timeZoneRange.contains(timeZone), "time zone out of range")
        precondition(dstOffset.isDefined, "DST offset must be 0, 2, 4, 8 or 255")
        self.timeZone = timeZone
        self.dstOffset = dstOffset
    }

    /// Time zone alone, in seconds; nil when unknown.
    public var timeZoneSeconds: Int? { timeZone == Self.unknownTimeZone ? nil : Int(timeZone) * 900 }

    /// Local time minus UTC, DST included; nil when either part is unknown.
    public var utcOffsetSeconds: Int? {
        guard let zone = timeZoneSeconds, let dst = dstOffset.seconds else { return nil }
        return zone + dst
    }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        var field = input
        timeZone = Int8(bitPattern: try input.readUInt8("time zone"))
        guard timeZone == Self.unknownTimeZone || Self.timeZoneRange.contains(timeZone) else {
            throw field.error(.invalidValue, "time zone")
        }
        field = input
        dstOffset = DSTOffset(rawValue: try input.readUInt8("DST offset"))
        guard dstOffset.isDefined else { throw field.error(.invalidValue, "DST offset") }
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(UInt8(bitPattern: timeZone))
        output.writeUInt8(dstOffset.rawValue)
    }
}
