/// An HCI error code (Core 5.4 Vol 1 Part F §1.3). Open: every controller error survives.
public struct HCIStatus: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let success = HCIStatus(rawValue: 0x00)
    public static let unknownCommand = HCIStatus(rawValue: 0x01)
    public static let hardwareFailure = HCIStatus(rawValue: 0x03)
    public static let authenticationFailure = HCIStatus(rawValue: 0x05)
    public static let commandDisallowed = HCIStatus(rawValue: 0x0C)
    public static let invalidParameters = HCIStatus(rawValue: 0x12)
    public static let unsupportedFeature = HCIStatus(rawValue: 0x11)
    public static let pinOrKeyMissing = HCIStatus(rawValue: 0x06)
    public static let memoryCapacityExceeded = HCIStatus(rawValue: 0x07)
    public static let remoteUserTerminated = HCIStatus(rawValue: 0x13)
    public static let unspecifiedError = HCIStatus(rawValue: 0x1F)
    public static let controllerBusy = HCIStatus(rawValue: 0x3A)

    public var description: String {
        let name: String
        switch self {
        case .success: name = "Success"
        case .unknownCommand: name = "Unknown HCI Command"
        case .hardwareFailure: name = "Hardware Failure"
        case .authenticationFailure: name = "Authentication Failure"
        case .commandDisallowed: name = "Command Disallowed"
        case .invalidParameters: name = "Invalid HCI Command Parameters"
        case .unsupportedFeature: name = "Unsupported Feature or Parameter Value"
        case .pinOrKeyMissing: name = "PIN or Key Missing"
        case .memoryCapacityExceeded: name = "Memory Capacity Exceeded"
        case .remoteUserTerminated: name = "Remote User Terminated Connection"
        case .unspecifiedError: name = "Unspecified Error"
        case .controllerBusy: name = "Controller Busy"
        default: name = "HCI error"
        }
        return "\(name) (0x\(String(rawValue, radix: 16)))"
    }
}
