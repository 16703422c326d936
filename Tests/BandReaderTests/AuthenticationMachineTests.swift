import BandProtocol
import BandReader
import BandWire
import Testing

/// The band's challenge–response as scripted exchanges with the published test vector
/// (BandAuthenticatorTests): key 00…0f, both nonces fixed, no link.
@Suite struct AuthenticationMachineTests {
    static let key = BandKey((0..<16).map { UInt8($0) })
    static let readerID: UInt64 = 0x0102_0304_0506_0708
    static let readerNonce: UInt64 = 0x1817_1615_1413_1211
    static let bandNonce = BandNonce((0..<16).map { 0xA0 + UInt8($0) })
    static let readerProofHex = "ea26829043f0e04d86d6d7eefbac11c3"
    static let bandProof = AuthProof([0xfb, 0x39, 0xde, 0xb9, 0xe1, 0x51, 0x12, 0x3a, 0xcc, 0x23, 0xd2, 0xdb, 0x8a, 0xca, 0xc4, 0x33])

    static func line(_ action: AuthenticationMachine.Action) -> String {
        switch action {
        case .sendChallenge(let request): return "challenge \(String(request.readerID, radix: 16)) \(String(request.readerNonce, radix: 16))"
        case .sendProof(let request): return "proof \(Hex.encode(request.proof.array))"
        case .authenticated: return "authenticated"
        case .fail(let error): return "fail: \(error)"
        }
    }

    func machine() -> AuthenticationMachine {
        AuthenticationMachine(readerID: Self.readerID, key: Self.key, readerNonce: Self.readerNonce)
    }

    @Test func challengeProofAndTheBandsProofAuthenticate() {
        var auth = machine()
        #expect(Self.line(auth.start()) == "challenge 102030405060708 1817161514131211")
        #expect(Self.line(auth.challengeAnswered(ChallengeResponse(status: .success, bandNonce: Self.bandNonce))) == "proof \(Self.readerProofHex)")
        #expect(Self.line(auth.proofAnswered(ProofResponse(status: .success, bandProof: Self.bandProof))) == "authenticated")
    }

    @Test func aBandThatDoesNotKnowTheKeyIsNotTrusted() {
        var auth = machine()
        _ = auth.challengeAnswered(ChallengeResponse(status: .success, bandNonce: Self.bandNonce))
        var forged = Self.bandProof
        forged[0] ^= 1
        #expect(Self.line(auth.proofAnswered(ProofResponse(status: .success, bandProof: forged)))
                == "fail: the band's proof does not match the stored key: this is not the band that was paired")
    }

    @Test(arguments: [AuthStatus.unknownReader, .wrongProof, .lockedOut])
    func refusalsCarryTheBandsStatus(_ status: AuthStatus) {
        var atChallenge = machine()
        guard case .fail(.authenticationRefused(let refused)) = atChallenge.challengeAnswered(ChallengeResponse(status: status)) else {
            Issue.record("a refused challenge was not a refusal")
            return
        }
        #expect(refused == status)
        var atProof = machine()
        _ = atProof.challengeAnswered(ChallengeResponse(status: .success, bandNonce: Self.bandNonce))
        guard case .fail(.authenticationRefused(let refusedProof)) = atProof.proofAnswered(ProofResponse(status: status)) else {
            Issue.record("a refused proof was not a refusal")
            return
        }
        #expect(refusedProof == status)
    }

    @Test func aProofAnswerBeforeAnyChallengeIsAProtocolError() {
        let auth = machine()
        #expect(Self.line(auth.proofAnswered(ProofResponse(status: .success, bandProof: Self.bandProof)))
                == "fail: band protocol error: the band answered a proof before the challenge")
    }
}
