import BandWire

/// LE Set Advertising Parameters (Core 5.4 Vol 4 Part E §7.8.5): legacy advertising.
///
/// | bytes | field |
/// |---|---|
/// | u16 LE | advertising interval min (0.625 ms units, 0x0020…0x4000) |
/// | u16 LE | advertising interval max |
/// | u8 | advertising type (0 ADV_IND: connectable, scannable, undirected) |
/// | u8 | own address type (0 public, 1 random) |
/// | u8 | peer address type |
/// | 6 | peer address (directed advertising only) |
/// | u8 | channel map (bits 0–2: channels 37, 38, 39) |
/// | u8 | filter policy |
public struct LESetAdvertisingParameters: HCICommandParameters, WireDecodable, Hashable, Sendable {
    public var opcode: HCIOpcode { .leSetAdvertisingParameters }
    public static let intervalRange: ClosedRange<UInt16> = 0x0020...0x4000

    public var intervalMin: UInt16
    public var intervalMax: UInt16
    public var advertisingType: UInt8
    public var ownAddressType: UInt8
    public var peer: LEAddress
    public var channelMap: UInt8
    public var filterPolicy: UInt8

    /// Connectable undirected advertising on all three channels; 100 ms by default, as
    /// InfiniTime and NimBLE's examples advertise a watch.
    public init(intervalMin: UInt16 = 160, intervalMax: UInt16 = 160, advertisingType: UInt8 = 0, ownAddressType: UInt8 = 0,
                peer: LEAddress = LEAddress(BluetoothAddress(0), type: LEAddressType(rawValue: 0)),
                channelMap: UInt8 = 0x07, filterPolicy: UInt8 = 0) {
        self.intervalMin = intervalMin
        self.intervalMax = intervalMax
        self.advertisingType = advertisingType
        self.ownAddressType = ownAddressType
        self.peer = peer
        self.channelMap = channelMap
        self.filterPolicy = filterPolicy
    }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        intervalMin = try input.readUInt16LE("advertising interval min")
        intervalMax = try input.readUInt16LE("advertising interval max")
        advertisingType = try input.readUInt8("advertising type")
        ownAddressType = try input.readUInt8("own address type")
        let type = LEAddressType(rawValue: try input.readUInt8("peer address type"))
        peer = LEAddress(try BluetoothAddress(parsing: &input), type: type)
        channelMap = try input.readUInt8("advertising channel map")
        filterPolicy = try input.readUInt8("advertising filter policy")
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt16LE(intervalMin)
        output.writeUInt16LE(intervalMax)
        output.writeUInt8(advertisingType)
        output.writeUInt8(ownAddressType)
        output.writeUInt8(peer.type.rawValue)
        peer.address.encode(into: &output)
        output.writeUInt8(channelMap)
        output.writeUInt8(filterPolicy)
    }
}
