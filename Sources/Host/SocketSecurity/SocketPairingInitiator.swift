import BandLink
import BandWire

/// The reader's half of the socket link's security (``SocketSecurityPDU``): legacy pairing as
/// SMP's initiator, or encryption with a bond from an earlier pairing. No I/O: fed what the peer
/// sent (and the passkey, once the user typed it), it returns what to do next.
///
/// Pairing: Pairing Request → Pairing Response → (passkey) → our Confirm → their Confirm → our
/// Random → their Random (checked against their Confirm) → Encryption Information → Central
/// Identification → bonded. Encryption: start encryption → encryption started (its proof
/// checked) → encrypted, or rejected (the peer lost the bond).
public struct SocketPairingInitiator {
    public enum Mode: Equatable, Sendable {
        /// Pair, declaring `ioCapability` (KeyboardOnly when a passkey can be had).
        case pair(ioCapability: IOCapability)
        /// Encrypt with the bond of an earlier pairing.
        case encrypt(SocketBond)
    }

    public enum Action: Equatable, Sendable {
        case send(SocketSecurityPDU)
        /// Ask the user for the passkey the peer shows; answer with ``enteredPasskey(_:)``.
        case askForPasskey
        case finish(SocketSecurityOutcome)
    }

    fileprivate enum State: Equatable {
        case idle
        case awaitingResponse
        case awaitingPasskey
        case awaitingConfirm
        case awaitingRandom(peerConfirm: [UInt8])
        case awaitingKey
        case awaitingIdentification(longTermKey: [UInt8])
        case awaitingEncryption
        case done
    }

    public let mode: Mode
    private var state = State.idle
    private let request: PairingFeatures
    private var response: PairingFeatures?
    private var temporaryKey: [UInt8] = []
    private let ownRandom: [UInt8]
    private let ownDiversifier: [UInt8]

    /// `random` gives this run's random values (16 bytes for the pairing random, 8 for the
    /// session diversifier): the kernel's in the reader, fixed ones in tests.
    public init(mode: Mode, random: (Int) -> [UInt8]) {
        self.mode = mode
        ownRandom = random(SocketSecurityPDU.valueSize)
        ownDiversifier = random(SocketSecurityPDU.diversifierSize)
        if case .pair(let io) = mode {
            request = PairingFeatures(ioCapability: io)
        } else {
            request = PairingFeatures(ioCapability: .noInputNoOutput)
        }
    }

    public var isFinished: Bool { state == .done }

    public mutating func start() -> [Action] {
        precondition(state == .idle, "start() twice")
        switch mode {
        case .pair:
            state = .awaitingResponse
            return [.send(.pairingRequest(request))]
        case .encrypt(let bond):
            state = .awaitingEncryption
            return [.send(.startEncryption(ediv: bond.ediv, rand: bond.rand, sessionDiversifier: ownDiversifier))]
        }
    }

    /// The peer answered the first message with ATT Error Response "Request Not Supported":
    /// it has no link security on this link (the BandKit band, a replay).
    public mutating func peerHasNoLinkSecurity() -> [Action] {
        guard state == .awaitingResponse || state == .awaitingEncryption else {
            return fail(.unexpected("an ATT error in the middle of pairing"))
        }
        state = .done
        return [.finish(.noLinkSecurity)]
    }

    public mutating func received(_ pdu: SocketSecurityPDU) -> [Action] {
        if case .pairingFailed(let reason) = pdu, state != .done, state != .idle {
            state = .done
            return [.finish(.failed(.refused(reason)))]
        }
        switch (state, pdu) {
        case (.awaitingResponse, .pairingResponse(let features)):
            response = features
            let method = PairingMethod.select(initiator: request, responder: features)
            switch method {
            case .justWorks:
                temporaryKey = PairingMath.temporaryKey(passkey: nil)
                return sendConfirm()
            case .initiatorEntersPasskey:
                state = .awaitingPasskey
                return [.askForPasskey]
            case .responderEntersPasskey, .bothEnterPasskey:
                // The reader shows no passkey: it declares KeyboardOnly or NoInputNoOutput only.
                state = .done
                return [.send(.pairingFailed(.authenticationRequirements)), .finish(.failed(.unexpected("the peer wants to type a passkey (IO capability \(features.ioCapability))")))]
            }
        case (.awaitingConfirm, .pairingConfirm(let value)):
            state = .awaitingRandom(peerConfirm: value)
            return [.send(.pairingRandom(ownRandom))]
        case (.awaitingRandom(let peerConfirm), .pairingRandom(let peerRandom)):
            guard let response, PairingMath.same(peerConfirm, PairingMath.confirm(temporaryKey: temporaryKey, random: peerRandom, request: request, response: response)) else {
                state = .done
                return [.send(.pairingFailed(.confirmValueFailed)), .finish(.failed(.peerConfirmMismatch))]
            }
            state = .awaitingKey
            return []
        case (.awaitingKey, .encryptionInformation(let key)):
            state = .awaitingIdentification(longTermKey: key)
            return []
        case (.awaitingIdentification(let key), .centralIdentification(let ediv, let rand)):
            state = .done
            return [.finish(.bonded(SocketBond(ediv: ediv, rand: rand, longTermKey: key)))]
        case (.awaitingEncryption, .encryptionStarted(let peerDiversifier, let proof)):
            guard case .encrypt(let bond) = mode else { return fail(.unexpected("encryption started without a bond")) }
            state = .done
            let expected = PairingMath.encryptionProof(longTermKey: bond.longTermKey, central: ownDiversifier, peripheral: peerDiversifier)
            return [.finish(PairingMath.same(expected, proof) ? .encrypted : .failed(.keyMismatch))]
        case (.awaitingEncryption, .encryptionRejected(let code)):
            state = .done
            return [.finish(.failed(code == SocketSecurityPDU.keyMissing ? .keyMissing : .unexpected("encryption rejected with error 0x\(String(code, radix: 16))")))]
        default:
            return fail(.unexpected("\(pdu.name) while \(state.waitingFor)"))
        }
    }

    /// The user's passkey, or nil when none could be had (Pairing Failed: Passkey Entry Failed).
    public mutating func enteredPasskey(_ passkey: UInt32?) -> [Action] {
        guard state == .awaitingPasskey else { return fail(.unexpected("a passkey nobody asked for")) }
        guard let passkey, passkey <= 999_999 else {
            state = .done
            return [.send(.pairingFailed(.passkeyEntryFailed)), .finish(.failed(.passkeyNotEntered))]
        }
        temporaryKey = PairingMath.temporaryKey(passkey: passkey)
        return sendConfirm()
    }

    private mutating func sendConfirm() -> [Action] {
        guard let response else { return fail(.unexpected("confirm before the pairing response")) }
        state = .awaitingConfirm
        return [.send(.pairingConfirm(PairingMath.confirm(temporaryKey: temporaryKey, random: ownRandom, request: request, response: response)))]
    }

    private mutating func fail(_ failure: SocketSecurityFailure) -> [Action] {
        state = .done
        return [.send(.pairingFailed(.unspecifiedReason)), .finish(.failed(failure))]
    }
}

/// How the socket link's security ended for the reader.
public enum SocketSecurityOutcome: Equatable, Sendable {
    /// The peer has no security on the socket link: go on without, as before.
    case noLinkSecurity
    /// Paired; the bond to keep.
    case bonded(SocketBond)
    /// Encrypted with the stored bond.
    case encrypted
    case failed(SocketSecurityFailure)
}

/// Why the socket link's security failed, for the reader.
public enum SocketSecurityFailure: Error, Equatable, Sendable, CustomStringConvertible {
    /// The peer asked for a passkey and the user gave none (we sent Passkey Entry Failed).
    case passkeyNotEntered
    /// The peer sent Pairing Failed (Confirm Value Failed: the passkey was not the one it showed).
    case refused(PairingFailedReason)
    /// The peer's confirm value did not match its random: it used another passkey.
    case peerConfirmMismatch
    /// The peer has no bond for our key (it was reset or forgot us).
    case keyMissing
    /// The peer's proof does not match our long-term key.
    case keyMismatch
    /// A message out of order.
    case unexpected(String)
    /// A message that does not parse.
    case malformed(ParseError)
    /// The link failed or closed.
    case link(LinkError)
    /// The peer did not answer within SMP's 30 s (Core 5.4 Vol 3 Part H §3.4).
    case timedOut

    public var description: String {
        switch self {
        case .passkeyNotEntered: "no passkey was entered (Pairing Failed: Passkey Entry Failed (0x01) sent)"
        case .refused(.repeatedAttempts):
            "the device refuses pairing for a while after a wrong passkey (Pairing Failed: Repeated Attempts (0x09)): wait, then try again"
        case .refused(let reason): "the device refused the pairing (Pairing Failed: \(reason))"
        case .peerConfirmMismatch: "the device's confirm value does not match (Confirm Value Failed (0x04) sent): it used another passkey"
        case .keyMissing: "the device has no bond with this reader (PIN or Key Missing): run band pair again"
        case .keyMismatch: "the device's key does not match the bond stored here: run band pair again"
        case .unexpected(let what): "pairing protocol error: \(what)"
        case .malformed(let error): "a broken security message: \(error)"
        case .link(let error): "the link failed during pairing: \(error)"
        case .timedOut: "the device did not answer within 30 s (SMP timeout)"
        }
    }
}

extension SocketSecurityPDU {
    /// The message's name, for errors.
    public var name: String {
        switch self {
        case .pairingRequest: "Pairing Request"
        case .pairingResponse: "Pairing Response"
        case .pairingConfirm: "Pairing Confirm"
        case .pairingRandom: "Pairing Random"
        case .pairingFailed: "Pairing Failed"
        case .encryptionInformation: "Encryption Information"
        case .centralIdentification: "Central Identification"
        case .startEncryption: "start encryption"
        case .encryptionStarted: "encryption started"
        case .encryptionRejected: "encryption rejected"
        }
    }
}

extension SocketPairingInitiator.State {
    fileprivate var waitingFor: String {
        switch self {
        case .idle: "not started"
        case .awaitingResponse: "waiting for Pairing Response"
        case .awaitingPasskey: "waiting for the passkey"
        case .awaitingConfirm: "waiting for Pairing Confirm"
        case .awaitingRandom: "waiting for Pairing Random"
        case .awaitingKey: "waiting for Encryption Information"
        case .awaitingIdentification: "waiting for Central Identification"
        case .awaitingEncryption: "waiting for encryption to start"
        case .done: "finished"
        }
    }
}
