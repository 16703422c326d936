import BandFirmware
import BandLink
import BandProtocol
import BandTestSupport
import BandWire
import Testing

@Suite("Activity service authentication: pairing, challenge, proof")
struct AuthenticationTests {
    @Test("Before authentication the activity service answers only error 0x80, discovery stays open")
    func unauthenticatedAccessIsRefused() throws {
        let c = try Conversation()
        try c.exchange("0a 2d00", "01 0a 2d00 80")                       // read Live Activity
        try c.exchange("0a 2e00", "01 0a 2e00 80")                       // read its CCCD
        try c.exchange("12 2e00 0100", "01 12 2e00 80")                  // subscribe
        try c.exchange("12 3100 0200", "01 12 3100 80")                  // History CP CCCD
        try c.exchange("12 3000 01 00000000 0000", "01 12 3000 80")      // fetch
        try c.exchange("12 3400 0100", "01 12 3400 80")                  // History Data CCCD
        try c.exchange("08 0100 ffff 367a8b0e1f2d6c9a1a4b2f4e0200c0b5", "01 08 2d00 80") // Read By Type on Live
        try c.exchange("08 2b00 2f00 0328", "09 15 2c00 122d00 367a8b0e1f2d6c9a1a4b2f4e0200c0b5")
        try c.exchange("12 3700 0200", "13")                             // Auth CP is open
    }

    @Test("First pairing with --confirm auto returns a 16-byte key and authenticates the connection")
    func pairingAuthenticates() throws {
        let c = try Conversation()
        let key = try c.pair()
        #expect(key?.count == 16)
        #expect(c.band.flash.keys.entries.count == 1)
        #expect(c.band.flash.keys.key(for: 0x1122_3344_5566_7788) == key)
        try c.send("0a 2d00")
        #expect(try c.next()?.first == 0x0B, "Live Activity is readable once paired")
    }

    @Test("Pairing refused with --confirm deny: status denied, no key stored, still unauthenticated")
    func pairingDenied() throws {
        var configuration = testConfiguration()
        configuration.confirmation = .deny
        let c = try Conversation(configuration)
        try c.exchange("12 3700 0200", "13")
        try c.exchange("12 3600 01 8877665544332211", "13")
        #expect(try c.indication(on: Handles.authControlPoint) == bytes("81 01"))
        #expect(c.band.flash.keys.entries.isEmpty)
        try c.exchange("0a 2d00", "01 0a 2d00 80")
    }

    @Test("--confirm ask waits for the wearer; no answer within 30 s of band time is 'timed out'")
    func pairingTimesOut() throws {
        var configuration = testConfiguration()
        configuration.confirmation = .ask
        let c = try Conversation(configuration)
        var prompted: UInt64?
        c.band.onPairingPrompt = { prompted = $0 }
        try c.exchange("12 3700 0200", "13")
        try c.exchange("12 3600 01 8877665544332211", "13")
        #expect(prompted == 0x1122_3344_5566_7788)
        #expect(c.band.pairingPromptPending)
        c.band.advance(by: .seconds(29))
        #expect(try c.drain().isEmpty)
        c.band.advance(by: .seconds(2))
        #expect(try c.indication(on: Handles.authControlPoint) == bytes("81 05"))
    }

    @Test("--confirm ask: the wearer's yes completes the pairing")
    func pairingConfirmedLater() throws {
        var configuration = testConfiguration()
        configuration.confirmation = .ask
        let c = try Conversation(configuration)
        try c.exchange("12 3700 0200", "13")
        try c.exchange("12 3600 01 8877665544332211", "13")
        c.band.answerPairing(true)
        let response = try PairingResponse(parsingAll: try c.indication(on: Handles.authControlPoint))
        #expect(response.status == .success && response.key != nil)
    }

    @Test("A later connection must prove the key; the right proof authenticates and the band proves it back")
    func challengeResponse() throws {
        let c = try Conversation()
        let key = try #require(try c.pair())
        try c.reconnect()
        try c.exchange("0a 2d00", "01 0a 2d00 80", sourceLocation: #_sourceLocation)
        let result = try c.authenticate(key: key, readerNonce: 0xABCD)
        #expect(result.status == .success)
        let expectedBandProof = BandAuthenticator.bandProof(
            key: key, readerID: 0x1122_3344_5566_7788, readerNonce: 0xABCD,
            bandNonce: try #require(lastNonce(in: c)))
        #expect(result.bandProof == expectedBandProof)
        try c.send("0a 2d00")
        #expect(try c.next()?.first == 0x0B)
    }

    @Test("A wrong proof is refused and logged; the connection stays unauthenticated")
    func wrongProofRefused() throws {
        let c = try Conversation()
        var key = try #require(try c.pair())
        try c.reconnect()
        key[0] ^= 0xFF
        let result = try c.authenticate(key: key)
        #expect(result == ProofResponse(status: .wrongProof))
        #expect(c.log.contains { $0.contains("WRONG PROOF") && $0.contains("1122334455667788") })
        try c.exchange("0a 2d00", "01 0a 2d00 80")
    }

    @Test("Three wrong proofs lock the connection out until the reader reconnects")
    func lockout() throws {
        let c = try Conversation()
        let good = try #require(try c.pair())
        try c.reconnect()
        var bad = good
        bad[3] ^= 1
        for _ in 0..<3 { #expect(try c.authenticate(key: bad).status == .wrongProof) }
        try c.exchange("12 3600 02 8877665544332211 0100000000000000", "13")
        #expect(try c.indication(on: Handles.authControlPoint) == bytes("82 06"))
        try c.exchange("12 3600 01 8877665544332211", "13")
        #expect(try c.indication(on: Handles.authControlPoint) == bytes("81 06"), "no way around the lockout by pairing again")
        try c.reconnect()
        #expect(try c.authenticate(key: good).status == .success)
    }

    @Test("A proof without a challenge is 'no challenge'; a challenge is spent by one proof")
    func proofWithoutChallenge() throws {
        let c = try Conversation()
        let key = try #require(try c.pair())
        try c.reconnect()
        try c.exchange("12 3700 0200", "13")
        try c.exchange("12 3600 03 00000000000000000000000000000000", "13")
        #expect(try c.indication(on: Handles.authControlPoint) == bytes("83 04"))
        #expect(try c.authenticate(key: key).status == .success)
        try c.exchange("12 3600 03 00000000000000000000000000000000", "13")
        #expect(try c.indication(on: Handles.authControlPoint) == bytes("83 04"), "the challenge was used up")
    }

    @Test("A challenge for a reader the band never paired with is 'unknown reader'")
    func unknownReader() throws {
        let c = try Conversation()
        try c.exchange("12 3700 0200", "13")
        try c.exchange("12 3600 02 0100000000000000 0200000000000000", "13")
        #expect(try c.indication(on: Handles.authControlPoint) == bytes("82 02"))
        #expect(c.log.contains { $0.contains("unknown reader") })
    }

    @Test("Keys live in flash: a band restored from its state file still knows the reader")
    func keysSurviveRestart() throws {
        let c = try Conversation()
        let key = try #require(try c.pair())
        let image = c.band.flash.serialized()
        let restored = try image.withUnsafeBytes { raw in try FlashImage(parsing: raw, capacity: 10_080) }
        let d = try Conversation(testConfiguration(), flash: restored)
        #expect(try d.authenticate(key: key).status == .success)
    }

    /// The band nonce the last challenge carried (re-derived from the band's deterministic secrets
    /// would couple the test to the PRNG; instead the test keeps what it saw).
    private func lastNonce(in c: Conversation) -> BandNonce? { c.lastBandNonce }
}
