import BandWire

/// The band's offset from UTC (time zone plus daylight saving time) in 15-minute units.
///
/// Signed 8-bit, the unit of CTS Local Time Information (0x2A0F, Current Time Service 1.1 §3.2)
/// and of Huami's time packet, so half- and quarter-hour zones (India +5:30 = 22, Nepal +5:45 =
/// 23, Newfoundland −3:30 = −14) survive — itd truncates them to whole hours (peers.md).
/// −128 means "unknown", as in 0x2A0F.
///
/// | bytes | field |
/// |---|---|
/// | 1 | offset, sint8, ×15 min; −128 unknown |
public struct LocalTimeOffset: RawRepresentable, Hashable, Sendable, WireCodable, CustomStringConvertible {
    public var rawValue: Int8
    public init(rawValue: Int8) { self.rawValue = rawValue }

    public static let unknown = LocalTimeOffset(rawValue: -128)
    public static let utc = LocalTimeOffset(rawValue: 0)

    /// An offset of `quarterHours` × 15 min.
    public init(quarterHours: Int8) { rawValue = quarterHours }

    /// The offset in seconds, nil when unknown.
    public var seconds: Int? { self == .unknown ? nil : Int(rawValue) * 900 }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        rawValue = Int8(bitPattern: try input.readUInt8("UTC offset"))
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(UInt8(bitPattern: rawValue))
    }

    /// `+05:30`, `-03:30`, `+00:00`, or `unknown`.
    public var description: String {
        guard let seconds else { return "unknown" }
        let minutes = abs(seconds) / 60
        let sign = seconds < 0 ? "-" : "+"
        let h = minutes / 60, m = minutes % 60
        return "\(sign)\(h < 10 ? "0" : "")\(h):\(m < 10 ? "0" : "")\(m)"
    }
}
