import BandATT
import BandProtocol
import BandWire

/// Pairing (with the wearer's confirmation) and per-connection challenge–response
/// authentication on the Auth Control Point.
extension BandServices {
    /// How long a pairing waits for the wearer (band time, milliseconds).
    static var pairingTimeoutMilliseconds: Int64 { 30_000 }

    func handleAuthRequest(_ request: AuthRequest) {
        guard let current = connection else { return }
        switch request {
        case .pair(let pair):
            guard !current.auth.lockedOut else {
                indicate(.authControlPoint) { PairingResponse(status: .lockedOut).encode(into: &$0) }
                return
            }
            current.pairing = PendingPairing(readerID: pair.readerID, deadline: trueTime.adding(milliseconds: Self.pairingTimeoutMilliseconds))
            host.report(.pairingRequested(connection: current.number, reader: pair.readerID))
            switch configuration.confirmation {
            case .auto: answerPairing(true)
            case .deny: answerPairing(false)
            case .ask: host.pairingPrompt(readerID: pair.readerID)
            }
        case .challenge(let challenge):
            guard !current.auth.lockedOut else { return respondChallenge(.lockedOut, nonce: nil) }
            guard core.flash.keys.key(for: challenge.readerID) != nil else {
                host.report(.challengeFromUnknownReader(connection: current.number, reader: challenge.readerID))
                return respondChallenge(.unknownReader, nonce: nil)
            }
            guard let nonce = secret16() else {
                host.report(.noEntropy(connection: current.number, forKey: false))
                return disconnect(.noEntropy)
            }
            current.auth.readerID = challenge.readerID
            current.auth.readerNonce = challenge.readerNonce
            current.auth.bandNonce = nonce
            respondChallenge(.success, nonce: nonce)
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
                host.report(.wrongProof(connection: current.number, reader: readerID, count: current.auth.wrongProofs,
                                        limit: AuthSession.maximumWrongProofs))
                return respondProof(.wrongProof, proof: nil)
            }
            let bandProof = BandAuthenticator.bandProof(key: key, readerID: readerID,
                                                    readerNonce: current.auth.readerNonce, bandNonce: bandNonce)
            current.authenticated = true
            current.authenticatedReader = readerID
            core.flash.keys.markUsed(readerID)
            host.report(.authenticated(connection: current.number, reader: readerID))
            respondProof(.success, proof: bandProof)
        }
    }

    /// The wearer's answer to the pending pairing (from `--confirm`, or the terminal under `ask`).
    public func answerPairing(_ accepted: Bool) {
        guard let current = connection, let pairing = current.pairing else { return }
        current.pairing = nil
        guard accepted else {
            host.report(.pairingDenied(connection: current.number, reader: pairing.readerID))
            indicate(.authControlPoint) { PairingResponse(status: .denied).encode(into: &$0) }
            return
        }
        guard let key = secret16() else {
            host.report(.noEntropy(connection: current.number, forKey: true))
            return disconnect(.noEntropy)
        }
        core.flash.keys.store(key, for: pairing.readerID, oldest: core.flash.ring.oldest)
        current.authenticated = true
        current.authenticatedReader = pairing.readerID
        host.flashChanged()
        host.report(.paired(connection: current.number, reader: pairing.readerID))
        indicate(.authControlPoint) { PairingResponse(status: .success, key: key).encode(into: &$0) }
    }

    /// Gives up on a pairing nobody answered in time.
    func expirePairing() {
        guard let current = connection, let pairing = current.pairing, trueTime >= pairing.deadline else { return }
        current.pairing = nil
        host.report(.pairingTimedOut(connection: current.number, reader: pairing.readerID))
        indicate(.authControlPoint) { PairingResponse(status: .timedOut).encode(into: &$0) }
    }

    private func respondChallenge(_ status: AuthStatus, nonce: BandNonce?) {
        indicate(.authControlPoint) { ChallengeResponse(status: status, bandNonce: nonce).encode(into: &$0) }
    }

    private func respondProof(_ status: AuthStatus, proof: AuthProof?) {
        indicate(.authControlPoint) { ProofResponse(status: status, bandProof: proof).encode(into: &$0) }
    }
}
