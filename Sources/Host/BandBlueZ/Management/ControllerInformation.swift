import BandWire

/// The reply to Read Controller Information (BlueZ doc/mgmt-api.txt, command 0x0004).
///
/// | offset | size | field                        |
/// |--------|------|------------------------------|
/// | 0      | 6    | Address, LE                  |
/// | 6      | 1    | Bluetooth_Version            |
/// | 7      | 2    | Manufacturer, LE             |
/// | 9      | 4    | Supported_Settings, LE       |
/// | 13     | 4    | Current_Settings, LE         |
/// | 17     | 3    | Class_Of_Device              |
/// | 20     | 249  | Name (NUL-terminated UTF-8)  |
/// | 269    | 11   | Short_Name                   |
public struct ControllerInformation: Hashable, Sendable, WireDecodable {
    public var address: BluetoothAddress
    public var bluetoothVersion: UInt8
    public var manufacturer: UInt16
    public var supportedSettings: AdapterSettings
    public var currentSettings: AdapterSettings
    public var name: String

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        address = try BluetoothAddress(parsing: &input)
        bluetoothVersion = try input.readUInt8("Bluetooth_Version")
        manufacturer = try input.readUInt16LE("Manufacturer")
        supportedSettings = AdapterSettings(rawValue: try input.readUInt32LE("Supported_Settings"))
        currentSettings = AdapterSettings(rawValue: try input.readUInt32LE("Current_Settings"))
        try input.skip(3, "Class_Of_Device")
        let nameBytes = try input.readBytes(249, "Name")
        name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
        try input.skip(11, "Short_Name")
    }
}
