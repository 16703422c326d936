import BandProtocol
import BandTestSupport
import BandWire
import Testing

@Suite("Auth Control Point messages")
struct AuthMessageTests {
    let sixteen = FixedBytes<16>(bytes("000102030405060708090a0b0c0d0e0f"))

    @Test("Pairing request carries the reader ID little-endian")
    func pairingRequest() {
        checkCodec(PairingRequest(readerID: 0x0102_0304_0506_0708), "01 0807060504030201")
    }

    @Test("Pairing response carries the key only on success")
    func pairingResponse() {
        checkCodec(PairingResponse(status: .success, key: sixteen), "81 00 000102030405060708090a0b0c0d0e0f")
        checkCodec(PairingResponse(status: .denied), "81 01")
        checkCodec(PairingResponse(status: .timedOut), "81 05")
    }

    @Test("Challenge request: reader ID then reader nonce, 17 bytes (fits a 20-byte write)")
    func challengeRequest() {
        let request = ChallengeRequest(readerID: 1, readerNonce: 0xFFEE_DDCC_BBAA_9988)
        checkCodec(request, "02 0100000000000000 8899aabbccddeeff")
        #expect(request.encodedBytes().count == ChallengeRequest.size)
    }

    @Test("Challenge response carries the nonce only on success")
    func challengeResponse() {
        checkCodec(ChallengeResponse(status: .success, bandNonce: sixteen), "82 00 000102030405060708090a0b0c0d0e0f")
        checkCodec(ChallengeResponse(status: .unknownReader), "82 02")
    }

    @Test("Proof request and response")
    func proofMessages() {
        checkCodec(ProofRequest(proof: sixteen), "03 000102030405060708090a0b0c0d0e0f")
        checkCodec(ProofResponse(status: .success, bandProof: sixteen), "83 00 000102030405060708090a0b0c0d0e0f")
        checkCodec(ProofResponse(status: .wrongProof), "83 03")
        checkCodec(ProofResponse(status: .lockedOut), "83 06")
    }

    @Test("Dispatch picks the message by opcode, in both directions")
    func dispatch() throws {
        #expect(try AuthRequest(parsingAll: bytes("01 0807060504030201")) == .pair(PairingRequest(readerID: 0x0102_0304_0506_0708)))
        #expect(try AuthRequest(parsingAll: bytes("03 000102030405060708090a0b0c0d0e0f")) == .proof(ProofRequest(proof: sixteen)))
        #expect(try AuthResponse(parsingAll: bytes("82 02")) == .challenge(ChallengeResponse(status: .unknownReader)))
        checkCodec(AuthRequest.challenge(ChallengeRequest(readerID: 2, readerNonce: 3)), "02 0200000000000000 0300000000000000")
        checkCodec(AuthResponse.pair(PairingResponse(status: .denied)), "81 01")
    }

    @Test("Unknown opcodes are 'unsupported' at offset 0; a response opcode is not a request")
    func unknownOpcodes() {
        #expect(parseError(AuthRequest.self, "7f") == ParseError(.unsupported, at: 0, field: "auth request opcode"))
        #expect(parseError(AuthRequest.self, "81 00")?.kind == .unsupported)
        #expect(parseError(AuthResponse.self, "01 00")?.kind == .unsupported)
        #expect(parseError(AuthRequest.self, "")?.kind == .truncated)
    }

    @Test("A message type refuses another type's opcode")
    func wrongOpcodeForType() {
        #expect(parseError(ProofRequest.self, "02 000102030405060708090a0b0c0d0e0f") == ParseError(.invalidValue, at: 0, field: "auth opcode"))
    }

    @Test("Unknown status values survive a round trip (open enum)")
    func unknownStatusSurvives() throws {
        let response = try ProofResponse(parsingAll: bytes("83 42"))
        #expect(response.status.rawValue == 0x42)
        #expect(response.encodedBytes() == bytes("83 42"))
    }
}
