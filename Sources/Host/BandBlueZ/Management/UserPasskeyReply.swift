import BandWire

/// The parameters of User Passkey Reply (command 0x001E, BlueZ doc/mgmt-api.txt): the answer
/// to a User Passkey Request (event 0x0010) with the passkey the peer shows on its display.
///
/// | offset | size | field                                                    |
/// |--------|------|----------------------------------------------------------|
/// | 0      | 6    | Address (peer), LE                                       |
/// | 6      | 1    | Address_Type (BlueZ numbering: 1 LE public, 2 LE random) |
/// | 7      | 4    | Passkey, LE (0…999999: the six digits on the peer's screen) |
///
/// The kernel answers with Command Complete carrying Address and Address_Type; whether the
/// passkey was right is known only later, from New Long Term Key (right) or Authentication
/// Failed (wrong). The negative reply (0x001F) carries Address and Address_Type only.
public struct UserPasskeyReply: Hashable, Sendable, WireCodable {
    public static let encodedSize = 11
    /// SMP passkeys are six decimal digits.
    public static let passkeyRange: ClosedRange<UInt32> = 0...999_999

    public var peer: LEAddress
    public var passkey: UInt32

    public init(peer: LEAddress, passkey: UInt32) {
        precondition(Self.passkeyRange.contains(passkey), "a passkey is six decimal digits")
        self.peer = peer
        self.passkey = passkey
    }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        let address = try BluetoothAddress(parsing: &input)
        peer = LEAddress(address, type: try input.readBlueZLEAddressType("Address_Type"))
        passkey = try input.readUInt32LE("Passkey")
        guard Self.passkeyRange.contains(passkey) else { throw ParseError(.invalidValue, at: input.offset - 4, field: "Passkey") }
    }

    public func encode(into output: inout ByteWriter) {
        peer.address.encode(into: &output)
        output.writeUInt8(peer.type.bluezAddressType)
        output.writeUInt32LE(passkey)
    }

    /// The command's parameter bytes.
    public var parameters: [UInt8] { managementParameters(size: Self.encodedSize) }
}
