import BandWire

/// A 48-bit Bluetooth device address (BD_ADDR) and its LE address type.
///
/// Core 5.4 Vol 6 Part B §1.3; on the HCI wire the 6 bytes are little-endian (least
/// significant byte first), in text most significant first: `"C8:0F:10:12:34:56"`.
public struct BluetoothDeviceAddress: Hashable, Sendable, CustomStringConvertible {
    /// The address as a 48-bit integer (text order).
    public var value: UInt64

    public init(_ value: UInt64) { self.value = value & 0xFFFF_FFFF_FFFF }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        let low = try input.readUInt32LE("BD_ADDR")
        let high = try input.readUInt16LE("BD_ADDR")
        value = UInt64(high) << 32 | UInt64(low)
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt32LE(UInt32(truncatingIfNeeded: value))
        output.writeUInt16LE(UInt16(truncatingIfNeeded: value >> 32))
    }

    public var description: String {
        (0..<6).reversed().map { i -> String in
            let byte = UInt8(truncatingIfNeeded: value >> (8 * UInt64(i)))
            return (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
        }.joined(separator: ":")
    }
}

/// Public or random, and whether resolved from an RPA (Core 5.4 Vol 4 Part E §7.7.65.1,
/// Peer_Address_Type; BlueZ `LE_PUBLIC_ADDRESS` / `LE_RANDOM_ADDRESS`).
public struct LEAddressType: RawRepresentable, Hashable, Sendable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let publicDevice = LEAddressType(rawValue: 0x00)
    public static let randomDevice = LEAddressType(rawValue: 0x01)
    public static let publicIdentity = LEAddressType(rawValue: 0x02)
    public static let randomIdentity = LEAddressType(rawValue: 0x03)
}

/// A peer as the controller names it: type + address. Keys learned attribute tables so a
/// reconnection to the same band reuses what discovery found on an earlier connection.
public struct LEPeer: Hashable, Sendable, CustomStringConvertible {
    public var addressType: LEAddressType
    public var address: BluetoothDeviceAddress
    public init(addressType: LEAddressType, address: BluetoothDeviceAddress) {
        self.addressType = addressType
        self.address = address
    }
    public var description: String {
        "\(address) (\(addressType.rawValue & 1 == 0 ? "public" : "random"))"
    }
}
