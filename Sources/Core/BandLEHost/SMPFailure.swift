/// SMP command codes (Core 5.4 Vol 3 Part H §3.3, Table 3.3).
public struct SMPCode: RawRepresentable, Hashable, Sendable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let pairingRequest = SMPCode(rawValue: 0x01)
    public static let pairingResponse = SMPCode(rawValue: 0x02)
    public static let pairingConfirm = SMPCode(rawValue: 0x03)
    public static let pairingRandom = SMPCode(rawValue: 0x04)
    public static let pairingFailed = SMPCode(rawValue: 0x05)
    public static let securityRequest = SMPCode(rawValue: 0x0B)
    public static let pairingPublicKey = SMPCode(rawValue: 0x0C)
    public static let pairingDHKeyCheck = SMPCode(rawValue: 0x0D)
}

/// Why pairing failed: the Pairing Failed reason (Core 5.4 Vol 3 Part H §3.5.5, Table 3.7)
/// and who said so.
public struct SMPFailure: Equatable, Sendable {
    public static let passkeyEntryFailed: UInt8 = 0x01
    public static let authenticationRequirements: UInt8 = 0x03
    public static let confirmValueFailed: UInt8 = 0x04
    public static let pairingNotSupported: UInt8 = 0x05
    public static let encryptionKeySize: UInt8 = 0x06
    public static let commandNotSupported: UInt8 = 0x07
    public static let unspecifiedReason: UInt8 = 0x08
    public static let repeatedAttempts: UInt8 = 0x09
    public static let invalidParameters: UInt8 = 0x0A
    public static let dhKeyCheckFailed: UInt8 = 0x0B

    public var reason: UInt8
    /// True when the band sent the Pairing Failed, false when the central did.
    public var sentByBand: Bool

    public init(reason: UInt8, sentByBand: Bool) {
        self.reason = reason
        self.sentByBand = sentByBand
    }
}
