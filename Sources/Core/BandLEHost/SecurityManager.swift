import BandWire
import FirmwareCrypto

/// The SMP responder of one link (Core 5.4 Vol 3 Part H §2.3.5.6, §3): LE Secure Connections
/// only, Just Works or passkey entry with the band displaying, the P-256 work done by the
/// controller (LE Read Local P-256 Public Key, LE Generate DHKey), nonces and passkeys from LE
/// Rand, the toolbox (``SMPCrypto``) in Swift.
///
/// Sans-I/O: each input — an SMP PDU, a key or random number from the controller, encryption
/// on — returns an ``Outcome``: at most one SMP PDU to send, at most one controller request,
/// and what to report.
///
/// | the central sends | the band answers |
/// |---|---|
/// | Pairing Request without the SC bit (legacy pairing) | Pairing Failed, Authentication Requirements (as NimBLE does in SC-only mode, InfiniTime's stack) |
/// | Pairing Request with a key size below 16 | Pairing Failed, Encryption Key Size |
/// | Pairing Request, malformed or out of range | Pairing Failed, Invalid Parameters |
/// | Pairing Request (SC) | Pairing Response; reads its public key |
/// | Pairing Public Key | its own; asks the controller for the DHKey (a key the controller refuses: DHKey Check Failed) |
/// | Pairing Confirm / Random | Just Works: Cb = f4(PKbx, PKax, Nb, 0), then Nb; passkey: 20 rounds on the passkey's bits, Cai checked (Confirm Value Failed) |
/// | DHKey Check Ea | checked against f6 (DHKey Check Failed); Eb; the LTK from f5 answers the LTK request |
/// | Identity Information / Identity Address Information | kept; the bond saved |
/// | anything out of turn | Pairing Failed, Unspecified Reason; an unknown code: Command Not Supported |
public struct SecurityManager: Sendable {
    /// A request to the controller the pairing waits for.
    public enum ControllerRequest: Equatable, Sendable {
        case readLocalPublicKey
        case generateDHKey(FixedBytes<64>)
        case random
    }

    /// What one input calls for.
    public struct Outcome: Sendable {
        /// An SMP PDU to send (empty: none).
        public var reply = FixedBytes<65>()
        public var request: ControllerRequest?
        /// A second request, queued after the first.
        public var followUp: ControllerRequest?
        public var failure: SMPFailure?
        public var malformed: ParseError?
        public var displayPasskey: UInt32?
        public var bond: LEBond?
        public init() {}
    }

    enum State: Equatable, Sendable {
        case idle
        /// Pairing Response sent; collecting both public keys.
        case exchangingKeys
        /// Passkey entry: waiting for the central's confirm of round `round`.
        case awaitingConfirm
        /// Confirm sent; waiting for the central's random.
        case awaitingRandom
        /// Waiting for the DHKey check (and the DHKey).
        case awaitingCheck
        /// Eb sent; waiting for encryption with the new LTK.
        case awaitingEncryption
        /// Encrypted; waiting for the central's identity keys.
        case receivingKeys
        case failed
    }

    let ioCapability: UInt8
    let local: LEAddress
    var peer: LEAddress
    var state = State.idle
    /// The Pairing Request and Response as sent (code first), for f6's IOcap.
    var request = SMPPairingFeatures(ioCapability: 0, authenticationRequirements: 0)
    var response = SMPPairingFeatures(ioCapability: 0, authenticationRequirements: 0)
    var passkeyEntry = false
    var passkey: UInt32 = 0
    var round = 0
    var localKey: FixedBytes<64>?
    var peerKey: FixedBytes<64>?
    var dhKey: P256Coordinate?
    var localNonce = AESBlock()
    var peerNonce = AESBlock()
    var peerConfirm = AESBlock()
    var pendingCheck: AESBlock?
    /// Random bytes gathered from LE Rand (8 at a time) and what they are for.
    var randomBytes = AESBlock()
    var randomCount = 0
    var wantsPasskey = false
    /// The central's first confirm arrived before the passkey existed (``receive(_:)``).
    var confirmWaiting = false
    /// The LTK of this pairing, least significant octet first, once the DHKey checks matched.
    public private(set) var pairedKey: FixedBytes<16>?
    var authenticated = false

    public init(ioCapability: UInt8, local: LEAddress, peer: LEAddress) {
        self.ioCapability = ioCapability
        self.local = local
        self.peer = peer
    }

    /// True while a pairing is under way (the SMP timer runs).
    public var isPairing: Bool { state != .idle && state != .failed }

    // MARK: Inputs

    /// One SMP PDU from the central.
    public mutating func receive(_ pdu: UnsafeRawBufferPointer) -> Outcome {
        var input = ByteCursor(pdu)
        guard let code = try? input.readUInt8("SMP code") else { return fail(SMPFailure.invalidParameters, malformed: ParseError(.truncated, at: 0, field: "SMP code")) }
        do throws(ParseError) {
            switch (SMPCode(rawValue: code), state) {
            case (.pairingRequest, .idle), (.pairingRequest, .failed):
                let features = try SMPPairingFeatures(parsingAll: input.readRemaining(), baseOffset: 1)
                return pairingRequest(features)
            case (.pairingPublicKey, .exchangingKeys) where peerKey == nil:
                peerKey = try FixedBytes(copying: try input.readBytes(64, "public key"))
                try input.expectEnd()
                return keysReady()
            case (.pairingConfirm, .awaitingConfirm):
                peerConfirm = AESBlock(reversing: try input.readBytes(16, "confirm value"))
                try input.expectEnd()
                return askRandom()
            case (.pairingConfirm, .exchangingKeys) where passkeyEntry && peerKey != nil && localKey != nil && !confirmWaiting:
                // The initiator goes first in passkey entry (§2.3.5.6.3) and may have its passkey
                // before LE Rand has given us ours: its confirm waits for it, not a failure.
                peerConfirm = AESBlock(reversing: try input.readBytes(16, "confirm value"))
                try input.expectEnd()
                confirmWaiting = true
                return Outcome()
            case (.pairingRandom, .awaitingRandom):
                peerNonce = AESBlock(reversing: try input.readBytes(16, "random value"))
                try input.expectEnd()
                return peerRandom()
            case (.pairingDHKeyCheck, .awaitingCheck):
                pendingCheck = AESBlock(reversing: try input.readBytes(16, "DHKey check"))
                try input.expectEnd()
                return checkDHKey()
            case (.pairingFailed, _):
                let reason = try input.readUInt8("reason")
                state = .failed
                var outcome = Outcome()
                outcome.failure = SMPFailure(reason: reason, sentByBand: false)
                return outcome
            case (SMPCode(rawValue: 0x08), .receivingKeys):  // Identity Information: the IRK, not needed to keep the bond
                _ = try input.readBytes(16, "identity resolving key")
                try input.expectEnd()
                return Outcome()
            case (SMPCode(rawValue: 0x09), .receivingKeys):  // Identity Address Information
                let type = LEAddressType(rawValue: try input.readUInt8("identity address type"))
                peer = LEAddress(try BluetoothAddress(parsing: &input), type: type)
                try input.expectEnd()
                return bonded()
            default:
                return fail(code <= 0x0E ? SMPFailure.unspecifiedReason : SMPFailure.commandNotSupported)
            }
        } catch {
            return fail(SMPFailure.invalidParameters, malformed: error)
        }
    }

    /// The controller's own public key (LE Read Local P-256 Public Key Complete); nil: it failed.
    public mutating func localPublicKey(_ key: FixedBytes<64>?) -> Outcome {
        guard state == .exchangingKeys else { return Outcome() }
        guard let key else { return fail(SMPFailure.unspecifiedReason) }
        localKey = key
        return keysReady()
    }

    /// The DHKey (LE Generate DHKey Complete); nil: the controller refused the central's key.
    public mutating func generatedDHKey(_ key: P256Coordinate?) -> Outcome {
        guard isPairing, dhKey == nil else { return Outcome() }
        guard let key else { return fail(SMPFailure.dhKeyCheckFailed) }
        dhKey = key
        return state == .awaitingCheck && pendingCheck != nil ? checkDHKey() : Outcome()
    }

    /// Eight random bytes (LE Rand's return parameter, as a little-endian number).
    public mutating func random(_ value: UInt64) -> Outcome {
        guard isPairing else { return Outcome() }
        for i in 0..<8 where randomCount < 16 {
            randomBytes.bytes[randomCount] = UInt8(truncatingIfNeeded: value >> UInt64(8 * i))
            randomCount += 1
        }
        if wantsPasskey {
            wantsPasskey = false
            passkey = (UInt32(randomBytes.bytes[0]) | UInt32(randomBytes.bytes[1]) << 8 | UInt32(randomBytes.bytes[2]) << 16
                       | UInt32(randomBytes.bytes[3]) << 24) % 1_000_000
            randomCount = 0
            var outcome = Outcome()
            outcome.displayPasskey = passkey
            state = .awaitingConfirm
            if confirmWaiting {
                confirmWaiting = false
                outcome.request = askRandom().request
            }
            return outcome
        }
        guard randomCount == 16 else {
            var outcome = Outcome()
            outcome.request = .random
            return outcome
        }
        randomCount = 0
        localNonce = randomBytes
        return sendConfirm()
    }

    /// Encryption came on (or failed) on the link; a bond is returned when pairing just finished
    /// and the central distributes no keys.
    public mutating func encryptionChanged(on: Bool, peer connectionPeer: LEAddress) -> LEBond? {
        guard state == .awaitingEncryption else { return nil }
        guard on else {
            state = .failed
            return nil
        }
        if request.initiatorKeyDistribution & response.initiatorKeyDistribution & 0x02 != 0 {
            state = .receivingKeys
            return nil
        }
        return bonded().bond
    }

    // MARK: Steps

    mutating func pairingRequest(_ features: SMPPairingFeatures) -> Outcome {
        guard features.authenticationRequirements & SMPPairingFeatures.secureConnections != 0 else {
            return fail(SMPFailure.authenticationRequirements)
        }
        guard features.maximumKeySize == 16 else { return fail(SMPFailure.encryptionKeySize) }
        request = features
        // The band displays; a central with a keyboard enters the passkey (Table 2.8).
        passkeyEntry = ioCapability == 0x00 && (features.ioCapability == 0x02 || features.ioCapability == 0x04)
        authenticated = passkeyEntry
        response = SMPPairingFeatures(
            ioCapability: ioCapability, oobDataPresent: 0,
            authenticationRequirements: features.authenticationRequirements & SMPPairingFeatures.bonding
                | (passkeyEntry ? SMPPairingFeatures.mitm : 0) | SMPPairingFeatures.secureConnections,
            maximumKeySize: 16, initiatorKeyDistribution: features.initiatorKeyDistribution & 0x02, responderKeyDistribution: 0)
        state = .exchangingKeys
        confirmWaiting = false
        localKey = nil
        peerKey = nil
        dhKey = nil
        pendingCheck = nil
        pairedKey = nil
        round = 0
        randomCount = 0
        var outcome = Outcome()
        _ = outcome.reply.append(SMPCode.pairingResponse.rawValue)
        response.withBytes { bytes in for i in 0..<6 { _ = outcome.reply.append(bytes[i]) } }
        outcome.request = .readLocalPublicKey
        return outcome
    }

    /// Both public keys known: send ours, ask for the DHKey, and start the first confirm.
    mutating func keysReady() -> Outcome {
        guard let localKey, let peerKey else { return Outcome() }
        guard localKey != peerKey else { return fail(SMPFailure.invalidParameters) }  // a reflected key
        var outcome = Outcome()
        _ = outcome.reply.append(SMPCode.pairingPublicKey.rawValue)
        for i in 0..<64 { _ = outcome.reply.append(localKey[i]) }
        outcome.request = .generateDHKey(peerKey)
        // Then random bytes: the passkey to display, or Just Works' nonce for the confirm.
        wantsPasskey = passkeyEntry
        randomCount = 0
        outcome.followUp = .random
        return outcome
    }

    mutating func askRandom() -> Outcome {
        randomCount = 0
        var outcome = Outcome()
        outcome.request = .random
        return outcome
    }

    /// The confirm of this round: Just Works z = 0, passkey entry z = 0x80 | the round's bit.
    mutating func sendConfirm() -> Outcome {
        guard let localKey, let peerKey else { return fail(SMPFailure.unspecifiedReason) }
        let z: UInt8 = passkeyEntry ? 0x80 | UInt8((passkey >> UInt32(round)) & 1) : 0
        let confirm = SMPCrypto.f4(u: Self.x(of: localKey), v: Self.x(of: peerKey), x: localNonce, z: z)
        state = .awaitingRandom
        var outcome = Outcome()
        _ = outcome.reply.append(SMPCode.pairingConfirm.rawValue)
        appendWire(confirm, to: &outcome.reply)
        return outcome
    }

    mutating func peerRandom() -> Outcome {
        guard let localKey, let peerKey else { return fail(SMPFailure.unspecifiedReason) }
        if passkeyEntry {
            let z: UInt8 = 0x80 | UInt8((passkey >> UInt32(round)) & 1)
            guard SMPCrypto.f4(u: Self.x(of: peerKey), v: Self.x(of: localKey), x: peerNonce, z: z) == peerConfirm else {
                return fail(SMPFailure.confirmValueFailed)
            }
        }
        var outcome = Outcome()
        _ = outcome.reply.append(SMPCode.pairingRandom.rawValue)
        appendWire(localNonce, to: &outcome.reply)
        if passkeyEntry, round < 19 {
            round += 1
            state = .awaitingConfirm
        } else {
            state = .awaitingCheck
        }
        return outcome
    }

    mutating func checkDHKey() -> Outcome {
        guard let check = pendingCheck, let dhKey else { return Outcome() }
        let (macKey, ltk) = SMPCrypto.f5(w: dhKey, n1: peerNonce, n2: localNonce, a1: peer, a2: local)
        var r = AESBlock()
        if passkeyEntry {
            r.bytes[12] = UInt8(truncatingIfNeeded: passkey >> 24)
            r.bytes[13] = UInt8(truncatingIfNeeded: passkey >> 16)
            r.bytes[14] = UInt8(truncatingIfNeeded: passkey >> 8)
            r.bytes[15] = UInt8(truncatingIfNeeded: passkey)
        }
        let expected = SMPCrypto.f6(w: macKey, n1: peerNonce, n2: localNonce, r: r, ioCapability: Self.ioCap(request), a1: peer, a2: local)
        guard expected == check else { return fail(SMPFailure.dhKeyCheckFailed) }
        let mine = SMPCrypto.f6(w: macKey, n1: localNonce, n2: peerNonce, r: r, ioCapability: Self.ioCap(response), a1: local, a2: peer)
        var key = FixedBytes<16>()
        for i in 0..<16 { _ = key.append(ltk.bytes[15 - i]) }
        pairedKey = key
        state = .awaitingEncryption
        var outcome = Outcome()
        _ = outcome.reply.append(SMPCode.pairingDHKeyCheck.rawValue)
        appendWire(mine, to: &outcome.reply)
        return outcome
    }

    mutating func bonded() -> Outcome {
        state = .idle
        var outcome = Outcome()
        if let pairedKey, request.authenticationRequirements & response.authenticationRequirements & SMPPairingFeatures.bonding != 0 {
            outcome.bond = LEBond(peer: peer, longTermKey: pairedKey, authenticated: authenticated)
        }
        return outcome
    }

    mutating func fail(_ reason: UInt8, malformed: ParseError? = nil) -> Outcome {
        state = .failed
        pairedKey = nil
        var outcome = Outcome()
        _ = outcome.reply.append(SMPCode.pairingFailed.rawValue)
        _ = outcome.reply.append(reason)
        outcome.failure = SMPFailure(reason: reason, sentByBand: true)
        outcome.malformed = malformed
        return outcome
    }

    /// The 30-second SMP timeout (§3.4) ran out: pairing over, no Pairing Failed is sent.
    public mutating func timedOut() -> Outcome {
        state = .failed
        pairedKey = nil
        var outcome = Outcome()
        outcome.failure = SMPFailure(reason: SMPFailure.unspecifiedReason, sentByBand: true)
        return outcome
    }

    // MARK: Helpers

    static func x(of key: FixedBytes<64>) -> P256Coordinate {
        var x = P256Coordinate()
        for i in 0..<32 { x.bytes[i] = key[i] }
        return x
    }

    /// AuthReq ‖ OOB ‖ IO capability, f6's IOcap.
    static func ioCap(_ features: SMPPairingFeatures) -> UInt32 {
        UInt32(features.authenticationRequirements) << 16 | UInt32(features.oobDataPresent) << 8 | UInt32(features.ioCapability)
    }

    func appendWire(_ block: AESBlock, to reply: inout FixedBytes<65>) {
        for i in 0..<16 { _ = reply.append(block.bytes[15 - i]) }
    }
}

extension SMPPairingFeatures {
    /// The six bytes, for building a reply without a writer.
    func withBytes(_ body: (InlineArray<6, UInt8>) -> Void) {
        body([ioCapability, oobDataPresent, authenticationRequirements, maximumKeySize, initiatorKeyDistribution, responderKeyDistribution])
    }
}

extension SecurityManager {
    /// The controller refused a command pairing needed (LE Rand, P-256, DHKey): pairing fails
    /// with Unspecified Reason.
    public mutating func controllerFailed() -> Outcome { fail(SMPFailure.unspecifiedReason) }
}
