/// A management command code (BlueZ doc/mgmt-api.txt). Open: codes BandKit does not name survive.
public struct ManagementOpcode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let readControllerIndexList = ManagementOpcode(rawValue: 0x0003)
    public static let readControllerInformation = ManagementOpcode(rawValue: 0x0004)
    public static let setPowered = ManagementOpcode(rawValue: 0x0005)
    public static let setConnectable = ManagementOpcode(rawValue: 0x0007)
    public static let setBondable = ManagementOpcode(rawValue: 0x0009)
    public static let setLowEnergy = ManagementOpcode(rawValue: 0x000D)
    public static let loadLongTermKeys = ManagementOpcode(rawValue: 0x0013)
    public static let disconnect = ManagementOpcode(rawValue: 0x0014)
    public static let getConnections = ManagementOpcode(rawValue: 0x0015)
    public static let setIOCapability = ManagementOpcode(rawValue: 0x0018)
    public static let userConfirmationReply = ManagementOpcode(rawValue: 0x001C)
    public static let userConfirmationNegativeReply = ManagementOpcode(rawValue: 0x001D)
    public static let userPasskeyReply = ManagementOpcode(rawValue: 0x001E)
    public static let userPasskeyNegativeReply = ManagementOpcode(rawValue: 0x001F)
    public static let setAdvertising = ManagementOpcode(rawValue: 0x0029)
    public static let readAdvertisingFeatures = ManagementOpcode(rawValue: 0x003D)
    public static let addAdvertising = ManagementOpcode(rawValue: 0x003E)
    public static let removeAdvertising = ManagementOpcode(rawValue: 0x003F)
    public static let setSecureConnections = ManagementOpcode(rawValue: 0x002D)
    public static let addDevice = ManagementOpcode(rawValue: 0x0033)
    public static let removeDevice = ManagementOpcode(rawValue: 0x0034)

    public var description: String {
        switch self {
        case .readControllerIndexList: return "Read Controller Index List"
        case .readControllerInformation: return "Read Controller Information"
        case .setPowered: return "Set Powered"
        case .setConnectable: return "Set Connectable"
        case .setBondable: return "Set Bondable"
        case .setLowEnergy: return "Set Low Energy"
        case .loadLongTermKeys: return "Load Long Term Keys"
        case .disconnect: return "Disconnect"
        case .getConnections: return "Get Connections"
        case .setIOCapability: return "Set IO Capability"
        case .userConfirmationReply: return "User Confirmation Reply"
        case .userConfirmationNegativeReply: return "User Confirmation Negative Reply"
        case .userPasskeyReply: return "User Passkey Reply"
        case .userPasskeyNegativeReply: return "User Passkey Negative Reply"
        case .setAdvertising: return "Set Advertising"
        case .readAdvertisingFeatures: return "Read Advertising Features"
        case .addAdvertising: return "Add Advertising"
        case .removeAdvertising: return "Remove Advertising"
        case .setSecureConnections: return "Set Secure Connections"
        case .addDevice: return "Add Device"
        case .removeDevice: return "Remove Device"
        default: return "mgmt command 0x" + String(rawValue, radix: 16)
        }
    }
}

/// A management event code (BlueZ doc/mgmt-api.txt). Open.
public struct ManagementEventCode: RawRepresentable, Hashable, Sendable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let commandComplete = ManagementEventCode(rawValue: 0x0001)
    public static let commandStatus = ManagementEventCode(rawValue: 0x0002)
    public static let controllerError = ManagementEventCode(rawValue: 0x0003)
    public static let indexAdded = ManagementEventCode(rawValue: 0x0004)
    public static let indexRemoved = ManagementEventCode(rawValue: 0x0005)
    public static let newSettings = ManagementEventCode(rawValue: 0x0006)
    public static let newLongTermKey = ManagementEventCode(rawValue: 0x000A)
    public static let deviceConnected = ManagementEventCode(rawValue: 0x000B)
    public static let deviceDisconnected = ManagementEventCode(rawValue: 0x000C)
    public static let connectFailed = ManagementEventCode(rawValue: 0x000D)
    public static let userConfirmationRequest = ManagementEventCode(rawValue: 0x000F)
    public static let userPasskeyRequest = ManagementEventCode(rawValue: 0x0010)
    public static let authenticationFailed = ManagementEventCode(rawValue: 0x0011)
    public static let passkeyNotify = ManagementEventCode(rawValue: 0x0017)
}
