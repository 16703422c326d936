import BandWire

/// The parameters of Remove Device (command 0x0034, BlueZ doc/mgmt-api.txt): takes a peer off the
/// kernel's auto-connect list that ``AddDevice`` put it on. An existing link is not dropped.
///
/// | offset | size | field                                                    |
/// |--------|------|----------------------------------------------------------|
/// | 0      | 6    | Address (peer), LE                                       |
/// | 6      | 1    | Address_Type (BlueZ numbering: 1 LE public, 2 LE random) |
///
/// Answered with Command Complete carrying Address and Address_Type; a peer that was not added
/// is Invalid Parameters.
public struct RemoveDevice: Hashable, Sendable, WireCodable {
    public static let encodedSize = 7

    public var peer: LEAddress

    public init(peer: LEAddress) { self.peer = peer }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        let address = try BluetoothAddress(parsing: &input)
        peer = LEAddress(address, type: try input.readBlueZLEAddressType("Address_Type"))
    }

    public func encode(into output: inout ByteWriter) {
        peer.address.encode(into: &output)
        output.writeUInt8(peer.type.bluezAddressType)
    }

    /// The command's parameter bytes.
    public var parameters: [UInt8] { managementParameters(size: Self.encodedSize) }
}
