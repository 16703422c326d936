import BandWire

/// Battery Level (0x2A19), in the Battery service (0x180F).
///
/// Battery Service 1.0 §3.1; GATT XML `battery_level.xml` (uint8, percent, 0–100).
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 1 | level, percent, 0–100 (101–255 invalid; Wireshark flags them too) |
public struct BatteryLevel: WireCodable, Hashable, Sendable, CustomStringConvertible {
    public let percent: UInt8

    public static let maximum: UInt8 = 100

    /// Nil above 100 %.
    public init?(percent: UInt8) {
        guard percent <= Self.maximum else { return nil }
        self.percent = percent
    }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        let field = input
        let percent = try input.readUInt8("battery level")
        guard percent <= Self.maximum else { throw field.error(.invalidValue, "battery level") }
        self.percent = percent
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(percent)
    }

    public var description: String { "\(percent) %" }
}
