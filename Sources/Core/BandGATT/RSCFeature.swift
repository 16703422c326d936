import BandWire

/// RSC Feature (0x2A54): what an RSC sensor can measure.
///
/// RSC Service 1.0 §3.2; GATT XML `rsc_feature.xml`.
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 2 | bit 0 stride length, bit 1 total distance, bit 2 walking/running status, bit 3 calibration procedure, bit 4 multiple sensor locations; bits 5–15 reserved (kept) |
public struct RSCFeature: OptionSet, WireCodable, Hashable, Sendable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let instantaneousStrideLengthMeasurement = RSCFeature(rawValue: 0x0001)
    public static let totalDistanceMeasurement = RSCFeature(rawValue: 0x0002)
    public static let walkingOrRunningStatus = RSCFeature(rawValue: 0x0004)
    public static let sensorCalibrationProcedure = RSCFeature(rawValue: 0x0008)
    public static let multipleSensorLocations = RSCFeature(rawValue: 0x0010)

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        rawValue = try input.readUInt16LE("RSC feature")
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt16LE(rawValue)
    }
}
