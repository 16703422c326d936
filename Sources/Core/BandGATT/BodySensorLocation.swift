import BandWire

/// Body Sensor Location (0x2A38): where a heart-rate sensor sits.
///
/// Heart Rate Service 1.0 §3.2; GATT XML `body_sensor_location.xml`; Wireshark
/// `body_sensor_location_vals`.
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 1 | location: 0 other, 1 chest, 2 wrist, 3 finger, 4 hand, 5 ear lobe, 6 foot; 7–255 reserved |
///
/// Open: a reserved value from a newer sensor decodes and re-encodes unchanged.
public struct BodySensorLocation: RawRepresentable, WireCodable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let other = BodySensorLocation(rawValue: 0)
    public static let chest = BodySensorLocation(rawValue: 1)
    public static let wrist = BodySensorLocation(rawValue: 2)
    public static let finger = BodySensorLocation(rawValue: 3)
    public static let hand = BodySensorLocation(rawValue: 4)
    public static let earLobe = BodySensorLocation(rawValue: 5)
    public static let foot = BodySensorLocation(rawValue: 6)

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        rawValue = try input.readUInt8("body sensor location")
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(rawValue)
    }

    public var description: String {
        switch rawValue {
        case 0: "other"
        case 1: "chest"
        case 2: "wrist"
        case 3: "finger"
        case 4: "hand"
        case 5: "ear lobe"
        case 6: "foot"
        default: "reserved (\(rawValue))"
        }
    }
}
