/// Whether an LE device address is public or random, numbered as HCI numbers it.
///
/// Core 5.4 Vol 4 Part E §7.7.65.1 (LE Connection Complete, Peer_Address_Type) and
/// §7.7.65.10 (LE Enhanced Connection Complete), BlueZ `LE_PUBLIC_ADDRESS` /
/// `LE_RANDOM_ADDRESS`:
///
/// | value | meaning                                            | text              |
/// |-------|----------------------------------------------------|-------------------|
/// | 0x00  | public device address                              | `public`          |
/// | 0x01  | random device address                              | `random`          |
/// | 0x02  | public identity address (resolved from an RPA)     | `public-identity` |
/// | 0x03  | random (static) identity address (resolved)        | `random-identity` |
///
/// BlueZ's sockets and management API number address types differently (`BDADDR_BREDR` 0,
/// `BDADDR_LE_PUBLIC` 1, `BDADDR_LE_RANDOM` 2); BandBlueZ converts at that boundary.
/// Open, so a value this code does not know survives a decode/encode round trip.
public struct LEAddressType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let `public` = LEAddressType(rawValue: 0x00)
    public static let random = LEAddressType(rawValue: 0x01)
    public static let publicIdentity = LEAddressType(rawValue: 0x02)
    public static let randomIdentity = LEAddressType(rawValue: 0x03)

    /// Random device or random identity: the low bit, as HCI assigns the values.
    public var isRandom: Bool { rawValue & 0x01 != 0 }

    /// Parses the ``description`` words (`le-public` and `le-random` are accepted too).
    public init(_ text: String) throws(AddressSyntaxError) {
        switch text.lowercased() {
        case "public", "le-public": self = .public
        case "random", "le-random": self = .random
        case "public-identity": self = .publicIdentity
        case "random-identity": self = .randomIdentity
        default:
            if text.hasPrefix("type-"), let value = UInt8(text.dropFirst(5)) {
                self.init(rawValue: value)
            } else {
                throw AddressSyntaxError(text: text, reason: "address type must be 'public' or 'random'")
            }
        }
    }

    public var description: String {
        switch self {
        case .public: return "public"
        case .random: return "random"
        case .publicIdentity: return "public-identity"
        case .randomIdentity: return "random-identity"
        default: return "type-\(rawValue)"
        }
    }
}
