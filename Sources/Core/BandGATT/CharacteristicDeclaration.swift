import BandATT
import BandWire

/// The value of a characteristic declaration attribute (type 0x2803), as a Read By Type
/// Response returns it during characteristic discovery.
///
/// Core 5.4 Vol 3 Part G §3.3.1 (Table 3.4).
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 1 | characteristic properties (``CharacteristicProperties``) |
/// | 1 | 2 | characteristic value handle (non-zero) |
/// | 3 | 2 or 16 | characteristic UUID |
public struct CharacteristicDeclaration: WireCodable, Hashable, Sendable {
    public var properties: CharacteristicProperties
    public var valueHandle: UInt16
    public var uuid: BluetoothUUID

    public init(properties: CharacteristicProperties, valueHandle: UInt16, uuid: BluetoothUUID) {
        self.properties = properties
        self.valueHandle = valueHandle
        self.uuid = uuid
    }

    /// Reads the whole remaining value: the UUID's width is what is left after the handle.
    public init(parsing input: inout ByteCursor) throws(ParseError) {
        properties = CharacteristicProperties(rawValue: try input.readUInt8("characteristic properties"))
        let handleField = input
        valueHandle = try input.readUInt16LE("characteristic value handle")
        guard valueHandle != 0 else { throw handleField.error(.invalidValue, "characteristic value handle") }
        uuid = try input.readUUIDFillingRest("characteristic UUID")
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(properties.rawValue)
        output.writeUInt16LE(valueHandle)
        uuid.encode(into: &output)
    }
}
