import BandWire

/// An LE Long Term Key as the management API carries it (`struct mgmt_ltk_info`): in the New
/// Long Term Key event and in Load Long Term Keys (BlueZ doc/mgmt-api.txt).
///
/// | offset | size | field                                                        |
/// |--------|------|--------------------------------------------------------------|
/// | 0      | 6    | Address (peer), LE                                           |
/// | 6      | 1    | Address_Type (BlueZ numbering: 1 LE public, 2 LE random)     |
/// | 7      | 1    | Key_Type: 0 unauthenticated legacy, 1 authenticated legacy, 2 unauthenticated P-256, 3 authenticated P-256, 4 debug P-256 |
/// | 8      | 1    | Central: 1 if this key is used when the local side is central (legacy pairing only) |
/// | 9      | 1    | Encryption_Size (7…16)                                       |
/// | 10     | 2    | Encrypted_Diversifier (EDIV), LE                             |
/// | 12     | 8    | Random_Number (Rand), LE                                     |
/// | 20     | 16   | Value, LE                                                    |
public struct LongTermKey: Hashable, Sendable, WireCodable {
    public static let encodedSize = 36

    public var peer: LEAddress
    public var keyType: UInt8
    public var central: Bool
    public var encryptionSize: UInt8
    public var ediv: UInt16
    public var rand: UInt64
    /// The 16 key bytes, wire order.
    public var value: [UInt8]

    public init(peer: LEAddress, keyType: UInt8, central: Bool, encryptionSize: UInt8, ediv: UInt16, rand: UInt64, value: [UInt8]) {
        precondition(value.count == 16, "an LTK is 16 bytes")
        self.peer = peer
        self.keyType = keyType
        self.central = central
        self.encryptionSize = encryptionSize
        self.ediv = ediv
        self.rand = rand
        self.value = value
    }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        let address = try BluetoothAddress(parsing: &input)
        peer = LEAddress(address, type: try input.readBlueZLEAddressType("Address_Type"))
        keyType = try input.readUInt8("Key_Type")
        let role = try input.readUInt8("Central")
        // Only 0 and 1 are defined; the kernel refuses anything else in Load Long Term Keys.
        guard role <= 1 else { throw ParseError(.invalidValue, at: input.offset - 1, field: "Central") }
        central = role == 1
        encryptionSize = try input.readUInt8("Encryption_Size")
        guard (7...16).contains(encryptionSize) else { throw ParseError(.invalidValue, at: input.offset - 1, field: "Encryption_Size") }
        ediv = try input.readUInt16LE("Encrypted_Diversifier")
        rand = try input.readUInt64LE("Random_Number")
        value = Array(try input.readBytes(16, "Value"))
    }

    public func encode(into output: inout ByteWriter) {
        peer.address.encode(into: &output)
        output.writeUInt8(peer.type.bluezAddressType)
        output.writeUInt8(keyType)
        output.writeUInt8(central ? 1 : 0)
        output.writeUInt8(encryptionSize)
        output.writeUInt16LE(ediv)
        output.writeUInt64LE(rand)
        output.writeBytes(value)
    }

    /// Whether two keys are for the same (peer, role) slot, so the newer replaces the older.
    public func occupiesSameSlot(as other: LongTermKey) -> Bool {
        peer == other.peer && central == other.central
    }
}
