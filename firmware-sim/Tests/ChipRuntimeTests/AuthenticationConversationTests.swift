import BandProtocol
import Testing

/// The Linux firmware's pairing and challenge–response conversations, each run against the Linux
/// band and the chip's band. Linux-only ones stay in BandFirmwareTests/AuthenticationTests:
/// `--confirm deny` and `--confirm ask` (the chip always confirms), the state file restart (the
/// chip's keys in flash across a reset: ChipBandServiceTests), and the log lines for a wrong proof
/// or an unknown reader (the chip has no log; its answers are checked here).
@Suite("Authentication conversations on the Linux band and the chip's band")
struct AuthenticationConversationTests {
    @Test("Before authentication the activity service answers only error 0x80, discovery stays open", arguments: BandKind.allCases)
    func unauthenticatedAccessIsRefused(_ kind: BandKind) throws {
        var c = try TwinConversation(kind)
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

    @Test("First pairing returns a 16-byte key and authenticates the connection", arguments: BandKind.allCases)
    func pairingAuthenticates(_ kind: BandKind) throws {
        var c = try TwinConversation(kind)
        let key = try c.pair()
        #expect(key?.count == 16)
        try c.send("0a 2d00")
        #expect(c.next()?.first == 0x0B, "Live Activity is readable once paired")
    }

    @Test("A later connection must prove the key; the right proof authenticates and the band proves it back", arguments: BandKind.allCases)
    func challengeResponse(_ kind: BandKind) throws {
        var c = try TwinConversation(kind)
        let key = try #require(try c.pair())
        try c.reconnect()
        try c.exchange("0a 2d00", "01 0a 2d00 80")
        let (result, nonce) = try c.authenticate(key: key, readerNonce: 0xABCD)
        #expect(result.status == .success)
        let expectedBandProof = BandAuthenticator.bandProof(
            key: key, readerID: 0x1122_3344_5566_7788, readerNonce: 0xABCD, bandNonce: try #require(nonce))
        #expect(result.bandProof == expectedBandProof)
        try c.send("0a 2d00")
        #expect(c.next()?.first == 0x0B)
    }

    @Test("A wrong proof is refused; the connection stays unauthenticated", arguments: BandKind.allCases)
    func wrongProofRefused(_ kind: BandKind) throws {
        var c = try TwinConversation(kind)
        var key = try #require(try c.pair())
        try c.reconnect()
        key[0] ^= 0xFF
        #expect(try c.authenticate(key: key).0 == ProofResponse(status: .wrongProof))
        try c.exchange("0a 2d00", "01 0a 2d00 80")
    }

    @Test("Three wrong proofs lock the connection out until the reader reconnects", arguments: BandKind.allCases)
    func lockout(_ kind: BandKind) throws {
        var c = try TwinConversation(kind)
        let good = try #require(try c.pair())
        try c.reconnect()
        var bad = good
        bad[3] ^= 1
        for _ in 0..<3 { #expect(try c.authenticate(key: bad).0.status == .wrongProof) }
        #expect(try c.authControl("02 8877665544332211 0100000000000000") == [0x82, 0x06])
        #expect(try c.authControl("01 8877665544332211") == [0x81, 0x06], "no way around the lockout by pairing again")
        try c.reconnect()
        #expect(try c.authenticate(key: good).0.status == .success)
    }

    @Test("A proof without a challenge is 'no challenge'; a challenge is spent by one proof", arguments: BandKind.allCases)
    func proofWithoutChallenge(_ kind: BandKind) throws {
        var c = try TwinConversation(kind)
        let key = try #require(try c.pair())
        try c.reconnect()
        try c.exchange("12 3700 0200", "13")
        #expect(try c.authControl("03 00000000000000000000000000000000") == [0x83, 0x04])
        #expect(try c.authenticate(key: key).0.status == .success)
        #expect(try c.authControl("03 00000000000000000000000000000000") == [0x83, 0x04], "the challenge was used up")
    }

    @Test("A challenge for a reader the band never paired with is 'unknown reader'", arguments: BandKind.allCases)
    func unknownReader(_ kind: BandKind) throws {
        var c = try TwinConversation(kind)
        try c.exchange("12 3700 0200", "13")
        #expect(try c.authControl("02 0100000000000000 0200000000000000") == [0x82, 0x02])
    }
}
