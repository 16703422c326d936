/// The peer's half of the socket link's security (``SocketSecurityPDU``), as a simulated
/// device runs it: SMP's responder in legacy pairing, showing a passkey when its IO capability
/// is a display, and the link layer's answer to "encrypt with this bond". No I/O: fed each
/// message, it returns the messages to send and what to tell the simulator's user.
///
/// A wrong passkey is caught where SMP catches it: the reader's confirm value, checked once its
/// random arrives, does not match the passkey shown, so the answer is Pairing Failed, Confirm
/// Value Failed (0x04), and no key is distributed. Bonds outlive connections (a device keeps
/// them in flash); ``connectionEnded()`` forgets only the pairing in progress.
///
/// Wrong passkeys cannot be tried at the link's pace: after each failed attempt a waiting
/// interval must pass before the next Pairing Request is taken (Core 5.4 Vol 3 Part H §2.3.6,
/// "Repeated attempts"), doubling with every failure in a row up to ``maximumWait``; a request
/// inside it is answered Pairing Failed, Repeated Attempts (0x09). With a fixed passkey, all
/// 10⁶ codes would otherwise take hours. A bond, or ``maximumWait`` without a failure once the
/// wait is over, starts the count over. The time is an input (`at:`), so the rule is tested with a
/// scripted clock.
public struct SocketPairingResponder {
    public enum Action: Equatable, Sendable {
        case send(SocketSecurityPDU)
        /// Show this passkey on the device's screen (stderr for the simulator).
        case display(UInt32)
        /// Paired: the new bond was kept.
        case bonded(SocketBond)
        /// Encrypted with a stored bond.
        case encrypted(SocketBond)
        /// The pairing or encryption failed; why, for the log.
        case failed(String)
    }

    private enum State: Equatable {
        case idle
        case awaitingConfirm
        case awaitingRandom(centralConfirm: [UInt8])
    }

    public let ioCapability: IOCapability
    /// Whether the device refuses Just Works (MITM protection required, as InfiniTime's "a
    /// reader needs passkey entry"): Pairing Failed, Authentication Requirements (0x03).
    public let requiresPasskey: Bool
    /// The passkey to show, or nil for a fresh random one per pairing (as InfiniTime does).
    public let fixedPasskey: UInt32?
    public private(set) var bonds: [SocketBond] = []
    private var state = State.idle
    private var request: PairingFeatures?
    private var response: PairingFeatures?
    private var temporaryKey: [UInt8] = []
    private var ownRandom: [UInt8] = []
    private let random: (Int) -> [UInt8]
    /// The wait after the first failed attempt; it doubles with each further failure in a row.
    public var firstWait: Duration = .seconds(1)
    public var maximumWait: Duration = .seconds(600)
    /// Failed attempts in a row, and when the last one failed.
    public private(set) var failures = 0
    private var lastFailure: ContinuousClock.Instant?

    /// `random` gives random bytes (the kernel's in bandsim, fixed ones in tests).
    public init(ioCapability: IOCapability, requiresPasskey: Bool = false, fixedPasskey: UInt32? = nil, random: @escaping (Int) -> [UInt8]) {
        precondition(fixedPasskey.map { $0 <= 999_999 } ?? true, "a passkey has six digits")
        self.ioCapability = ioCapability
        self.requiresPasskey = requiresPasskey
        self.fixedPasskey = fixedPasskey
        self.random = random
    }

    /// The link ended: a pairing in progress is abandoned (SMP starts over on the next link).
    public mutating func connectionEnded() {
        state = .idle
        request = nil
        response = nil
    }

    /// The waiting interval after `failures` failed attempts in a row.
    public func wait(afterFailures count: Int) -> Duration {
        guard count > 0 else { return .zero }
        let doublings = min(count - 1, 30)
        return min(firstWait * (1 << doublings), maximumWait)
    }

    /// When the next Pairing Request will be taken (nil: at once).
    public func nextAttemptAllowed() -> ContinuousClock.Instant? {
        lastFailure.map { $0.advanced(by: wait(afterFailures: failures)) }
    }

    /// One message from the reader, received at `now`.
    public mutating func received(_ pdu: SocketSecurityPDU, at now: ContinuousClock.Instant) -> [Action] {
        if let allowed = nextAttemptAllowed(), now >= allowed.advanced(by: maximumWait) {
            failures = 0
            lastFailure = nil
        }
        if case .pairingRequest = pdu, let allowed = nextAttemptAllowed(), now < allowed {
            connectionEnded()
            return [.send(.pairingFailed(.repeatedAttempts)),
                    .failed("a pairing request \(Self.seconds(now - lastFailure!)) after \(failures) failed attempt\(failures == 1 ? "" : "s") in a row; "
                            + "refused (Repeated Attempts) for another \(Self.seconds(now.duration(to: allowed)))")]
        }
        switch (state, pdu) {
        case (_, .pairingRequest(let features)):
            // A new Pairing Request starts over, whatever was in progress (§3.5.1).
            let answer = PairingFeatures(ioCapability: ioCapability,
                                         authenticationRequirements: PairingFeatures.bonding | (requiresPasskey ? PairingFeatures.manInTheMiddle : 0),
                                         responderKeyDistribution: features.responderKeyDistribution & PairingFeatures.encryptionKey)
            request = features
            response = answer
            ownRandom = random(SocketSecurityPDU.valueSize)
            state = .awaitingConfirm
            var actions: [Action] = [.send(.pairingResponse(answer))]
            switch PairingMethod.select(initiator: features, responder: answer) {
            case .justWorks where requiresPasskey:
                connectionEnded()
                return [.send(.pairingFailed(.authenticationRequirements)),
                        .failed("the reader offers no keyboard (\(features.ioCapability)) and this device pairs only with a passkey")]
            case .justWorks:
                temporaryKey = PairingMath.temporaryKey(passkey: nil)
            case .initiatorEntersPasskey:
                let passkey = fixedPasskey ?? Self.passkey(from: random(4))
                temporaryKey = PairingMath.temporaryKey(passkey: passkey)
                actions.append(.display(passkey))
            case .responderEntersPasskey, .bothEnterPasskey:
                state = .idle
                return [.send(.pairingFailed(.authenticationRequirements)), .failed("the reader wants this device to type a passkey; it has no keyboard")]
            }
            return actions
        case (.awaitingConfirm, .pairingConfirm(let value)):
            guard let request, let response else { return abandon(.unspecifiedReason, "confirm before a pairing request") }
            state = .awaitingRandom(centralConfirm: value)
            return [.send(.pairingConfirm(PairingMath.confirm(temporaryKey: temporaryKey, random: ownRandom, request: request, response: response)))]
        case (.awaitingRandom(let centralConfirm), .pairingRandom(let centralRandom)):
            guard let request, let response else { return abandon(.unspecifiedReason, "random before a pairing request") }
            let expected = PairingMath.confirm(temporaryKey: temporaryKey, random: centralRandom, request: request, response: response)
            guard PairingMath.same(expected, centralConfirm) else {
                failures += 1
                lastFailure = now
                let wait = Self.seconds(wait(afterFailures: failures))
                return abandon(.confirmValueFailed, "the reader's confirm value does not match: a wrong passkey").map { action in
                    guard case .failed(let why) = action else { return action }
                    return .failed(why + "; \(failures) in a row: pairing requests are refused for the next \(wait) (Repeated Attempts)")
                }
            }
            failures = 0
            lastFailure = nil
            let bond = SocketBond(ediv: Self.littleEndian(random(2)), rand: Self.littleEndian(random(8)),
                                  longTermKey: random(SocketSecurityPDU.valueSize))
            bonds.removeAll { $0.ediv == bond.ediv && $0.rand == bond.rand }
            bonds.append(bond)
            connectionEnded()
            var actions: [Action] = [.send(.pairingRandom(ownRandom))]
            if response.responderKeyDistribution & PairingFeatures.encryptionKey != 0 {
                actions += [.send(.encryptionInformation(longTermKey: bond.longTermKey)),
                            .send(.centralIdentification(ediv: bond.ediv, rand: bond.rand))]
            }
            return actions + [.bonded(bond)]
        case (_, .pairingFailed(let reason)):
            connectionEnded()
            return [.failed("the reader ended the pairing: \(reason)")]
        case (.idle, .startEncryption(let ediv, let rand, let centralDiversifier)):
            guard let bond = bonds.last(where: { $0.ediv == ediv && $0.rand == rand }) else {
                return [.send(.encryptionRejected(errorCode: SocketSecurityPDU.keyMissing)),
                        .failed("no bond for EDIV 0x\(String(ediv, radix: 16)): PIN or Key Missing")]
            }
            let ownDiversifier = random(SocketSecurityPDU.diversifierSize)
            let proof = PairingMath.encryptionProof(longTermKey: bond.longTermKey, central: centralDiversifier, peripheral: ownDiversifier)
            return [.send(.encryptionStarted(sessionDiversifier: ownDiversifier, proof: proof)), .encrypted(bond)]
        default:
            return abandon(.unspecifiedReason, "unexpected \(pdu.name)")
        }
    }

    private mutating func abandon(_ reason: PairingFailedReason, _ why: String) -> [Action] {
        connectionEnded()
        return [.send(.pairingFailed(reason)), .failed("\(why); Pairing Failed: \(reason)")]
    }

    /// A duration as whole seconds (rounded up: "0 s" would invite an immediate retry).
    static func seconds(_ duration: Duration) -> String {
        let (whole, fraction) = duration.components
        return "\(whole + (fraction > 0 ? 1 : 0)) s"
    }

    /// The passkey as the screen shows it: six digits, leading zeros kept.
    public static func digits(_ passkey: UInt32) -> String {
        let text = String(passkey % 1_000_000)
        return String(repeating: "0", count: 6 - text.count) + text
    }

    /// Six decimal digits from four random bytes (the kernel's way: a u32 modulo 1,000,000).
    static func passkey(from bytes: [UInt8]) -> UInt32 { UInt32(truncatingIfNeeded: littleEndian(bytes) as UInt64) % 1_000_000 }

    static func littleEndian<T: FixedWidthInteger>(_ bytes: [UInt8]) -> T {
        bytes.enumerated().reduce(T.zero) { $0 | T(truncatingIfNeeded: $1.element) << (8 * $1.offset) }
    }
}
