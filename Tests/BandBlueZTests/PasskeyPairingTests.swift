@testable import BandBlueZ
import Foundation
import BandLink
import BandTestSupport
import BandWire
import Testing

/// Passkey entry through the management socket (a watch with a display refuses Just Works): a PineTime shows
/// six digits, the reader types them. Scripted conversations on the fake kernel's management
/// socket; the kernel's SMP itself is not in these tests.
@Suite("Passkey pairing on the management socket")
struct PasskeyPairingTests {
    static let peer = LEAddress(try! BluetoothAddress("00:AA:01:00:00:24"), type: .public)
    static let passkeyRequest = bytes("10 00 00 00 07 00 24 00 00 01 aa 00 01")
    static let newKey = bytes("""
        0a 00 00 00 25 00 01 24 00 00 01 aa 00 01 03 00 10 00 00 00 00 00 00 00 00 00 00 \
        00 11 22 33 44 55 66 77 88 99 aa bb cc dd ee ff
        """)
    /// Authentication Failed (0x0011), Status 0x05 Authentication Failed.
    static let authenticationFailed = bytes("11 00 00 00 08 00 24 00 00 01 aa 00 01 05")

    func agent(_ kernel: FakeBluetoothKernel, store: LongTermKeyStore?) throws -> PairingAgent {
        let adapter = try BlueZAdapter("hci0", system: kernel.system)
        kernel.deliver(ManagementTests.complete(.readControllerInformation, index: 0,
                                                ManagementTests.controllerInformation(address: ManagementTests.adapterAddress, current: [.powered])))
        let agent = try PairingAgent(adapter: adapter, keyStore: store)
        _ = kernel.sent()
        return agent
    }

    // MARK: Layouts

    @Test func userPasskeyReplyIsAddressTypeAndAFourByteLittleEndianPasskey() throws {
        let reply = UserPasskeyReply(peer: Self.peer, passkey: 123_456)
        #expect(reply.parameters == bytes("24 00 00 01 aa 00 01 40 e2 01 00"))
        #expect(try UserPasskeyReply(parsingAll: reply.parameters) == reply)
        let random = UserPasskeyReply(peer: LEAddress(Self.peer.address, type: .random), passkey: 0)
        #expect(try UserPasskeyReply(parsingAll: random.parameters) == random)
        #expect(random.parameters[6] == 2)
    }

    @Test func everyTruncationOfAUserPasskeyReplyIsTruncated() {
        #expect(prefixesThatDidNotTruncate(bytes("24 00 00 01 aa 00 01 40 e2 01 00"), UserPasskeyReply.init(parsing:)) == [])
    }

    @Test func aPasskeyOfSevenDigitsIsRefusedAtItsOffset() {
        // 1 000 000 = 0x0F4240
        #expect(throws: ParseError(.invalidValue, at: 7, field: "Passkey")) {
            try UserPasskeyReply(parsingAll: bytes("24 00 00 01 aa 00 01 40 42 0f 00"))
        }
    }

    @Test func everyTruncationOfAUserPasskeyRequestEventIsAnErrorAtItsOffset() throws {
        #expect(try ManagementEvent(ManagementPacket(parsingAll: Self.passkeyRequest)) == .userPasskeyRequest(controllerIndex: 0, Self.peer))
        let parameters = Array(Self.passkeyRequest[6...])
        for length in 0..<parameters.count {
            let packet = ManagementPacket(code: 0x0010, controllerIndex: 0, parameters: Array(parameters[0..<length]))
            #expect(throws: ParseError.self) { try ManagementEvent(packet) }
        }
    }

    /// Passkey Notify (0x0017): the kernel chose 024680 for this side's display.
    static let passkeyNotify = bytes("17 00 00 00 0c 00 24 00 00 01 aa 00 01 68 60 00 00 00")

    @Test func passkeyNotifyCarriesThePasskeyAndEveryTruncationIsAnError() throws {
        #expect(try ManagementEvent(ManagementPacket(parsingAll: Self.passkeyNotify))
                == .passkeyNotify(controllerIndex: 0, Self.peer, passkey: 24_680, entered: 0))
        let parameters = Array(Self.passkeyNotify[6...])
        for length in 0..<parameters.count {
            let packet = ManagementPacket(code: 0x0017, controllerIndex: 0, parameters: Array(parameters[0..<length]))
            #expect(throws: ParseError.self) { try ManagementEvent(packet) }
        }
        // 1 000 000 is no passkey.
        #expect(throws: ParseError(.invalidValue, at: 13, field: "Passkey")) {
            try ManagementEvent(ManagementPacket(code: 0x0017, controllerIndex: 0, parameters: bytes("24 00 00 01 aa 00 01 40 42 0f 00 00")))
        }
    }

    @Test func theAgentSaysWhichPasskeyTheScreenShows() throws {
        let kernel = FakeBluetoothKernel()
        var lines: [String] = []
        let agent = try agent(kernel, store: nil)
        agent.log = { lines.append($0) }
        kernel.deliver(Self.passkeyNotify)
        try agent.handlePendingEvents()
        #expect(lines == ["hci0: the screen shows passkey 024680 for \(Self.peer)"])
        #expect(kernel.sent().isEmpty, "Passkey Notify needs no answer")
        #expect(agent.failure == nil)
    }

    @Test func displayOnlyIsDeclaredWithSetIOCapability() throws {
        let kernel = FakeBluetoothKernel()
        let adapter = try BlueZAdapter("hci0", system: kernel.system)
        kernel.deliver(ManagementTests.complete(.setIOCapability, index: 0))
        try adapter.setIOCapability(BlueZAdapter.displayOnly)
        #expect(kernel.sent() == [bytes("18 00 00 00 01 00 00")])
    }

    @Test func theOpcodesAreNamed() {
        #expect(ManagementOpcode.userPasskeyReply.rawValue == 0x001E)
        #expect(ManagementOpcode.userPasskeyReply.description == "User Passkey Reply")
        #expect(ManagementOpcode.userPasskeyNegativeReply.rawValue == 0x001F)
    }

    // MARK: Conversations

    @Test func passkeyEntryDeclaresAKeyboard() throws {
        let kernel = FakeBluetoothKernel()
        let agent = try agent(kernel, store: nil)
        kernel.deliver(ManagementTests.complete(.setIOCapability, index: 0))
        try agent.enablePasskeyEntry()
        #expect(kernel.sent() == [bytes("18 00 00 00 01 00 02")])  // Set IO Capability KeyboardOnly
    }

    @Test func theRightPasskeyIsAnsweredAndTheBondIsStored() throws {
        let directory = TemporaryDirectory()
        let kernel = FakeBluetoothKernel()
        let store = LongTermKeyStore(path: "\(directory.path)/keys")
        let agent = try agent(kernel, store: store)
        var asked: [LEAddress] = []
        agent.passkeyEntry = { peer in asked.append(peer); return 123_456 }
        // kernel: User Passkey Request → agent: User Passkey Reply 123456
        kernel.deliver(Self.passkeyRequest)
        try agent.handlePendingEvents()
        #expect(asked == [Self.peer])
        #expect(kernel.sent() == [bytes("1e 00 00 00 0b 00 24 00 00 01 aa 00 01 40 e2 01 00")])
        #expect(agent.isAwaitingKeys)
        // kernel: New Long Term Key (authenticated P-256) → stored
        kernel.deliver(Self.newKey)
        try agent.handlePendingEvents()
        #expect(!agent.isAwaitingKeys)
        #expect(agent.failure == nil)
        let stored = try store.keys(forAdapter: ManagementTests.adapterAddress)
        #expect(stored.map(\.peer) == [Self.peer])
        #expect(stored.map(\.keyType) == [3])
    }

    @Test func aWrongPasskeyIsReportedAsSuchAndNothingIsStored() throws {
        let directory = TemporaryDirectory()
        let kernel = FakeBluetoothKernel()
        let store = LongTermKeyStore(path: "\(directory.path)/keys")
        let agent = try agent(kernel, store: store)
        agent.passkeyEntry = { _ in 111_111 }
        kernel.deliver(Self.passkeyRequest)
        kernel.deliver(Self.authenticationFailed)
        try agent.handlePendingEvents()
        #expect(kernel.sent() == [bytes("1e 00 00 00 0b 00 24 00 00 01 aa 00 01 07 b2 01 00")])
        #expect(!agent.isAwaitingKeys)
        #expect(agent.failure == .passkeyRejected(Self.peer, ManagementStatus(rawValue: 0x05)))
        #expect(agent.failure?.description.contains("refused the passkey") == true)
        #expect(try store.keys(forAdapter: ManagementTests.adapterAddress).isEmpty)
    }

    /// The kernel's Authentication Failed comes a moment after connect() returned EACCES: the
    /// agent waits for it, so `band pair` can say the passkey was wrong (seen in the radio guest).
    @Test func theAgentWaitsForTheVerdictOnAnAnsweredPasskey() throws {
        let kernel = FakeBluetoothKernel()
        let agent = try agent(kernel, store: nil)
        agent.passkeyEntry = { _ in 111_111 }
        kernel.deliver(Self.passkeyRequest)
        try agent.handlePendingEvents()
        #expect(agent.failure == nil)
        let late = Thread { Thread.sleep(forTimeInterval: 0.2); kernel.deliver(Self.authenticationFailed) }
        late.start()
        #expect(agent.awaitFailure(timeout: .seconds(20), system: kernel.system) == .passkeyRejected(Self.peer, ManagementStatus(rawValue: 0x05)))
    }

    @Test func withNothingAnsweredTheAgentDoesNotWait() throws {
        let kernel = FakeBluetoothKernel()
        let agent = try agent(kernel, store: nil)
        let started = ContinuousClock.now
        #expect(agent.awaitFailure(timeout: .seconds(30), system: kernel.system) == nil)
        #expect(ContinuousClock.now - started < .seconds(29))
    }

    @Test func withNoPasskeyTheRequestIsRefusedAndTheReasonKept() throws {
        let kernel = FakeBluetoothKernel()
        let agent = try agent(kernel, store: nil)
        agent.passkeyEntry = { _ in nil }
        kernel.deliver(Self.passkeyRequest)
        try agent.handlePendingEvents()
        #expect(kernel.sent() == [bytes("1f 00 00 00 07 00 24 00 00 01 aa 00 01")])
        #expect(agent.failure == .passkeyNeeded(Self.peer))
        #expect(!agent.isAwaitingKeys)
    }

    @Test func aFailureWithoutAPasskeyIsNotCalledAWrongPasskey() throws {
        let kernel = FakeBluetoothKernel()
        let agent = try agent(kernel, store: nil)
        kernel.deliver(Self.authenticationFailed)
        try agent.handlePendingEvents()
        #expect(agent.failure == .failed(Self.peer, ManagementStatus(rawValue: 0x05)))
    }

    @Test func justWorksIsStillConfirmedWhenAPasskeyIsAtHand() throws {
        let kernel = FakeBluetoothKernel()
        let agent = try agent(kernel, store: nil)
        agent.passkeyEntry = { _ in Issue.record("no passkey asked for Just Works"); return nil }
        kernel.deliver(bytes("0f 00 00 00 0c 00 24 00 00 01 aa 00 01 01 00 00 00 00"))
        try agent.handlePendingEvents()
        #expect(kernel.sent() == [bytes("1c 00 00 00 07 00 24 00 00 01 aa 00 01")])
        #expect(agent.confirmedPairings == 1)
    }
}
