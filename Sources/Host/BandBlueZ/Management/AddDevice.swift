import BandWire

/// The parameters of Add Device (command 0x0033, BlueZ doc/mgmt-api.txt): puts a peer on the
/// kernel's list of devices to act on when they advertise. With ``Action/autoConnect`` the kernel
/// keeps a passive scan running and connects by itself whenever the peer advertises, and again
/// after every disconnection, until Remove Device; this is how bluetoothd reconnects bonded LE
/// devices, and it costs the host nothing while the device is away.
///
/// | offset | size | field                                                    |
/// |--------|------|----------------------------------------------------------|
/// | 0      | 6    | Address (peer), LE                                       |
/// | 6      | 1    | Address_Type (BlueZ numbering: 1 LE public, 2 LE random) |
/// | 7      | 1    | Action (0 report, 1 allow incoming, 2 auto-connect)      |
///
/// The kernel answers with Command Complete carrying Address and Address_Type
/// (the first seven bytes of these parameters) and sends a Device Added event to other management sockets.
public struct AddDevice: Hashable, Sendable, WireCodable {
    public static let encodedSize = 8

    public enum Action: UInt8, Sendable {
        /// Report the device's advertising in Device Found events (background scan).
        case report = 0
        /// Allow incoming connections (BR/EDR only; LE peers answer Invalid Parameters).
        case allowIncoming = 1
        /// Connect whenever the device advertises.
        case autoConnect = 2
    }

    public var peer: LEAddress
    public var action: Action

    public init(peer: LEAddress, action: Action) {
        self.peer = peer
        self.action = action
    }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        let address = try BluetoothAddress(parsing: &input)
        peer = LEAddress(address, type: try input.readBlueZLEAddressType("Address_Type"))
        let actionOffset = input.offset
        guard let action = Action(rawValue: try input.readUInt8("Action")) else {
            throw ParseError(.invalidValue, at: actionOffset, field: "Action")
        }
        self.action = action
    }

    public func encode(into output: inout ByteWriter) {
        peer.address.encode(into: &output)
        output.writeUInt8(peer.type.bluezAddressType)
        output.writeUInt8(action.rawValue)
    }

    /// The command's parameter bytes.
    public var parameters: [UInt8] { managementParameters(size: Self.encodedSize) }
}
