import BandWire

/// A management event, decoded from a ``ManagementPacket`` (BlueZ doc/mgmt-api.txt, "Events").
///
/// | code   | event                      | parameters                                                   |
/// |--------|----------------------------|--------------------------------------------------------------|
/// | 0x0001 | Command Complete           | Command_Opcode (2), Status (1), Return_Parameters            |
/// | 0x0002 | Command Status             | Command_Opcode (2), Status (1)                               |
/// | 0x0006 | New Settings               | Current_Settings (4)                                         |
/// | 0x000A | New Long Term Key          | Store_Hint (1), Key (``LongTermKey``, 36)                    |
/// | 0x000B | Device Connected           | Address (6), Address_Type (1), Flags (4), EIR_Data_Length (2), EIR_Data |
/// | 0x000C | Device Disconnected        | Address (6), Address_Type (1), Reason (1)                    |
/// | 0x000D | Connect Failed             | Address (6), Address_Type (1), Status (1)                    |
/// | 0x000F | User Confirmation Request  | Address (6), Address_Type (1), Confirm_Hint (1), Value (4)   |
/// | 0x0010 | User Passkey Request       | Address (6), Address_Type (1)                                |
/// | 0x0011 | Authentication Failed      | Address (6), Address_Type (1), Status (1)                    |
/// | 0x0017 | Passkey Notify             | Address (6), Address_Type (1), Passkey (4), Entered (1)      |
///
/// Any other event, and an address event about a BR/EDR device, is kept as
/// ``other(code:controllerIndex:parameters:)``.
public enum ManagementEvent: Hashable, Sendable {
    case commandComplete(ManagementOpcode, controllerIndex: UInt16, status: ManagementStatus, returnParameters: [UInt8])
    case commandStatus(ManagementOpcode, controllerIndex: UInt16, status: ManagementStatus)
    case newSettings(controllerIndex: UInt16, AdapterSettings)
    case newLongTermKey(controllerIndex: UInt16, LongTermKey, storeHint: Bool)
    case deviceConnected(controllerIndex: UInt16, LEAddress)
    /// Reason: 0 unspecified, 1 timeout, 2 local host, 3 remote, 4 authentication failure, 5 suspend.
    case deviceDisconnected(controllerIndex: UInt16, LEAddress, reason: UInt8)
    case connectFailed(controllerIndex: UInt16, LEAddress, status: ManagementStatus)
    case userConfirmationRequest(controllerIndex: UInt16, LEAddress, confirmHint: UInt8, value: UInt32)
    case userPasskeyRequest(controllerIndex: UInt16, LEAddress)
    case authenticationFailed(controllerIndex: UInt16, LEAddress, status: ManagementStatus)
    /// The kernel chose the passkey this side shows (SMP passkey entry with a display here): the
    /// peer's user types it. Entered counts keypresses reported by the peer (0 on LE).
    case passkeyNotify(controllerIndex: UInt16, LEAddress, passkey: UInt32, entered: UInt8)
    case other(code: UInt16, controllerIndex: UInt16, parameters: [UInt8])

    /// Decodes `packet`; a known event with malformed parameters is an error at its byte
    /// offset (counting the 6-byte header).
    public init(_ packet: ManagementPacket) throws(ParseError) {
        let index = packet.controllerIndex
        let code = ManagementEventCode(rawValue: packet.code)
        let result: Result<ManagementEvent, ParseError> = packet.parameters.withUnsafeBytes { raw in
            var input = ByteCursor(raw, baseOffset: 6)
            do throws(ParseError) {
                let event: ManagementEvent
                switch code {
                case .commandComplete:
                    let opcode = ManagementOpcode(rawValue: try input.readUInt16LE("Command_Opcode"))
                    let status = ManagementStatus(rawValue: try input.readUInt8("Status"))
                    event = .commandComplete(opcode, controllerIndex: index, status: status, returnParameters: Array(input.readRemaining()))
                case .commandStatus:
                    let opcode = ManagementOpcode(rawValue: try input.readUInt16LE("Command_Opcode"))
                    event = .commandStatus(opcode, controllerIndex: index, status: ManagementStatus(rawValue: try input.readUInt8("Status")))
                case .newSettings:
                    event = .newSettings(controllerIndex: index, AdapterSettings(rawValue: try input.readUInt32LE("Current_Settings")))
                case .newLongTermKey:
                    let hint = try input.readUInt8("Store_Hint") != 0
                    event = .newLongTermKey(controllerIndex: index, try LongTermKey(parsing: &input), storeHint: hint)
                case .deviceConnected:
                    guard let peer = try Self.address(&input) else { return .success(.other(code: packet.code, controllerIndex: index, parameters: packet.parameters)) }
                    try input.skip(4, "Flags")
                    let length = Int(try input.readUInt16LE("EIR_Data_Length"))
                    try input.skip(length, "EIR_Data")
                    event = .deviceConnected(controllerIndex: index, peer)
                case .deviceDisconnected:
                    guard let peer = try Self.address(&input) else { return .success(.other(code: packet.code, controllerIndex: index, parameters: packet.parameters)) }
                    event = .deviceDisconnected(controllerIndex: index, peer, reason: try input.readUInt8("Reason"))
                case .connectFailed:
                    guard let peer = try Self.address(&input) else { return .success(.other(code: packet.code, controllerIndex: index, parameters: packet.parameters)) }
                    event = .connectFailed(controllerIndex: index, peer, status: ManagementStatus(rawValue: try input.readUInt8("Status")))
                case .userConfirmationRequest:
                    guard let peer = try Self.address(&input) else { return .success(.other(code: packet.code, controllerIndex: index, parameters: packet.parameters)) }
                    let hint = try input.readUInt8("Confirm_Hint")
                    event = .userConfirmationRequest(controllerIndex: index, peer, confirmHint: hint, value: try input.readUInt32LE("Value"))
                case .userPasskeyRequest:
                    guard let peer = try Self.address(&input) else { return .success(.other(code: packet.code, controllerIndex: index, parameters: packet.parameters)) }
                    event = .userPasskeyRequest(controllerIndex: index, peer)
                case .authenticationFailed:
                    guard let peer = try Self.address(&input) else { return .success(.other(code: packet.code, controllerIndex: index, parameters: packet.parameters)) }
                    event = .authenticationFailed(controllerIndex: index, peer, status: ManagementStatus(rawValue: try input.readUInt8("Status")))
                case .passkeyNotify:
                    guard let peer = try Self.address(&input) else { return .success(.other(code: packet.code, controllerIndex: index, parameters: packet.parameters)) }
                    let passkeyOffset = input.offset
                    let passkey = try input.readUInt32LE("Passkey")
                    guard UserPasskeyReply.passkeyRange.contains(passkey) else { throw ParseError(.invalidValue, at: passkeyOffset, field: "Passkey") }
                    event = .passkeyNotify(controllerIndex: index, peer, passkey: passkey, entered: try input.readUInt8("Entered"))
                default:
                    return .success(.other(code: packet.code, controllerIndex: index, parameters: packet.parameters))
                }
                try input.expectEnd("mgmt event parameters")
                return .success(event)
            } catch {
                return .failure(error)
            }
        }
        self = try result.get()
    }

    /// Address (6) and Address_Type (1, BlueZ numbering); nil when the type is not LE
    /// (`BDADDR_BREDR` or undefined), which this LE-only code has no use for.
    private static func address(_ input: inout ByteCursor) throws(ParseError) -> LEAddress? {
        let address = try BluetoothAddress(parsing: &input)
        guard let type = LEAddressType.fromBlueZ(try input.readUInt8("Address_Type")) else { return nil }
        return LEAddress(address, type: type)
    }

    /// The address-and-type parameter block that starts many commands and events (7 bytes).
    static func addressParameters(_ peer: LEAddress) -> [UInt8] {
        peer.address.wireOrder + [peer.type.bluezAddressType]
    }
}
