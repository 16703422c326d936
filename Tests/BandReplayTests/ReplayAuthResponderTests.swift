import BandProtocol
import BandReplay
import BandWire
import Testing

private let readerID: UInt64 = 0x0123_4567_89AB_CDEF
private let key = BandKey(Array(0..<16))

private func answer(_ responder: ReplayAuthResponder, _ request: some WireEncodable) throws -> AuthResponse {
    let bytes = request.encodedBytes(capacity: 64)
    let reply = try #require(bytes.withUnsafeBytes { responder.respond(to: $0) })
    return try AuthResponse(parsingAll: reply)
}

@Test func aReaderWithTheKeyIsAnsweredAsTheBandWouldAndGetsAProofItCanVerify() throws {
    let responder = ReplayAuthResponder(controlPointHandle: 0x30, keys: [readerID: key])
    let readerNonce: UInt64 = 42
    guard case .challenge(let challenge) = try answer(responder, ChallengeRequest(readerID: readerID, readerNonce: readerNonce)) else {
        Issue.record("no challenge response"); return
    }
    let bandNonce = try #require(challenge.bandNonce)
    let proof = BandAuthenticator.readerProof(key: key, readerID: readerID, readerNonce: readerNonce, bandNonce: bandNonce)
    guard case .proof(let response) = try answer(responder, ProofRequest(proof: proof)) else {
        Issue.record("no proof response"); return
    }
    #expect(response.status == .success)
    let expected = BandAuthenticator.bandProof(key: key, readerID: readerID, readerNonce: readerNonce, bandNonce: bandNonce)
    #expect(BandAuthenticator.verify(try #require(response.bandProof), equals: expected))
    #expect(responder.authenticated == 1)
}

@Test func nonceIsFreshEachTime() throws {
    let responder = ReplayAuthResponder(controlPointHandle: 0x30, keys: [readerID: key])
    var nonces: Set<[UInt8]> = []
    for _ in 0..<5 {
        guard case .challenge(let challenge) = try answer(responder, ChallengeRequest(readerID: readerID, readerNonce: 1)) else { Issue.record("unexpected auth response"); return }
        nonces.insert(try #require(challenge.bandNonce).array)
    }
    #expect(nonces.count == 5)
}

@Test func unknownReadersWrongProofsAndProofsWithoutAChallengeAreRefused() throws {
    let responder = ReplayAuthResponder(controlPointHandle: 0x30, keys: [readerID: key])
    guard case .challenge(let unknown) = try answer(responder, ChallengeRequest(readerID: 7, readerNonce: 1)) else { Issue.record("unexpected auth response"); return }
    #expect(unknown.status == .unknownReader)
    guard case .proof(let early) = try answer(responder, ProofRequest(proof: AuthProof(Array(repeating: 0, count: 16)))) else { Issue.record("unexpected auth response"); return }
    #expect(early.status == .noChallenge)
    _ = try answer(responder, ChallengeRequest(readerID: readerID, readerNonce: 1))
    guard case .proof(let wrong) = try answer(responder, ProofRequest(proof: AuthProof(Array(repeating: 0xAA, count: 16)))) else { Issue.record("unexpected auth response"); return }
    #expect(wrong.status == .wrongProof)
    #expect(responder.authenticated == 0)
    #expect([0x99, 0x01].withUnsafeBytes { responder.respond(to: $0) } == nil, "not an auth request: ignored")
}
