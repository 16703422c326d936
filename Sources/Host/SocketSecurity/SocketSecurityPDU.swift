import BandWire

/// One message of the simulator's link security on the socket link (`sim:` addresses): LE
/// legacy pairing's SMP PDUs (Core 5.4 Vol 3 Part H §3.5–3.6) and three stand-ins for the link
/// layer's encryption start with a bond (Vol 6 Part B §5.1.3: LL_ENC_REQ, LL_START_ENC_RSP,
/// LL_REJECT_EXT_IND), which a Unix socket has no link layer to carry.
///
/// A radio carries SMP on L2CAP channel 6 beside ATT on channel 4; the socket link carries one
/// ATT PDU per datagram and no channel number, so a security message travels in an envelope:
/// the first byte is ``envelopeOpcode`` (0x3F, a request opcode no ATT version defines), then
/// the message. A server that does not know it (the BandKit band, a replay) answers ATT Error
/// Response "Request Not Supported" for opcode 0x3F, which the reader reads as "this link has
/// no security", the socket link's behaviour before it had any.
///
/// | code | message | bytes after the code |
/// |---|---|---|
/// | 0x01 | Pairing Request (§3.5.1) | IO capability, OOB flag, AuthReq, max key size, initiator key distribution, responder key distribution (1 each) |
/// | 0x02 | Pairing Response (§3.5.2) | same six |
/// | 0x03 | Pairing Confirm (§3.5.3) | confirm value (16) |
/// | 0x04 | Pairing Random (§3.5.4) | random value (16) |
/// | 0x05 | Pairing Failed (§3.5.5) | reason (1) |
/// | 0x06 | Encryption Information (§3.6.2) | long-term key (16) |
/// | 0x07 | Central Identification (§3.6.3) | EDIV (2, LE), Rand (8, LE) |
/// | 0xE0 | start encryption (LL_ENC_REQ) | EDIV (2, LE), Rand (8, LE), SKDm (8) |
/// | 0xE1 | encryption started (LL_START_ENC_RSP) | SKDs (8), proof (8) = HMAC-SHA256(LTK, SKDm ‖ SKDs)[0..<8] |
///
/// Every envelope fits the default ATT_MTU of 23 the socket link starts with (the longest, Pairing
/// Confirm and Random, is 18 bytes), as SMP's own PDUs fit its MTU of 23 (§3.2).
/// | 0xE2 | encryption rejected (LL_REJECT_EXT_IND) | HCI error code (1): 0x06 PIN or Key Missing |
public enum SocketSecurityPDU: Equatable, Sendable {
    case pairingRequest(PairingFeatures)
    case pairingResponse(PairingFeatures)
    case pairingConfirm([UInt8])
    case pairingRandom([UInt8])
    case pairingFailed(PairingFailedReason)
    case encryptionInformation(longTermKey: [UInt8])
    case centralIdentification(ediv: UInt16, rand: UInt64)
    case startEncryption(ediv: UInt16, rand: UInt64, sessionDiversifier: [UInt8])
    case encryptionStarted(sessionDiversifier: [UInt8], proof: [UInt8])
    case encryptionRejected(errorCode: UInt8)

    /// The envelope's first byte on the socket link.
    public static let envelopeOpcode: UInt8 = 0x3F
    /// HCI error "PIN or Key Missing" (Core 5.4 Vol 1 Part F §2.6): the peer has no such bond.
    public static let keyMissing: UInt8 = 0x06
    /// Size of confirm and random values and of keys.
    public static let valueSize = 16
    /// Size of the session key diversifiers.
    public static let diversifierSize = 8
    /// Size of the encryption proof (the link layer's MIC is 4 bytes; 8 here).
    public static let proofSize = 8

    /// Parses one envelope (its ``envelopeOpcode`` included). Offsets count from the envelope's first byte.
    public init(envelope bytes: [UInt8]) throws(ParseError) {
        let result: Result<SocketSecurityPDU, ParseError> = bytes.withUnsafeBytes { raw in
            var cursor = ByteCursor(raw)
            do throws(ParseError) {
                guard try cursor.readUInt8("envelope opcode") == Self.envelopeOpcode else {
                    throw ParseError(.invalidValue, at: 0, field: "envelope opcode")
                }
                let pdu = try SocketSecurityPDU(parsing: &cursor)
                try cursor.expectEnd("security message")
                return .success(pdu)
            } catch { return .failure(error) }
        }
        self = try result.get()
    }

    init(parsing cursor: inout ByteCursor) throws(ParseError) {
        let codeOffset = cursor.offset
        switch try cursor.readUInt8("security code") {
        case 0x01: self = .pairingRequest(try PairingFeatures(parsing: &cursor))
        case 0x02: self = .pairingResponse(try PairingFeatures(parsing: &cursor))
        case 0x03: self = .pairingConfirm(try Self.bytes(Self.valueSize, from: &cursor, "confirm value"))
        case 0x04: self = .pairingRandom(try Self.bytes(Self.valueSize, from: &cursor, "random value"))
        case 0x05: self = .pairingFailed(PairingFailedReason(rawValue: try cursor.readUInt8("reason")))
        case 0x06: self = .encryptionInformation(longTermKey: try Self.bytes(Self.valueSize, from: &cursor, "long-term key"))
        case 0x07: self = .centralIdentification(ediv: try cursor.readUInt16LE("EDIV"), rand: try cursor.readUInt64LE("Rand"))
        case 0xE0:
            self = .startEncryption(ediv: try cursor.readUInt16LE("EDIV"), rand: try cursor.readUInt64LE("Rand"),
                                    sessionDiversifier: try Self.bytes(Self.diversifierSize, from: &cursor, "SKDm"))
        case 0xE1:
            self = .encryptionStarted(sessionDiversifier: try Self.bytes(Self.diversifierSize, from: &cursor, "SKDs"),
                                      proof: try Self.bytes(Self.proofSize, from: &cursor, "proof"))
        case 0xE2: self = .encryptionRejected(errorCode: try cursor.readUInt8("error code"))
        default: throw ParseError(.unsupported, at: codeOffset, field: "security code")
        }
    }

    private static func bytes(_ count: Int, from cursor: inout ByteCursor, _ field: StaticString) throws(ParseError) -> [UInt8] {
        Array(try cursor.readBytes(count, field))
    }

    /// The envelope: ``envelopeOpcode`` then the message.
    public var envelope: [UInt8] {
        var out: [UInt8] = [Self.envelopeOpcode]
        switch self {
        case .pairingRequest(let features): out += [0x01] + features.bytes
        case .pairingResponse(let features): out += [0x02] + features.bytes
        case .pairingConfirm(let value): out += [0x03] + Self.fixed(value, Self.valueSize)
        case .pairingRandom(let value): out += [0x04] + Self.fixed(value, Self.valueSize)
        case .pairingFailed(let reason): out += [0x05, reason.rawValue]
        case .encryptionInformation(let key): out += [0x06] + Self.fixed(key, Self.valueSize)
        case .centralIdentification(let ediv, let rand): out += [0x07] + Self.littleEndian(ediv) + Self.littleEndian(rand)
        case .startEncryption(let ediv, let rand, let diversifier):
            out += [0xE0] + Self.littleEndian(ediv) + Self.littleEndian(rand) + Self.fixed(diversifier, Self.diversifierSize)
        case .encryptionStarted(let diversifier, let proof):
            out += [0xE1] + Self.fixed(diversifier, Self.diversifierSize) + Self.fixed(proof, Self.proofSize)
        case .encryptionRejected(let code): out += [0xE2, code]
        }
        return out
    }

    private static func fixed(_ bytes: [UInt8], _ count: Int) -> [UInt8] {
        precondition(bytes.count == count, "a \(count)-byte field holds \(bytes.count) bytes")
        return bytes
    }

    static func littleEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        (0..<(T.bitWidth / 8)).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }
}

/// The six feature bytes of Pairing Request and Response (Core 5.4 Vol 3 Part H §3.5.1).
public struct PairingFeatures: Equatable, Sendable {
    public var ioCapability: IOCapability
    public var oobDataPresent: Bool
    /// AuthReq: bit 0 bonding, bit 2 MITM (§3.5.1 Figure 3.3).
    public var authenticationRequirements: UInt8
    public var maximumKeySize: UInt8
    public var initiatorKeyDistribution: UInt8
    public var responderKeyDistribution: UInt8

    /// AuthReq bits used here.
    public static let bonding: UInt8 = 0x01
    public static let manInTheMiddle: UInt8 = 0x04
    /// Key distribution bit 0: EncKey (LTK, EDIV, Rand).
    public static let encryptionKey: UInt8 = 0x01

    public init(ioCapability: IOCapability, oobDataPresent: Bool = false,
                authenticationRequirements: UInt8 = PairingFeatures.bonding | PairingFeatures.manInTheMiddle,
                maximumKeySize: UInt8 = 16, initiatorKeyDistribution: UInt8 = 0,
                responderKeyDistribution: UInt8 = PairingFeatures.encryptionKey) {
        self.ioCapability = ioCapability
        self.oobDataPresent = oobDataPresent
        self.authenticationRequirements = authenticationRequirements
        self.maximumKeySize = maximumKeySize
        self.initiatorKeyDistribution = initiatorKeyDistribution
        self.responderKeyDistribution = responderKeyDistribution
    }

    init(parsing cursor: inout ByteCursor) throws(ParseError) {
        ioCapability = IOCapability(rawValue: try cursor.readUInt8("IO capability"))
        let oobOffset = cursor.offset
        let oob = try cursor.readUInt8("OOB data flag")
        guard oob <= 1 else { throw ParseError(.invalidValue, at: oobOffset, field: "OOB data flag") }
        oobDataPresent = oob == 1
        authenticationRequirements = try cursor.readUInt8("AuthReq")
        let sizeOffset = cursor.offset
        maximumKeySize = try cursor.readUInt8("maximum encryption key size")
        // §3.5.1: 7 to 16 octets.
        guard (7...16).contains(maximumKeySize) else { throw ParseError(.invalidValue, at: sizeOffset, field: "maximum encryption key size") }
        initiatorKeyDistribution = try cursor.readUInt8("initiator key distribution")
        responderKeyDistribution = try cursor.readUInt8("responder key distribution")
    }

    var bytes: [UInt8] {
        [ioCapability.rawValue, oobDataPresent ? 1 : 0, authenticationRequirements, maximumKeySize,
         initiatorKeyDistribution, responderKeyDistribution]
    }
}

/// SMP IO capability (Core 5.4 Vol 3 Part H §3.5.1 Table 3.4). Open: unknown values are kept.
public struct IOCapability: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let displayOnly = IOCapability(rawValue: 0x00)
    public static let displayYesNo = IOCapability(rawValue: 0x01)
    public static let keyboardOnly = IOCapability(rawValue: 0x02)
    public static let noInputNoOutput = IOCapability(rawValue: 0x03)
    public static let keyboardDisplay = IOCapability(rawValue: 0x04)

    public var description: String {
        switch self {
        case .displayOnly: "DisplayOnly"
        case .displayYesNo: "DisplayYesNo"
        case .keyboardOnly: "KeyboardOnly"
        case .noInputNoOutput: "NoInputNoOutput"
        case .keyboardDisplay: "KeyboardDisplay"
        default: "IO capability 0x\(String(rawValue, radix: 16))"
        }
    }
}

/// Pairing Failed reasons (Core 5.4 Vol 3 Part H §3.5.5 Table 3.7). Open.
public struct PairingFailedReason: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let passkeyEntryFailed = PairingFailedReason(rawValue: 0x01)
    public static let authenticationRequirements = PairingFailedReason(rawValue: 0x03)
    public static let confirmValueFailed = PairingFailedReason(rawValue: 0x04)
    public static let pairingNotSupported = PairingFailedReason(rawValue: 0x05)
    public static let unspecifiedReason = PairingFailedReason(rawValue: 0x08)
    /// Too little time since the last failed attempt (Core 5.4 Vol 3 Part H §2.3.6).
    public static let repeatedAttempts = PairingFailedReason(rawValue: 0x09)

    public var description: String {
        let name: String
        switch self {
        case .passkeyEntryFailed: name = "Passkey Entry Failed"
        case .authenticationRequirements: name = "Authentication Requirements"
        case .confirmValueFailed: name = "Confirm Value Failed"
        case .pairingNotSupported: name = "Pairing Not Supported"
        case .unspecifiedReason: name = "Unspecified Reason"
        case .repeatedAttempts: name = "Repeated Attempts"
        default: name = "reason"
        }
        return "\(name) (0x\(rawValue < 16 ? "0" : "")\(String(rawValue, radix: 16)))"
    }
}
