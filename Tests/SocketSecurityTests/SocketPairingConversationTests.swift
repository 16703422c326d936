import BandLink
import BandWire
import SocketSecurity
import Testing

/// The socket link's pairing as a conversation between the reader's initiator and a device's
/// responder, message by message (docs/protocol.md, "Link security on the socket link").
@Suite struct SocketPairingConversationTests {
    /// Counting random bytes: every run of the machines is reproducible.
    final class Counter {
        var next: UInt8 = 0
        func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in next &+= 1; return next } }
    }

    /// Runs both machines against each other until the initiator finishes; returns its outcome,
    /// every message in order (who sent it), and what the responder reported.
    static let t0 = ContinuousClock.now

    func converse(_ initiator: inout SocketPairingInitiator, _ responder: inout SocketPairingResponder, at seconds: Double = 0,
                  passkey: (UInt32?) -> UInt32?) -> (SocketSecurityOutcome, [String], [SocketPairingResponder.Action]) {
        let now = Self.t0.advanced(by: .milliseconds(Int64(seconds * 1000)))
        var transcript: [String] = []
        var reports: [SocketPairingResponder.Action] = []
        var shown: UInt32?
        var queue = initiator.start()
        while !queue.isEmpty {
            let action = queue.removeFirst()
            switch action {
            case .finish(let outcome):
                for case .send(let pdu) in queue { transcript.append("reader: \(pdu.name)") }
                return (outcome, transcript, reports)
            case .askForPasskey:
                queue += initiator.enteredPasskey(passkey(shown))
            case .send(let pdu):
                transcript.append("reader: \(pdu.name)")
                // Through the envelope, as on the socket.
                let delivered = try! SocketSecurityPDU(envelope: pdu.envelope)
                for answer in responder.received(delivered, at: now) {
                    switch answer {
                    case .send(let reply):
                        transcript.append("device: \(reply.name)")
                        queue += initiator.received(try! SocketSecurityPDU(envelope: reply.envelope))
                    case .display(let value):
                        shown = value
                        reports.append(answer)
                    default:
                        reports.append(answer)
                    }
                }
            }
        }
        Issue.record("the initiator never finished")
        return (.failed(.timedOut), transcript, reports)
    }

    @Test func theRightPasskeyBondsAndBothEndsHoldTheSameKey() throws {
        let random = Counter()
        var watch = SocketPairingResponder(ioCapability: .displayOnly, requiresPasskey: true, random: random.bytes)
        var reader = SocketPairingInitiator(mode: .pair(ioCapability: .keyboardOnly), random: random.bytes)
        let (outcome, transcript, reports) = converse(&reader, &watch) { shown in shown }
        #expect(transcript == ["reader: Pairing Request", "device: Pairing Response", "reader: Pairing Confirm", "device: Pairing Confirm",
                               "reader: Pairing Random", "device: Pairing Random", "device: Encryption Information", "device: Central Identification"])
        guard case .bonded(let bond) = outcome else { Issue.record("not bonded: \(outcome)"); return }
        #expect(watch.bonds == [bond])
        #expect(reports.contains { if case .display = $0 { true } else { false } }, "the watch showed a passkey")
        #expect(reports.last == .bonded(bond))

        // The next connection encrypts with the bond: no passkey asked.
        var again = SocketPairingInitiator(mode: .encrypt(bond), random: random.bytes)
        let (second, secondTranscript, secondReports) = converse(&again, &watch) { _ in
            Issue.record("asked for a passkey when encrypting with a bond")
            return nil
        }
        #expect(second == .encrypted)
        #expect(secondTranscript == ["reader: start encryption", "device: encryption started"])
        #expect(secondReports == [.encrypted(bond)])
    }

    @Test func aWrongPasskeyFailsAsSMPDoesAndNoKeyIsDistributed() {
        let random = Counter()
        var watch = SocketPairingResponder(ioCapability: .displayOnly, requiresPasskey: true, fixedPasskey: 123_456, random: random.bytes)
        var reader = SocketPairingInitiator(mode: .pair(ioCapability: .keyboardOnly), random: random.bytes)
        let (outcome, transcript, _) = converse(&reader, &watch) { _ in 654_321 }
        #expect(outcome == .failed(.refused(.confirmValueFailed)))
        #expect(transcript.last == "device: Pairing Failed")
        #expect(!transcript.contains("device: Encryption Information"))
        #expect(!transcript.contains("device: Pairing Random"), "the device does not reveal its random after a bad confirm")
        #expect(watch.bonds.isEmpty)
    }

    @Test func noPasskeyEnteredSendsPasskeyEntryFailed() {
        let random = Counter()
        var watch = SocketPairingResponder(ioCapability: .displayOnly, requiresPasskey: true, random: random.bytes)
        var reader = SocketPairingInitiator(mode: .pair(ioCapability: .keyboardOnly), random: random.bytes)
        let (outcome, transcript, reports) = converse(&reader, &watch) { _ in nil }
        #expect(outcome == .failed(.passkeyNotEntered))
        #expect(transcript == ["reader: Pairing Request", "device: Pairing Response", "reader: Pairing Failed"])
        #expect(reports.contains { if case .failed(let why) = $0 { why.contains("Passkey Entry Failed (0x01)") } else { false } })
        #expect(watch.bonds.isEmpty)
    }

    @Test func aWatchThatNeedsAPasskeyRefusesJustWorks() {
        let random = Counter()
        var watch = SocketPairingResponder(ioCapability: .displayOnly, requiresPasskey: true, random: random.bytes)
        var reader = SocketPairingInitiator(mode: .pair(ioCapability: .noInputNoOutput), random: random.bytes)
        let (outcome, transcript, _) = converse(&reader, &watch) { _ in Issue.record("asked"); return nil }
        #expect(outcome == .failed(.refused(.authenticationRequirements)))
        #expect(transcript == ["reader: Pairing Request", "device: Pairing Failed"])
        #expect(watch.bonds.isEmpty)
    }

    @Test func aStrapPairsJustWorksWithOrWithoutAKeyboard() {
        for io in [IOCapability.noInputNoOutput, .keyboardOnly] {
            let random = Counter()
            var strap = SocketPairingResponder(ioCapability: .noInputNoOutput, random: random.bytes)
            var reader = SocketPairingInitiator(mode: .pair(ioCapability: io), random: random.bytes)
            let (outcome, _, reports) = converse(&reader, &strap) { _ in Issue.record("asked"); return nil }
            guard case .bonded = outcome else { Issue.record("\(io): \(outcome)"); continue }
            #expect(!reports.contains { if case .display = $0 { true } else { false } })
            #expect(strap.bonds.count == 1)
        }
    }

    @Test func aForgottenBondIsKeyMissingAndAForgedOneFailsItsProof() {
        let random = Counter()
        var watch = SocketPairingResponder(ioCapability: .displayOnly, requiresPasskey: true, random: random.bytes)
        let unknown = SocketBond(ediv: 0x1234, rand: 42, longTermKey: [UInt8](repeating: 7, count: 16))
        var reader = SocketPairingInitiator(mode: .encrypt(unknown), random: random.bytes)
        let (outcome, transcript, _) = converse(&reader, &watch) { _ in nil }
        #expect(outcome == .failed(.keyMissing))
        #expect(transcript == ["reader: start encryption", "device: encryption rejected"])

        var pairing = SocketPairingInitiator(mode: .pair(ioCapability: .keyboardOnly), random: random.bytes)
        guard case (.bonded(var bond), _, _) = converse(&pairing, &watch, passkey: { $0 }) else { Issue.record("no bond"); return }
        bond.longTermKey[0] ^= 1
        var forged = SocketPairingInitiator(mode: .encrypt(bond), random: random.bytes)
        #expect(converse(&forged, &watch) { _ in nil }.0 == .failed(.keyMismatch))
    }

    @Test func aPairingAbandonedMidwayStartsOverOnTheNextLink() {
        let random = Counter()
        var watch = SocketPairingResponder(ioCapability: .displayOnly, requiresPasskey: true, random: random.bytes)
        _ = watch.received(.pairingRequest(PairingFeatures(ioCapability: .keyboardOnly)), at: Self.t0)
        watch.connectionEnded()
        // A confirm on the new link without a request is out of order.
        let answer = watch.received(.pairingConfirm([UInt8](repeating: 0, count: 16)), at: Self.t0)
        #expect(answer.first == .send(.pairingFailed(.unspecifiedReason)))
        var reader = SocketPairingInitiator(mode: .pair(ioCapability: .keyboardOnly), random: random.bytes)
        guard case .bonded = converse(&reader, &watch, passkey: { $0 }).0 else { Issue.record("did not pair afresh"); return }
    }

    @Test func aPeerWithoutLinkSecurityLeavesTheLinkAsItWas() {
        var reader = SocketPairingInitiator(mode: .pair(ioCapability: .keyboardOnly), random: Counter().bytes)
        _ = reader.start()
        #expect(reader.peerHasNoLinkSecurity() == [.finish(.noLinkSecurity)])
    }

    @Test func thePasskeyScreenTextKeepsLeadingZeros() {
        #expect(SocketPairingResponder.digits(42) == "000042")
        #expect(SocketPairingResponder.digits(999_999) == "999999")
    }

    /// A wrong passkey costs a waiting interval that doubles with every failure in a row
    /// (Core 5.4 Vol 3 Part H §2.3.6): a request inside it is refused, Repeated Attempts, without
    /// a passkey being shown or tried; after it, the right passkey bonds and the count starts over.
    @Test func wrongPasskeysBackOffExponentiallyAndRepeatedAttemptsAreRefused() {
        let random = Counter()
        var watch = SocketPairingResponder(ioCapability: .displayOnly, requiresPasskey: true, fixedPasskey: 123_456, random: random.bytes)
        func attempt(at seconds: Double, passkey: UInt32) -> (SocketSecurityOutcome, [String], [SocketPairingResponder.Action]) {
            var reader = SocketPairingInitiator(mode: .pair(ioCapability: .keyboardOnly), random: random.bytes)
            return converse(&reader, &watch, at: seconds) { _ in passkey }
        }
        // The link's pace: a wrong guess, then another at once — refused before any passkey.
        let wrong = attempt(at: 0, passkey: 1)
        #expect(wrong.0 == .failed(.refused(.confirmValueFailed)))
        let said = "a wrong passkey; Pairing Failed: Confirm Value Failed (0x04); 1 in a row: pairing requests are refused for the next 1 s"
        #expect(wrong.2.contains { if case .failed(let why) = $0 { why.contains(said) } else { false } }, "\(wrong.2)")
        let refused = attempt(at: 0.5, passkey: 2)
        #expect(refused.0 == .failed(.refused(.repeatedAttempts)))
        #expect(refused.1 == ["reader: Pairing Request", "device: Pairing Failed"])
        #expect(!refused.2.contains { if case .display = $0 { true } else { false } })
        #expect(refused.2.contains { if case .failed(let why) = $0 { why.contains("Repeated Attempts") && why.contains("1 s") } else { false } },
                "\(refused.2)")
        // 1 s, 2 s, 4 s, 8 s: each failure doubles the wait.
        var clock = 1.0
        for (failures, wait) in [(2, 2.0), (3, 4.0), (4, 8.0)] {
            #expect(attempt(at: clock, passkey: 3).0 == .failed(.refused(.confirmValueFailed)))
            #expect(watch.failures == failures)
            #expect(attempt(at: clock + wait - 0.01, passkey: 123_456).0 == .failed(.refused(.repeatedAttempts)), "\(failures) failures")
            clock += wait
        }
        #expect(watch.wait(afterFailures: 40) == .seconds(600), "capped")
        // Past the wait, the right passkey bonds and clears the count.
        guard case .bonded = attempt(at: clock, passkey: 123_456).0 else { Issue.record("the right passkey did not bond"); return }
        #expect(watch.failures == 0)
        #expect(attempt(at: clock + 0.1, passkey: 9).0 == .failed(.refused(.confirmValueFailed)))
        #expect(watch.nextAttemptAllowed() == Self.t0.advanced(by: .milliseconds(Int64((clock + 0.1) * 1000))).advanced(by: .seconds(1)))
    }

    /// A guesser at the link's pace (~60 attempts a second before) gets through only a handful
    /// of guesses a day once the wait is capped: all 10⁶ codes would take years.
    @Test func aBruteForceOfAFixedPasskeyTakesYearsNotHours() {
        var watch = SocketPairingResponder(ioCapability: .displayOnly, requiresPasskey: true, fixedPasskey: 999_999, random: Counter().bytes)
        var seconds = 0.0, tried = 0, refused = 0
        while seconds < 86_400 {
            var reader = SocketPairingInitiator(mode: .pair(ioCapability: .keyboardOnly), random: Counter().bytes)
            switch converse(&reader, &watch, at: seconds, passkey: { _ in UInt32(tried) }).0 {
            case .failed(.refused(.confirmValueFailed)): tried += 1
            case .failed(.refused(.repeatedAttempts)): refused += 1
            case let other: Issue.record("\(other)"); return
            }
            // The guesser's best: one refused try at the link's pace, then straight to the allowed instant.
            seconds += 1.0 / 60
            if refused > 0, let allowed = watch.nextAttemptAllowed() {
                let wait = Self.t0.duration(to: allowed).components
                seconds = max(seconds, Double(wait.seconds) + Double(wait.attoseconds) * 1e-18 + 0.001)
            }
        }
        #expect(tried < 200, "\(tried) passkeys tried in a day")
        #expect(tried > 100, "the capped wait still lets the owner pair")
    }
}
