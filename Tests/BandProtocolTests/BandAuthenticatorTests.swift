import BandProtocol
import BandTestSupport
import BandWire
import Testing

@Suite("BandAuthenticator: HMAC-SHA256 challenge–response proofs")
struct BandAuthenticatorTests {
    let key = BandKey(bytes("000102030405060708090a0b0c0d0e0f"))
    let readerID: UInt64 = 0x0102_0304_0506_0708
    let readerNonce: UInt64 = 0x1817_1615_1413_1211
    let bandNonce = BandNonce(bytes("a0a1a2a3a4a5a6a7a8a9aaabacadaeaf"))

    // Expected values computed independently with
    // `openssl dgst -sha256 -mac HMAC -macopt hexkey:000102…0f` over the documented message.
    @Test("Reader proof matches an independently computed HMAC (first 16 bytes)")
    func readerProofVector() throws {
        let proof = BandAuthenticator.readerProof(key: key, readerID: readerID, readerNonce: readerNonce, bandNonce: bandNonce)
        #expect(Hex.encode(proof.array) == "ea26829043f0e04d86d6d7eefbac11c3")
    }

    @Test("Band proof uses its own label, so it differs from the reader proof")
    func bandProofVector() throws {
        let proof = BandAuthenticator.bandProof(key: key, readerID: readerID, readerNonce: readerNonce, bandNonce: bandNonce)
        #expect(Hex.encode(proof.array) == "fb39deb9e151123acc23d2db8acac433")
    }

    @Test("A different key, reader, or either nonce changes the proof")
    func everyInputMatters() throws {
        let base = BandAuthenticator.readerProof(key: key, readerID: readerID, readerNonce: readerNonce, bandNonce: bandNonce)
        var otherKey = key
        otherKey[15] ^= 1
        var otherNonce = bandNonce
        otherNonce[0] ^= 0x80
        let variants = [
            BandAuthenticator.readerProof(key: otherKey, readerID: readerID, readerNonce: readerNonce, bandNonce: bandNonce),
            BandAuthenticator.readerProof(key: key, readerID: readerID + 1, readerNonce: readerNonce, bandNonce: bandNonce),
            BandAuthenticator.readerProof(key: key, readerID: readerID, readerNonce: readerNonce ^ 1, bandNonce: bandNonce),
            BandAuthenticator.readerProof(key: key, readerID: readerID, readerNonce: readerNonce, bandNonce: otherNonce),
        ]
        for variant in variants { #expect(!BandAuthenticator.verify(variant, equals: base)) }
        #expect(BandAuthenticator.verify(base, equals: base))
    }
}
