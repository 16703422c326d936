import BandFirmware
import BandLink
import BandProtocol
import BandTestSupport
import BandWire
import Testing

/// The Linux-only authentication conversations. Pairing with automatic confirmation, the
/// challenge–response, wrong proofs, the lockout and spent challenges run on the Linux band and on
/// the chip's band alike in ChipRuntimeTests/AuthenticationConversationTests; these stay here
/// because the chip lacks the feature: `--confirm deny`/`ask` (the chip always confirms), the log
/// lines, the in-memory key store and the state file.
@Suite("Activity service authentication: confirmation modes, log lines, state file (Linux band)")
struct AuthenticationTests {
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

    @Test("Keys live in flash: a band restored from its state file still knows the reader")
    func keysSurviveRestart() throws {
        let c = try Conversation()
        let key = try #require(try c.pair())
        let image = c.band.flash.serialized()
        let restored = try image.withUnsafeBytes { raw in try FlashImage(parsing: raw, capacity: 10_080) }
        let d = try Conversation(testConfiguration(), flash: restored)
        #expect(try d.authenticate(key: key).status == .success)
    }

    @Test("A wrong proof and a challenge from an unknown reader are logged with the reader's ID; pairing stores the key in flash")
    func refusalsAreLogged() throws {
        let c = try Conversation()
        var key = try #require(try c.pair())
        #expect(c.band.flash.keys.entries.count == 1)
        #expect(c.band.flash.keys.key(for: 0x1122_3344_5566_7788) == key)
        try c.reconnect()
        key[0] ^= 0xFF
        #expect(try c.authenticate(key: key) == ProofResponse(status: .wrongProof))
        #expect(c.log.contains { $0.contains("WRONG PROOF") && $0.contains("1122334455667788") })
        try c.exchange("12 3600 02 0100000000000000 0200000000000000", "13")
        #expect(try c.indication(on: Handles.authControlPoint) == bytes("82 02"))
        #expect(c.log.contains { $0.contains("unknown reader") })
    }
}
