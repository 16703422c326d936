import BandATT
import BandWire

/// Heart Rate Control Point (0x2A39): a command written with a Write Request.
///
/// Heart Rate Service 1.0 §3.3; GATT XML `heart_rate_control_point.xml`; Bumble
/// `heart_rate_service.py` (`CONTROL_POINT_NOT_SUPPORTED = 0x80`).
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 1 | command: 0x01 reset energy expended; every other value reserved |
///
/// Open so a server can decode a reserved command and answer it with
/// ``controlPointNotSupported`` instead of failing to parse.
public struct HeartRateControlPoint: RawRepresentable, WireCodable, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let resetEnergyExpended = HeartRateControlPoint(rawValue: 0x01)

    /// The ATT error a Heart Rate server returns for any command but ``resetEnergyExpended``.
    public static let controlPointNotSupported = ATTErrorCode(rawValue: 0x80)

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        rawValue = try input.readUInt8("heart rate control point")
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(rawValue)
    }
}
