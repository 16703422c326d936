import BandATT
import BandCrypto
import BandProtocol
import BandWire

/// Pairing (with the wearer's confirmation) and per-connection challenge–response
/// authentication on the Auth Control Point.
extension SimulatedBand {
    /// How long a pairing waits for the wearer (band time).
    static let pairingTimeout: Duration = .seconds(30)

    func handleAuthRequest(_ request: AuthRequest) {
        guard let current = connection else { return }
        switch request {
        case .pair(let pair):
            guard !current.auth.lockedOut else {
                indicate(.authControlPoint) { PairingResponse(status: .lockedOut).encode(into: &$0) }
                return
            }
            current.pairing = PendingPairing(readerID: pair.readerID, deadline: trueTime + Self.pairingTimeout)
            log("connection \(current.number): reader \(hex(pair.readerID)) asks to pair")
            switch configuration.confirmation {
            case .auto: answerPairing(true)
            case .deny: answerPairing(false)
            case .ask: onPairingPrompt?(pair.readerID)
            }
        case .challenge(let challenge):
            guard !current.auth.lockedOut else { return respondChallenge(.lockedOut, nonce: nil) }
            guard core.flash.keys.key(for: challenge.readerID) != nil else {
                log("connection \(current.number): challenge requested by unknown reader \(hex(challenge.readerID))")
                return respondChallenge(.unknownReader, nonce: nil)
            }
            do throws(CryptoError) {
                let nonce = try secret16()
                current.auth.readerID = challenge.readerID
                current.auth.readerNonce = challenge.readerNonce
                current.auth.bandNonce = nonce
                respondChallenge(.success, nonce: nonce)
            } catch {
                log("connection \(current.number): cannot draw a challenge: \(error)")
                disconnect(reason: "CSPRNG failure")
            }
        case .proof(let proof):
            guard !current.auth.lockedOut else { return respondProof(.lockedOut, proof: nil) }
            guard let bandNonce = current.auth.bandNonce else { return respondProof(.noChallenge, proof: nil) }
            current.auth.bandNonce = nil
            let readerID = current.auth.readerID
            guard let key = core.flash.keys.key(for: readerID) else { return respondProof(.unknownReader, proof: nil) }
            let expected = BandAuthenticator.readerProof(key: key, readerID: readerID,
                                                         readerNonce: current.auth.readerNonce, bandNonce: bandNonce)
            guard BandAuthenticator.verify(proof.proof, equals: expected) else {
                current.auth.wrongProofs += 1
                log("connection \(current.number): WRONG PROOF from reader \(hex(readerID)) (\(current.auth.wrongProofs) of \(AuthSession.maximumWrongProofs)); refused")
                return respondProof(.wrongProof, proof: nil)
            }
            let bandProof = BandAuthenticator.bandProof(key: key, readerID: readerID,
                                                    readerNonce: current.auth.readerNonce, bandNonce: bandNonce)
            current.authenticated = true
            current.authenticatedReader = readerID
            core.flash.keys.markUsed(readerID)
            log("connection \(current.number): reader \(hex(readerID)) authenticated")
            respondProof(.success, proof: bandProof)
        }
    }

    /// The wearer's answer to the pending pairing (from `--confirm`, or the terminal under `ask`).
    public func answerPairing(_ accepted: Bool) {
        guard let current = connection, let pairing = current.pairing else { return }
        current.pairing = nil
        guard accepted else {
            log("connection \(current.number): pairing with reader \(hex(pairing.readerID)) denied")
            indicate(.authControlPoint) { PairingResponse(status: .denied).encode(into: &$0) }
            return
        }
        do throws(CryptoError) {
            let key = try secret16()
            core.flash.keys.store(key, for: pairing.readerID, oldest: core.flash.ring.oldest)
            current.authenticated = true
            current.authenticatedReader = pairing.readerID
            onFlashChanged?()
            log("connection \(current.number): paired with reader \(hex(pairing.readerID)); key stored")
            indicate(.authControlPoint) { PairingResponse(status: .success, key: key).encode(into: &$0) }
        } catch {
            log("connection \(current.number): cannot draw a key: \(error)")
            disconnect(reason: "CSPRNG failure")
        }
    }

    /// Gives up on a pairing nobody answered in time.
    func expirePairing() {
        guard let current = connection, let pairing = current.pairing, trueTime >= pairing.deadline else { return }
        current.pairing = nil
        log("connection \(current.number): pairing with reader \(hex(pairing.readerID)) timed out")
        indicate(.authControlPoint) { PairingResponse(status: .timedOut).encode(into: &$0) }
    }

    private func respondChallenge(_ status: AuthStatus, nonce: BandNonce?) {
        indicate(.authControlPoint) { ChallengeResponse(status: status, bandNonce: nonce).encode(into: &$0) }
    }

    private func respondProof(_ status: AuthStatus, proof: AuthProof?) {
        indicate(.authControlPoint) { ProofResponse(status: status, bandProof: proof).encode(into: &$0) }
    }

    func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
