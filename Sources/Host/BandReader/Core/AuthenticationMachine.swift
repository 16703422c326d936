import BandProtocol

/// The band's per-connection challenge–response (docs/protocol.md, "Auth Control Point") with
/// no I/O: the band's answers go in, the requests to send and the verdict come out.
/// ``BandAuthentication/authenticate(_:readerID:key:)`` performs it on a link; the reader's nonce
/// is an input, so a test scripts the whole exchange.
///
/// | event | action |
/// |---|---|
/// | start | send Challenge(reader ID, reader nonce) |
/// | challenge answered: success with the band's nonce | send Proof(HMAC over both nonces) |
/// | challenge answered: anything else | fail: refused with the band's status |
/// | proof answered: success with the band's proof equal to the expected one (constant time) | authenticated |
/// | proof answered: refused / a proof that does not match | fail: refused / not the band that was paired |
public struct AuthenticationMachine {
    public enum Action {
        case sendChallenge(ChallengeRequest)
        case sendProof(ProofRequest)
        case authenticated
        case fail(SessionError)
    }

    public let readerID: UInt64
    private let key: BandKey
    private let readerNonce: UInt64
    /// The proof the band must answer with, known once its nonce is.
    private var expectedBandProof: AuthProof?

    public init(readerID: UInt64, key: BandKey, readerNonce: UInt64) {
        self.readerID = readerID
        self.key = key
        self.readerNonce = readerNonce
    }

    public func start() -> Action {
        .sendChallenge(ChallengeRequest(readerID: readerID, readerNonce: readerNonce))
    }

    public mutating func challengeAnswered(_ challenge: ChallengeResponse) -> Action {
        guard challenge.status == .success, let bandNonce = challenge.bandNonce else {
            return .fail(.authenticationRefused(challenge.status))
        }
        let proof = BandAuthenticator.readerProof(key: key, readerID: readerID, readerNonce: readerNonce, bandNonce: bandNonce)
        expectedBandProof = BandAuthenticator.bandProof(key: key, readerID: readerID, readerNonce: readerNonce, bandNonce: bandNonce)
        return .sendProof(ProofRequest(proof: proof))
    }

    public func proofAnswered(_ response: ProofResponse) -> Action {
        guard response.status == .success, let bandProof = response.bandProof else {
            return .fail(.authenticationRefused(response.status))
        }
        guard let expectedBandProof else {
            return .fail(.controlPointProtocol("the band answered a proof before the challenge"))
        }
        guard BandAuthenticator.verify(bandProof, equals: expectedBandProof) else { return .fail(.bandProofMismatch) }
        return .authenticated
    }
}
