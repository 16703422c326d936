import BandWire

/// One advertisement or scan response a scanner received, from either report format.
///
/// **LE Advertising Report**, one report (Core 5.4 Vol 4 Part E §7.7.65.2; the reports of a
/// multi-report event follow each other, each with its RSSI after its data, as BlueZ's
/// `le_advertising_info` and Wireshark read them):
///
/// | offset | size | field                                                        |
/// |--------|------|--------------------------------------------------------------|
/// | 0      | 1    | Event_Type: 0 ADV_IND, 1 ADV_DIRECT_IND, 2 ADV_SCAN_IND, 3 ADV_NONCONN_IND, 4 SCAN_RSP |
/// | 1      | 1    | Address_Type (HCI numbering)                                 |
/// | 2      | 6    | Address, LE                                                  |
/// | 8      | 1    | Data_Length *n* (≤ 31)                                       |
/// | 9      | *n*  | Data (``AdvertisingData``)                                   |
/// | 9+*n*  | 1    | RSSI, signed dBm (127: not available)                        |
///
/// **LE Extended Advertising Report**, one report (§7.7.65.13):
///
/// | offset | size | field                                                                 |
/// |--------|------|-----------------------------------------------------------------------|
/// | 0      | 2    | Event_Type bits: 0 connectable, 1 scannable, 2 directed, 3 scan response, 4 legacy, 5–6 data status |
/// | 2      | 1    | Address_Type                                                          |
/// | 3      | 6    | Address, LE                                                           |
/// | 9      | 1    | Primary_PHY                                                           |
/// | 10     | 1    | Secondary_PHY                                                         |
/// | 11     | 1    | Advertising_SID                                                       |
/// | 12     | 1    | TX_Power, signed dBm                                                  |
/// | 13     | 1    | RSSI, signed dBm                                                      |
/// | 14     | 2    | Periodic_Advertising_Interval, LE                                     |
/// | 16     | 1    | Direct_Address_Type                                                   |
/// | 17     | 6    | Direct_Address                                                        |
/// | 23     | 1    | Data_Length *n*                                                       |
/// | 24     | *n*  | Data                                                                  |
public struct AdvertisingReport: Hashable, Sendable {
    public var address: LEAddress
    /// Signed dBm; nil when the controller said "not available" (127).
    public var rssi: Int8?
    public var isConnectable: Bool
    public var isScanResponse: Bool
    public var data: AdvertisingData
    /// The raw Event_Type (legacy: 0…4; extended: the bit field).
    public var eventType: UInt16

    public init(address: LEAddress, rssi: Int8?, isConnectable: Bool, isScanResponse: Bool, data: AdvertisingData, eventType: UInt16) {
        self.address = address
        self.rssi = rssi
        self.isConnectable = isConnectable
        self.isScanResponse = isScanResponse
        self.data = data
        self.eventType = eventType
    }

    public init(parsingLegacy input: inout ByteCursor) throws(ParseError) {
        let type = try input.readUInt8("Event_Type")
        guard type <= 4 else { throw ParseError(.invalidValue, at: input.offset - 1, field: "Event_Type") }
        eventType = UInt16(type)
        isConnectable = type == 0 || type == 1
        isScanResponse = type == 4
        let addressType = LEAddressType(rawValue: try input.readUInt8("Address_Type"))
        address = LEAddress(try BluetoothAddress(parsing: &input), type: addressType)
        let length = Int(try input.readUInt8("Data_Length"))
        guard length <= 31 else { throw ParseError(.invalidValue, at: input.offset - 1, field: "Data_Length") }
        var payload = try input.readCursor(length, "Data")
        data = try AdvertisingData(parsing: &payload)
        let raw = Int8(bitPattern: try input.readUInt8("RSSI"))
        rssi = raw == 127 ? nil : raw
    }

    public init(parsingExtended input: inout ByteCursor) throws(ParseError) {
        eventType = try input.readUInt16LE("Event_Type")
        isConnectable = eventType & 0x0001 != 0
        isScanResponse = eventType & 0x0008 != 0
        let addressType = LEAddressType(rawValue: try input.readUInt8("Address_Type"))
        address = LEAddress(try BluetoothAddress(parsing: &input), type: addressType)
        try input.skip(4, "Primary_PHY, Secondary_PHY, Advertising_SID, TX_Power")
        let raw = Int8(bitPattern: try input.readUInt8("RSSI"))
        rssi = raw == 127 ? nil : raw
        try input.skip(9, "Periodic_Advertising_Interval, Direct_Address_Type, Direct_Address")
        let length = Int(try input.readUInt8("Data_Length"))
        guard length <= 229 else { throw ParseError(.invalidValue, at: input.offset - 1, field: "Data_Length") }
        var payload = try input.readCursor(length, "Data")
        data = try AdvertisingData(parsing: &payload)
    }

    var legacyEncodedSize: Int { 10 + data.encodedSize }
    var extendedEncodedSize: Int { 24 + data.encodedSize }

    /// Mirror of ``init(parsingLegacy:)``.
    public func encodeLegacy(into output: inout ByteWriter) {
        output.writeUInt8(UInt8(truncatingIfNeeded: eventType))
        output.writeUInt8(address.type.rawValue)
        address.address.encode(into: &output)
        output.writeUInt8(UInt8(truncatingIfNeeded: data.encodedSize))
        data.encode(into: &output)
        output.writeUInt8(UInt8(bitPattern: rssi ?? 127))
    }

    /// Mirror of ``init(parsingExtended:)`` (PHYs LE 1M/none, SID 0, TX power and direct address unset).
    public func encodeExtended(into output: inout ByteWriter) {
        output.writeUInt16LE(eventType)
        output.writeUInt8(address.type.rawValue)
        address.address.encode(into: &output)
        output.writeUInt8(0x01)  // Primary_PHY: LE 1M
        output.writeUInt8(0x00)  // Secondary_PHY: none
        output.writeUInt8(0xFF)  // Advertising_SID: none
        output.writeUInt8(0x7F)  // TX_Power: not available
        output.writeUInt8(UInt8(bitPattern: rssi ?? 127))
        output.writeUInt16LE(0)  // no periodic advertising
        output.writeUInt8(0)
        BluetoothAddress.any.encode(into: &output)
        output.writeUInt8(UInt8(truncatingIfNeeded: data.encodedSize))
        data.encode(into: &output)
    }
}
