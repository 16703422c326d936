import BandKitSystem
import BandLink
#if canImport(Glibc)
import Glibc
#endif

/// A management command status (BlueZ doc/mgmt-api.txt, "Error Codes"). Open.
public struct ManagementStatus: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let success = ManagementStatus(rawValue: 0x00)
    public static let unknownCommand = ManagementStatus(rawValue: 0x01)
    public static let notConnected = ManagementStatus(rawValue: 0x02)
    public static let failed = ManagementStatus(rawValue: 0x03)
    public static let connectFailed = ManagementStatus(rawValue: 0x04)
    public static let authenticationFailed = ManagementStatus(rawValue: 0x05)
    public static let notPaired = ManagementStatus(rawValue: 0x06)
    public static let noResources = ManagementStatus(rawValue: 0x07)
    public static let timeout = ManagementStatus(rawValue: 0x08)
    public static let alreadyConnected = ManagementStatus(rawValue: 0x09)
    public static let busy = ManagementStatus(rawValue: 0x0A)
    public static let rejected = ManagementStatus(rawValue: 0x0B)
    public static let notSupported = ManagementStatus(rawValue: 0x0C)
    public static let invalidParameters = ManagementStatus(rawValue: 0x0D)
    public static let disconnected = ManagementStatus(rawValue: 0x0E)
    public static let notPowered = ManagementStatus(rawValue: 0x0F)
    public static let cancelled = ManagementStatus(rawValue: 0x10)
    public static let invalidIndex = ManagementStatus(rawValue: 0x11)
    public static let rfkilled = ManagementStatus(rawValue: 0x12)
    public static let alreadyPaired = ManagementStatus(rawValue: 0x13)
    public static let permissionDenied = ManagementStatus(rawValue: 0x14)

    private static let names: [UInt8: String] = [
        0x00: "Success", 0x01: "Unknown Command", 0x02: "Not Connected", 0x03: "Failed",
        0x04: "Connect Failed", 0x05: "Authentication Failed", 0x06: "Not Paired", 0x07: "No Resources",
        0x08: "Timeout", 0x09: "Already Connected", 0x0A: "Busy", 0x0B: "Rejected", 0x0C: "Not Supported",
        0x0D: "Invalid Parameters", 0x0E: "Disconnected", 0x0F: "Not Powered", 0x10: "Cancelled",
        0x11: "Invalid Index", 0x12: "RFKilled", 0x13: "Already Paired", 0x14: "Permission Denied",
    ]

    public var description: String { "\(Self.names[rawValue] ?? "status") (0x\(String(rawValue, radix: 16)))" }

    /// The errno the kernel turned into this status (net/bluetooth/mgmt.c `mgmt_errno_status`, reversed).
    public var errno: Errno {
        switch self {
        case .notConnected, .disconnected: return .notConnected
        case .authenticationFailed, .notPaired: return .permissionDenied
        case .noResources: return .noMemory
        case .timeout: return .timedOut
        case .alreadyConnected, .alreadyPaired: return .alreadyConnected
        case .busy: return .busy
        case .rejected, .connectFailed: return .connectionRefused
        case .notSupported, .unknownCommand: return .notSupported
        case .invalidParameters: return .invalidArgument
        case .notPowered: return .networkDown
        case .cancelled: return Errno(rawValue: ECANCELED)
        case .invalidIndex: return .noSuchDevice
        case .rfkilled: return Errno(rawValue: ERFKILL)
        case .permissionDenied: return .notPermitted
        default: return .ioError
        }
    }
}
