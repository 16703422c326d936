internal import CBlueZ

/// `BT_SECURITY` levels (`<bluetooth/bluetooth.h>`), as the kernel maps them onto LE
/// (net/bluetooth/smp.c): low = no encryption, medium = encrypted (Just Works pairing is
/// enough), high = encrypted with an authenticated (MITM-protected) key, fips = LE Secure
/// Connections only. Open, so an unknown level the kernel reports survives.
public struct SecurityLevel: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let sdp = SecurityLevel(rawValue: UInt8(BT_SECURITY_SDP))
    public static let low = SecurityLevel(rawValue: UInt8(BT_SECURITY_LOW))
    public static let medium = SecurityLevel(rawValue: UInt8(BT_SECURITY_MEDIUM))
    public static let high = SecurityLevel(rawValue: UInt8(BT_SECURITY_HIGH))
    public static let fips = SecurityLevel(rawValue: UInt8(BT_SECURITY_FIPS))

    public static func < (lhs: SecurityLevel, rhs: SecurityLevel) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String {
        switch self {
        case .sdp: return "sdp"
        case .low: return "low"
        case .medium: return "medium"
        case .high: return "high"
        case .fips: return "fips"
        default: return "level-\(rawValue)"
        }
    }
}
