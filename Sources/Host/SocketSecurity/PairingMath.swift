import FirmwareCrypto

/// The values legacy pairing computes, for the socket link.
///
/// On a radio, SMP's confirm values come from c1 (AES-128 over the randoms, the pairing PDUs and
/// both addresses; Core 5.4 Vol 3 Part H §2.2.3) and the link encrypts with AES-CCM. The socket
/// link keeps the conversation and what it proves, with HMAC-SHA256 (the firmware's own, no C)
/// in place of AES: a confirm value commits to the temporary key (so to the passkey) and the
/// sender's random before the random is shown; the encryption proof shows the long-term key
/// without sending it. It is a model of the protocol for tests, not secrecy: the long-term key
/// itself crosses the socket in Encryption Information, as SMP sends it under the STK.
public enum PairingMath {
    /// TK (§2.3.5.3): the passkey as a 128-bit little-endian integer; all zeros for Just Works.
    public static func temporaryKey(passkey: UInt32?) -> [UInt8] {
        var key = [UInt8](repeating: 0, count: SocketSecurityPDU.valueSize)
        if let passkey { for index in 0..<4 { key[index] = UInt8(truncatingIfNeeded: passkey >> (8 * UInt32(index))) } }
        return key
    }

    /// The confirm value for `random`: HMAC-SHA256(TK, random ‖ preq ‖ pres), first 16 bytes.
    public static func confirm(temporaryKey: [UInt8], random: [UInt8], request: PairingFeatures, response: PairingFeatures) -> [UInt8] {
        mac(key: temporaryKey, message: random + [0x01] + request.bytes + [0x02] + response.bytes)
    }

    /// The proof that both ends hold the long-term key: HMAC-SHA256(LTK, SKDm ‖ SKDs), first 8 bytes.
    public static func encryptionProof(longTermKey: [UInt8], central: [UInt8], peripheral: [UInt8]) -> [UInt8] {
        Array(mac(key: longTermKey, message: central + peripheral).prefix(SocketSecurityPDU.proofSize))
    }

    /// Compares without stopping at the first difference.
    public static func same(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }

    private static func mac(key: [UInt8], message: [UInt8]) -> [UInt8] {
        let digest = key.withUnsafeBytes { key in message.withUnsafeBytes { HMAC.authenticationCode(for: $0, key: key) } }
        return digest.withUnsafeBytes { Array($0.prefix(SocketSecurityPDU.valueSize)) }
    }
}

/// Which legacy pairing method the two IO capabilities select (Core 5.4 Vol 3 Part H §2.3.5.1
/// Table 2.8), when either side asked for MITM protection; without it, Just Works.
public enum PairingMethod: Equatable, Sendable {
    case justWorks
    /// The responder shows the passkey, the initiator's user types it (a watch and a keyboard).
    case initiatorEntersPasskey
    /// The initiator shows it, the responder's user types it.
    case responderEntersPasskey
    /// Both users type the same passkey.
    case bothEnterPasskey

    public static func select(initiator: PairingFeatures, responder: PairingFeatures) -> PairingMethod {
        let mitm = (initiator.authenticationRequirements | responder.authenticationRequirements) & PairingFeatures.manInTheMiddle != 0
        guard mitm else { return .justWorks }
        let i = initiator.ioCapability, r = responder.ioCapability
        let displays: Set<IOCapability> = [.displayOnly, .displayYesNo]
        let keyboards: Set<IOCapability> = [.keyboardOnly, .keyboardDisplay]
        if i == .noInputNoOutput || r == .noInputNoOutput { return .justWorks }
        if i == .keyboardOnly && r == .keyboardOnly { return .bothEnterPasskey }
        if keyboards.contains(i) && displays.contains(r) { return .initiatorEntersPasskey }
        if i == .keyboardOnly && r == .keyboardDisplay { return .initiatorEntersPasskey }
        if keyboards.contains(r) { return .responderEntersPasskey }
        return .justWorks
    }

    /// Whether the initiator's user types a passkey.
    public var initiatorTypes: Bool { self == .initiatorEntersPasskey || self == .bothEnterPasskey }
    /// Whether the responder shows (or types) one.
    public var responderShows: Bool { self == .initiatorEntersPasskey }
}

/// A bond made on the socket link: what Central Identification names and Encryption
/// Information carries.
public struct SocketBond: Equatable, Sendable {
    public var ediv: UInt16
    public var rand: UInt64
    public var longTermKey: [UInt8]

    public init(ediv: UInt16, rand: UInt64, longTermKey: [UInt8]) {
        self.ediv = ediv
        self.rand = rand
        self.longTermKey = longTermKey
    }
}
