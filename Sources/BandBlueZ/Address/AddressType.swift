/// Which kind of address a ``BluetoothAddress`` is, numbered as BlueZ's sockets and the
/// management API number it (`BDADDR_BREDR` 0, `BDADDR_LE_PUBLIC` 1, `BDADDR_LE_RANDOM` 2;
/// `<bluetooth/bluetooth.h>`, doc/mgmt-api.txt "Address_Type").
///
/// HCI numbers LE address types differently (0 public, 1 random, 2/3 resolved identities;
/// Core 5.4 Vol 4 Part E §7.7.65.2): convert with ``init(hciLEAddressType:)`` and
/// ``hciLEAddressType``. Open, so an unknown value read from a key file or the kernel survives.
public struct AddressType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let bredr = AddressType(rawValue: 0)
    public static let lePublic = AddressType(rawValue: 1)
    public static let leRandom = AddressType(rawValue: 2)

    /// From an HCI LE event's Address_Type: public and public identity are public; random and
    /// random (static) identity are random.
    public init(hciLEAddressType value: UInt8) {
        self = value & 0x01 == 0 ? .lePublic : .leRandom
    }

    /// The HCI LE Address_Type (Peer_Address_Type in LE Create Connection).
    public var hciLEAddressType: UInt8 { self == .leRandom ? 1 : 0 }

    /// Parses `public` or `random` (the words `band` and `bandsim` accept).
    public init(_ text: String) throws(AddressSyntaxError) {
        switch text.lowercased() {
        case "public", "le-public": self = .lePublic
        case "random", "le-random": self = .leRandom
        case "bredr", "br/edr": self = .bredr
        default: throw AddressSyntaxError(text: text, reason: "address type must be 'public' or 'random'")
        }
    }

    public var description: String {
        switch self {
        case .bredr: return "bredr"
        case .lePublic: return "public"
        case .leRandom: return "random"
        default: return "type-\(rawValue)"
        }
    }
}

/// An LE device's address together with its type: what it takes to connect to it.
public struct LEAddress: Hashable, Sendable, CustomStringConvertible {
    public var address: BluetoothAddress
    public var type: AddressType

    public init(_ address: BluetoothAddress, type: AddressType = .lePublic) {
        self.address = address
        self.type = type
    }

    /// Parses `AA:BB:CC:DD:EE:FF` (public) or `AA:BB:CC:DD:EE:FF/random`.
    public init(_ text: String) throws(AddressSyntaxError) {
        let parts = text.split(separator: "/", maxSplits: 1)
        guard let first = parts.first else { throw AddressSyntaxError(text: text, reason: "empty") }
        address = try BluetoothAddress(String(first))
        type = parts.count == 2 ? try AddressType(String(parts[1])) : .lePublic
    }

    /// `AA:BB:CC:DD:EE:FF` for public addresses, `AA:BB:CC:DD:EE:FF/random` otherwise.
    public var description: String { type == .lePublic ? "\(address)" : "\(address)/\(type)" }
}
