import BandHCI
import BandLEHost
import BandTestSupport
import BandWire
import FirmwareCrypto
import Testing

/// SMP through the whole host: a scripted central and a scripted controller doing the P-256
/// work (the host never checks curve points — the controller does — so the keys here are
/// arbitrary bytes), the confirm and check values computed independently with ``SMPCrypto``.
@Suite struct SecurityManagerTests {
    func smp(_ data: String) -> String {
        let payload = bytes(data)
        let l2cap = [UInt8(payload.count), 0, 0x06, 0x00] + payload
        return "02 40 20 " + Hex.encode([UInt8(l2cap.count), 0]) + " " + Hex.encode(l2cap)
    }

    func hostSMP(_ data: String) -> String {
        let payload = bytes(data)
        let l2cap = [UInt8(payload.count), 0, 0x06, 0x00] + payload
        return Hex.encode([0x02, 0x40, 0x00, UInt8(l2cap.count), 0] + l2cap)
    }

    func connected() -> ScriptedHost {
        var host = ScriptedHost()
        host.bringUp(aclCount: 50)
        host.connect()
        return host
    }

    @Test func legacyPairingIsRefusedWithAuthenticationRequirements() {
        var host = connected()
        host.controller(smp("01 03 00 01 10 07 07"))
        #expect(host.takeSent() == [hostSMP("05 03")])
        guard case .pairingFailed(let failure)? = host.takeEvents().first else { Issue.record("no failure"); return }
        #expect(failure == SMPFailure(reason: SMPFailure.authenticationRequirements, sentByBand: true))
    }

    @Test func shortKeysAndBadRequestsAreRefusedWithTheRightReason() {
        var host = connected()
        host.controller(smp("01 03 00 09 0f 00 00"))
        #expect(host.takeSent() == [hostSMP("05 06")])
        host.controller(smp("01 09 00 09 10 00 00"))  // IO capability 9 does not exist
        #expect(host.takeSent() == [hostSMP("05 0a")])
        host.controller(smp("04 00 00"))  // a Pairing Random out of turn
        #expect(host.takeSent() == [hostSMP("05 08")])
        host.controller(smp("42"))  // an unknown code
        #expect(host.takeSent() == [hostSMP("05 07")])
    }

    @Test func pairingRequestCutAtEveryOffsetFailsWithInvalidParameters() {
        let full = bytes("01 03 00 09 10 00 00")
        for keep in 1..<full.count {
            var host = connected()
            host.controller(smp(Hex.encode(full.prefix(keep))))
            #expect(host.takeSent() == [hostSMP("05 0a")], "cut at \(keep)")
            let events = host.takeEvents()
            guard case .dropped(.malformedSecurity(let error))? = events.first else { Issue.record("cut at \(keep): \(events)"); continue }
            #expect(error.kind == .truncated)
        }
    }

    // The scripted keys: arbitrary, distinct.
    let centralKey = (0..<64).map { UInt8($0 + 1) }
    let bandKey = (0..<64).map { UInt8(0xC0 - $0) }
    let dhKey = (0..<32).map { UInt8($0 * 7 + 3) }
    let rand1 = bytes("01 02 03 04 05 06 07 08")
    let rand2 = bytes("f1 f2 f3 f4 f5 f6 f7 f8")
    let centralNonceWire = (0..<16).map { UInt8(0x30 + $0) }

    func coordinate(_ wire: [UInt8]) -> P256Coordinate { wire.withUnsafeBytes { P256Coordinate($0) } }
    func block(wire: [UInt8]) -> AESBlock { wire.withUnsafeBytes { AESBlock(reversing: $0) } }
    func wire(_ block: AESBlock) -> [UInt8] { (0..<16).map { block.reversed.bytes[$0] } }

    /// Just Works from Pairing Request to a saved bond, then re-encryption with the bond.
    @Test func justWorksPairsBondsAndReencrypts() {
        var host = connected()
        let central = LEAddress(BluetoothAddress(0x1122_3344_5566), type: .random)
        let band = LEAddress(BluetoothAddress(0x1122_3344_5566), type: .public)
        // Pairing Request: NoInputNoOutput, bonding + SC, 16-byte keys, no key distribution.
        host.controller(smp("01 03 00 09 10 00 00"))
        #expect(host.takeSent() == [compact("01 25 20 00"), hostSMP("02 00 00 09 10 00 00")])
        host.controller("04 0f 04 00 01 25 20")
        host.controller("04 3e 42 08 00 " + Hex.encode(bandKey))
        #expect(host.takeSent() == [])
        // The central's public key: the band's goes back, the DHKey and a nonce are asked for.
        host.controller(smp("0c " + Hex.encode(centralKey)))
        let sent = host.takeSent()
        #expect(sent.first == compact("01 26 20 40 " + Hex.encode(centralKey)))
        #expect(sent.dropFirst().joined().contains(Hex.encode(bandKey.prefix(20))))
        host.controller("04 0f 04 00 01 26 20")
        #expect(host.takeSent() == [compact("01 18 20 00")])
        host.controller("04 0e 0c 01 18 20 00 " + Hex.encode(rand1))
        #expect(host.takeSent() == [compact("01 18 20 00")])
        host.controller("04 0e 0c 01 18 20 00 " + Hex.encode(rand2))
        let bandNonce = (rand1 + rand2).withUnsafeBytes { AESBlock($0) }
        let confirm = SMPCrypto.f4(u: coordinate(Array(bandKey.prefix(32))), v: coordinate(Array(centralKey.prefix(32))), x: bandNonce, z: 0)
        #expect(host.takeSent() == [hostSMP("03 " + Hex.encode(wire(confirm)))])
        host.controller("04 3e 22 09 00 " + Hex.encode(dhKey))
        // The central's nonce: the band's follows.
        host.controller(smp("04 " + Hex.encode(centralNonceWire)))
        #expect(host.takeSent() == [hostSMP("04 " + Hex.encode(wire(bandNonce)))])
        // The central's DHKey check, computed as a central would.
        let centralNonce = block(wire: centralNonceWire)
        let (macKey, ltk) = SMPCrypto.f5(w: coordinate(dhKey), n1: centralNonce, n2: bandNonce, a1: central, a2: band)
        let ea = SMPCrypto.f6(w: macKey, n1: centralNonce, n2: bandNonce, r: AESBlock(), ioCapability: 0x090003, a1: central, a2: band)
        let eb = SMPCrypto.f6(w: macKey, n1: bandNonce, n2: centralNonce, r: AESBlock(), ioCapability: 0x090000, a1: band, a2: central)
        host.controller(smp("0d " + Hex.encode(wire(ea))))
        #expect(host.takeSent() == [hostSMP("0d " + Hex.encode(wire(eb)))])
        // The central encrypts: the LTK from f5 answers, and encryption on saves the bond.
        host.controller("04 3e 0d 05 40 00 00 00 00 00 00 00 00 00 00 00")
        #expect(host.takeSent() == [compact("01 1a 20 12 40 00 " + Hex.encode(wire(ltk)))])
        host.controller("04 0e 06 01 1a 20 00 40 00")
        host.controller("04 08 04 00 40 00 01")
        let events = host.takeEvents()
        #expect(events.contains { if case .encrypted(0x40) = $0 { return true } else { return false } })
        #expect(host.io.bonds.bonds.count == 1)
        #expect(host.io.bonds.bonds.first?.peer == central)
        #expect(host.io.bonds.bonds.first?.longTermKey.array == wire(ltk))
        #expect(host.io.bonds.bonds.first?.authenticated == false)
        // The link drops; the central comes back and encrypts with the bond, no pairing.
        host.controller("04 05 04 00 40 00 13")
        host.controller("04 0e 04 01 0a 20 00")
        host.connect()
        _ = host.takeSent()
        host.controller("04 3e 0d 05 40 00 00 00 00 00 00 00 00 00 00 00")
        #expect(host.takeSent() == [compact("01 1a 20 12 40 00 " + Hex.encode(wire(ltk)))])
    }

    @Test func aPublicKeyTheControllerRejectsFailsPairingCleanly() {
        var host = connected()
        exchangePublicKeys(&host, request: "01 03 00 09 10 00 00")
        host.controller("04 0f 04 00 01 26 20")
        _ = host.takeSent()
        _ = host.takeEvents()
        // LE Generate DHKey Complete with Invalid HCI Command Parameters: not a point on the curve.
        host.controller("04 3e 22 09 12 " + String(repeating: "ff ", count: 31) + "ff")
        #expect(host.takeSent().contains(hostSMP("05 0b")))
        guard case .pairingFailed(let failure)? = host.takeEvents().first else { Issue.record("no failure"); return }
        #expect(failure.reason == SMPFailure.dhKeyCheckFailed)
        #expect(host.host.connection != nil)
        expectNoBondAndTheNextPairingStarts(&host)
    }

    @Test func aPublicKeyRefusedInTheCommandStatusFailsWithDHKeyCheckFailed() {
        var host = connected()
        exchangePublicKeys(&host, request: "01 03 00 09 10 00 00")
        _ = host.takeSent()
        _ = host.takeEvents()
        // Some controllers check the point before starting: Command Status, Invalid HCI Command Parameters.
        host.controller("04 0f 04 12 01 26 20")
        #expect(host.takeSent().contains(hostSMP("05 0b")))
        let failures = host.takeEvents().compactMap { event -> UInt8? in if case .pairingFailed(let failure) = event { return failure.reason } else { return nil } }
        #expect(failures == [SMPFailure.dhKeyCheckFailed])
        expectNoBondAndTheNextPairingStarts(&host)
    }

    @Test func aReflectedPublicKeyIsRefusedWithInvalidParameters() {
        var host = connected()
        host.controller(smp("01 03 00 09 10 00 00"))
        host.controller("04 0f 04 00 01 25 20")
        host.controller("04 3e 42 08 00 " + Hex.encode(bandKey))
        _ = host.takeSent()
        _ = host.takeEvents()
        // The central sends the band's own key back: no LE Generate DHKey is asked for.
        host.controller(smp("0c " + Hex.encode(bandKey)))
        #expect(host.takeSent() == [hostSMP("05 0a")])
        guard case .pairingFailed(let failure)? = host.takeEvents().first else { Issue.record("no failure"); return }
        #expect(failure.reason == SMPFailure.invalidParameters)
        expectNoBondAndTheNextPairingStarts(&host)
    }

    /// The central's Pairing Request `request`, the controller's public key for the band, then the
    /// central's public key: where every Secure Connections pairing stands before the DHKey.
    func exchangePublicKeys(_ host: inout ScriptedHost, request: String) {
        host.controller(smp(request))
        host.controller("04 0f 04 00 01 25 20")
        host.controller("04 3e 42 08 00 " + Hex.encode(bandKey))
        host.controller(smp("0c " + Hex.encode(centralKey)))
    }

    /// After a failed pairing: nothing stored, the passkey guard untouched, and a new Pairing
    /// Request on the same link is answered (the band asks the controller for its key again).
    func expectNoBondAndTheNextPairingStarts(_ host: inout ScriptedHost) {
        #expect(host.io.bonds.bonds.isEmpty)
        #expect(host.host.pairingGuard.consecutiveFailures == 0)
        _ = host.takeSent()
        host.controller(smp("01 03 00 09 10 00 00"))
        // (LE Read Local P-256 Public Key follows once the controller has room for a command.)
        #expect(host.takeSent().contains(hostSMP("02 00 00 09 10 00 00")))
        #expect(host.host.connection?.isPairing == true)
    }

    @Test func passkeyEntryDisplaysThePasskeyAndAWrongOneFailsTheConfirm() {
        var host = connected()
        wrongPasskeyAttempt(&host)
    }

    @Test func threeWrongPasskeysSlowFurtherAttemptsAndSaySo() {
        var host = connected()
        for _ in 0..<2 { wrongPasskeyAttempt(&host) }
        #expect(host.host.pairingGuard.remaining(now: host.now) == 0)
        wrongPasskeyAttempt(&host, expectThrottle: 10_000)
        // A Pairing Request within the 10 s is refused with Repeated Attempts, naming the time left.
        host.now = 4_000
        host.controller(smp("01 04 00 0d 10 00 00"))
        #expect(host.takeSent() == [hostSMP("05 09")])
        guard case .pairingThrottled(retryAfterMilliseconds: 6_000)? = host.takeEvents().first else { Issue.record("not said"); return }
        // After the wait a request is answered again; a fourth wrong passkey doubles the wait.
        host.now = 10_000
        wrongPasskeyAttempt(&host, expectThrottle: 20_000)
    }

    @Test func aWaitLongOverDoesNotComeBackWhenTheMillisecondClockWraps() {
        var host = connected()
        for attempt in 0..<3 { wrongPasskeyAttempt(&host, expectThrottle: attempt == 2 ? 10_000 : nil) }
        // The band runs on for 25 days, ticking; its 32-bit millisecond clock's signed difference
        // to the end of the wait has turned positive again by then.
        for day in 1...25 {
            host.now = UInt32(day) * 86_400_000
            host.host.tick(now: host.now, io: &host.io)
        }
        _ = host.takeEvents()
        host.controller(smp("01 04 00 0d 10 00 00"))
        #expect(host.takeSent() == [compact("01 25 20 00"), hostSMP("02 00 00 0d 10 00 00")])
    }

    /// A central that has its passkey at once (typed ahead, or a test's agent) sends its first
    /// confirm right after the public keys, before the controller's LE Rand has given the band
    /// its passkey: the confirm waits for the passkey; the round then runs as usual.
    @Test func aConfirmBeforeThePasskeyExistsWaitsForIt() {
        var host = connected()
        exchangePublicKeys(&host, request: "01 04 00 0d 10 00 00")
        host.controller("04 0f 04 00 01 26 20")
        _ = host.takeSent()
        let passkey: UInt32 = 123_456
        let nonce = AESBlock()
        let cai = SMPCrypto.f4(u: coordinate(Array(centralKey.prefix(32))), v: coordinate(Array(bandKey.prefix(32))), x: nonce,
                               z: 0x80 | UInt8(passkey & 1))
        host.controller(smp("03 " + Hex.encode(wire(cai))))
        #expect(host.takeSent() == [], "no Pairing Failed for an early confirm")
        host.controller("04 0e 0c 01 18 20 00 40 e2 01 00 00 00 00 00")  // 123,456
        let events = host.takeEvents()
        guard case .displayPasskey(passkey)? = events.first else { Issue.record("no passkey: \(events)"); return }
        host.controller("04 0e 0c 01 18 20 00 " + Hex.encode(rand1))
        host.controller("04 0e 0c 01 18 20 00 " + Hex.encode(rand2))
        let sent = host.takeSent()
        let zeros = Hex.encode([UInt8](repeating: 0, count: 16))
        let confirmTemplate = hostSMP("03 " + zeros)
        let confirmHead = confirmTemplate.prefix(confirmTemplate.count - zeros.count)
        #expect(sent.contains { $0.hasPrefix(confirmHead) }, "the band's own confirm: \(sent)")
        host.controller(smp("04 " + Hex.encode(wire(nonce))))
        let afterRandom = host.takeSent()
        #expect(!afterRandom.contains(hostSMP("05 04")) && !afterRandom.contains(hostSMP("05 08")), "\(afterRandom)")
        #expect(!host.takeEvents().contains { if case .pairingFailed = $0 { true } else { false } })
        #expect(host.host.connection?.isPairing == true)
    }

    /// One passkey-entry pairing in which the central types a wrong passkey.
    func wrongPasskeyAttempt(_ host: inout ScriptedHost, expectThrottle: UInt32? = nil) {
        // A central with a keyboard (KeyboardDisplay) against the band's DisplayOnly: passkey entry.
        host.controller(smp("01 04 00 0d 10 00 00"))
        #expect(host.takeSent() == [compact("01 25 20 00"), hostSMP("02 00 00 0d 10 00 00")])
        host.controller("04 0f 04 00 01 25 20")
        host.controller("04 3e 42 08 00 " + Hex.encode(bandKey))
        host.controller(smp("0c " + Hex.encode(centralKey)))
        host.controller("04 0f 04 00 01 26 20")
        _ = host.takeSent()
        host.controller("04 0e 0c 01 18 20 00 40 e2 01 00 00 00 00 00")  // 123,456
        guard case .displayPasskey(let passkey)? = host.takeEvents().first else { Issue.record("no passkey"); return }
        #expect(passkey == 123_456)
        // The central entered 654,321: its first confirm is made with the wrong bit.
        let wrong: UInt32 = 654_321
        let nonce = AESBlock()
        let cai = SMPCrypto.f4(u: coordinate(Array(centralKey.prefix(32))), v: coordinate(Array(bandKey.prefix(32))), x: nonce,
                               z: 0x80 | UInt8(wrong & 1))
        host.controller(smp("03 " + Hex.encode(wire(cai))))
        host.controller("04 0e 0c 01 18 20 00 " + Hex.encode(rand1))
        host.controller("04 0e 0c 01 18 20 00 " + Hex.encode(rand2))
        _ = host.takeSent()
        host.controller(smp("04 " + Hex.encode(wire(nonce))))
        #expect(host.takeSent() == [hostSMP("05 04")])
        let events = host.takeEvents()
        let failures = events.compactMap { event -> UInt8? in if case .pairingFailed(let failure) = event { return failure.reason } else { return nil } }
        #expect(failures == [SMPFailure.confirmValueFailed])
        let throttles = events.compactMap { event -> UInt32? in if case .pairingThrottled(let wait) = event { return wait } else { return nil } }
        #expect(throttles == (expectThrottle.map { [$0] } ?? []))
    }
}

/// SMP's 30-second timeout runs from the last SMP command.
@Suite struct PairingTimeoutTests {
    @Test func aStalledPairingTimesOutAfterThirtySeconds() {
        var host = ScriptedHost()
        host.bringUp(aclCount: 10)
        host.connect()
        host.controller("02 40 20 0b 00 07 00 06 00 01 03 00 09 10 00 00")
        // The controller does its part; the central never sends its public key.
        host.controller("04 0f 04 00 01 25 20")
        host.controller("04 3e 42 08 00" + String(repeating: " 5a", count: 64))
        _ = host.takeSent()
        _ = host.takeEvents()
        #expect(host.host.connection?.isPairing == true)
        host.host.tick(now: 29_999, io: &host.io)
        #expect(host.takeEvents().isEmpty)
        host.host.tick(now: 30_000, io: &host.io)
        guard case .pairingFailed(let failure)? = host.takeEvents().first else { Issue.record("no timeout"); return }
        #expect(failure.reason == SMPFailure.unspecifiedReason && failure.sentByBand)
        #expect(host.host.connection?.isPairing == false)
        // No Pairing Failed goes out after a timeout (§3.4).
        #expect(host.takeSent() == [])
    }
}
