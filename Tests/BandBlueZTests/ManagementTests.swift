@testable import BandBlueZ
import BandKitSystem
import BandLink
import BandTestSupport
import BandWire
import Glibc
import Testing

@Suite("Management socket, adapter and pairing agent")
struct ManagementTests {
    static let peer = LEAddress(try! BluetoothAddress("00:AA:01:00:00:24"), type: .public)
    static let adapterAddress = try! BluetoothAddress("00:AA:01:01:00:23")

    /// Command Complete for `opcode` on `index` with `returned` parameters.
    static func complete(_ opcode: ManagementOpcode, index: UInt16, status: UInt8 = 0, _ returned: [UInt8] = []) -> [UInt8] {
        ManagementPacket(code: 0x0001, controllerIndex: index,
                         parameters: [UInt8(opcode.rawValue & 0xFF), UInt8(opcode.rawValue >> 8), status] + returned).bytes
    }

    static func settings(_ value: AdapterSettings) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: value.rawValue >> (8 * UInt32($0))) }
    }

    static func controllerInformation(address: BluetoothAddress, current: AdapterSettings,
                                      supported: AdapterSettings = [.powered, .lowEnergy, .bondable, .connectable, .advertising]) -> [UInt8] {
        var reply = address.wireOrder + [0x09, 0x02, 0x00]
        reply += settings(supported)
        reply += settings(current)
        reply += [0, 0, 0]
        reply += Array("BlueZ 5.66".utf8) + [UInt8](repeating: 0, count: 249 - 10)
        reply += [UInt8](repeating: 0, count: 11)
        return reply
    }

    @Test func theSocketIsAControlChannelSocketWithNoDevice() throws {
        let kernel = FakeBluetoothKernel()
        _ = try ManagementSocket(system: kernel.system)
        let call = try #require(kernel.state.withLock { $0.socketCalls.first })
        #expect(call.type & 0xF == Int32(SOCK_RAW.rawValue))
        #expect(call.proto == 1)  // BTPROTO_HCI
        #expect(kernel.state.withLock { $0.boundAddresses } == [bytes("1f 00 ff ff 03 00")])
    }

    @Test func performSendsTheCommandAndReturnsItsReply() throws {
        let kernel = FakeBluetoothKernel()
        let socket = try ManagementSocket(system: kernel.system)
        kernel.deliver(Self.complete(.setPowered, index: 1, Self.settings([.powered, .lowEnergy])))
        let reply = try socket.perform(.setPowered, controllerIndex: 1, parameters: [1])
        #expect(reply == Self.settings([.powered, .lowEnergy]))
        #expect(kernel.sent() == [bytes("05 00 01 00 01 00 01")])
    }

    @Test func eventsArrivingBeforeTheReplyAreKeptForLater() throws {
        let kernel = FakeBluetoothKernel()
        let socket = try ManagementSocket(system: kernel.system)
        kernel.deliver(bytes("0f 00 01 00 0c 00 24 00 00 01 aa 00 01 01 00 00 00 00"))
        kernel.deliver(Self.complete(.setBondable, index: 1, Self.settings([.bondable])))
        try socket.perform(.setBondable, controllerIndex: 1, parameters: [1])
        #expect(socket.hasQueuedEvents)
        #expect(try socket.nextEvent(timeout: .zero) == .userConfirmationRequest(controllerIndex: 1, Self.peer, confirmHint: 1, value: 0))
        #expect(try socket.nextEvent(timeout: .zero) == nil)
    }

    @Test func aFailedCommandNamesTheCommandTheAdapterAndTheStatus() throws {
        let kernel = FakeBluetoothKernel()
        let socket = try ManagementSocket(system: kernel.system)
        kernel.deliver(Self.complete(.addAdvertising, index: 0, status: 0x0D))
        #expect(throws: LinkError.system(call: "mgmt Add Advertising on hci0: Invalid Parameters (0xd)", errno: EINVAL)) {
            try socket.perform(.addAdvertising, controllerIndex: 0, parameters: [1])
        }
        kernel.deliver(ManagementPacket(code: 0x0002, controllerIndex: 0, parameters: [0x05, 0x00, 0x0F]).bytes)
        #expect(throws: LinkError.system(call: "mgmt Set Powered on hci0: Not Powered (0xf)", errno: ENETDOWN)) {
            try socket.perform(.setPowered, controllerIndex: 0, parameters: [1])
        }
    }

    /// The kernel refuses a command for a vanished controller with a Command Status of Invalid
    /// Index and a send of 0 bytes; the user must read that the adapter is gone, not a misleading
    /// "send failed: Message too long (errno 90)".
    @Test func aCommandForAVanishedAdapterSaysTheAdapterIsGone() throws {
        let kernel = FakeBluetoothKernel()
        kernel.state.withLock { $0.goneControllers = [0] }
        let socket = try ManagementSocket(system: kernel.system)
        #expect(throws: LinkError.system(call: "mgmt Set Powered on hci0 (adapter gone: Invalid Index)", errno: ENODEV)) {
            try socket.perform(.setPowered, controllerIndex: 0, parameters: [1])
        }
        #expect(!socket.hasQueuedEvents)
        #expect(throws: LinkError.system(call: "mgmt Set Low Energy on hci0 (adapter gone: Invalid Index)", errno: ENODEV)) {
            try socket.send(ManagementPacket(.setLowEnergy, controllerIndex: 0, parameters: [1]))
        }
    }

    @Test func anAdapterThatVanishesIsReportedByBlueZAdapter() throws {
        let kernel = FakeBluetoothKernel()
        kernel.state.withLock { $0.goneControllers = [0] }
        let adapter = try BlueZAdapter("hci0", system: kernel.system)
        do {
            _ = try adapter.prepareForLowEnergy()
            Issue.record("a vanished adapter was prepared")
        } catch {
            #expect("\(error)".contains("adapter gone"))
            #expect(!"\(error)".contains("Message too long"))
            guard case .system(_, let code) = error else { Issue.record("got \(error)"); return }
            #expect(code == ENODEV)
        }
    }

    @Test func aReplyThatNeverComesIsATimeoutNotAHang() throws {
        let kernel = FakeBluetoothKernel()
        let socket = try ManagementSocket(system: kernel.system)
        #expect(throws: LinkError.system(call: "mgmt Set Low Energy on hci0 (no reply)", errno: ETIMEDOUT)) {
            try socket.perform(.setLowEnergy, controllerIndex: 0, parameters: [1], timeout: .milliseconds(20))
        }
    }

    @Test func malformedEventsAreErrorsWithTheirOffset() throws {
        let kernel = FakeBluetoothKernel()
        let socket = try ManagementSocket(system: kernel.system)
        kernel.deliver(bytes("0f 00 01 00 05 00 24 00 00 01 aa"))  // confirmation request cut short
        #expect(throws: LinkError.system(call: "mgmt event: truncated in BD_ADDR at byte offset 6", errno: 74)) {
            _ = try socket.nextEvent(timeout: .seconds(1))
        }
    }

    @Test func newLongTermKeyEventDecodes() throws {
        let packet = try ManagementPacket(parsingAll: bytes("""
            0a 00 01 00 25 00 01 24 00 00 01 aa 00 01 02 00 10 00 00 00 00 00 00 00 00 00 00 \
            00 11 22 33 44 55 66 77 88 99 aa bb cc dd ee ff
            """))
        let event = try ManagementEvent(packet)
        let key = LongTermKey(peer: Self.peer, keyType: 2, central: false, encryptionSize: 16, ediv: 0, rand: 0,
                              value: bytes("00 11 22 33 44 55 66 77 88 99 aa bb cc dd ee ff"))
        #expect(event == .newLongTermKey(controllerIndex: 1, key, storeHint: true))
    }

    @Test func aLongTermKeyWithAnUndefinedRoleIsRefused() {
        // Found by fuzz/bluez: Central 0x06 decoded as true and re-encoded as 0x01.
        #expect(throws: ParseError(.invalidValue, at: 8, field: "Central")) {
            try LongTermKey(parsingAll: bytes("24 00 00 01 aa 00 01 02 06 10 34 12 08 07 06 05 04 03 02 01 00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f"))
        }
    }

    @Test func aLongTermKeyForANonLEAddressTypeIsRefused() {
        // Address_Type 0 is BDADDR_BREDR: an LE long-term key cannot belong to it.
        #expect(throws: ParseError(.invalidValue, at: 6, field: "Address_Type")) {
            try LongTermKey(parsingAll: bytes("24 00 00 01 aa 00 00 02 00 10 34 12 08 07 06 05 04 03 02 01 00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f"))
        }
    }

    @Test func addressTypesAreConvertedFromBlueZNumberingAndBREDREventsAreLeftAlone() throws {
        let random = try ManagementEvent(ManagementPacket(code: 0x000C, controllerIndex: 0, parameters: bytes("55 44 33 22 11 c0 02 03")))
        #expect(random == .deviceDisconnected(controllerIndex: 0, LEAddress(BluetoothAddress(0xC0_11_22_33_44_55), type: .random), reason: 3))
        let bredr = ManagementPacket(code: 0x000C, controllerIndex: 0, parameters: bytes("55 44 33 22 11 c0 00 03"))
        #expect(try ManagementEvent(bredr) == .other(code: 0x000C, controllerIndex: 0, parameters: bredr.parameters))
        let peer = LEAddress(BluetoothAddress(0xC0_11_22_33_44_55), type: .randomIdentity)
        #expect(ManagementEvent.addressParameters(peer) == bytes("55 44 33 22 11 c0 02"))
    }

    @Test func everyTruncationOfAManagementPacketIsTruncated() {
        #expect(prefixesThatDidNotTruncate(bytes("0f 00 01 00 0c 00 24 00 00 01 aa 00 01 01 00 00 00 00"), ManagementPacket.init(parsing:)) == [])
    }

    @Test func prepareForLowEnergyDoesWhatBtmgmtDoes() throws {
        let kernel = FakeBluetoothKernel()
        let adapter = try BlueZAdapter("hci1", system: kernel.system)
        kernel.deliver(Self.complete(.readControllerInformation, index: 1, Self.controllerInformation(address: Self.adapterAddress, current: [.powered])))
        kernel.deliver(Self.complete(.setPowered, index: 1, Self.settings([])))
        kernel.deliver(Self.complete(.setLowEnergy, index: 1, Self.settings([.lowEnergy])))
        kernel.deliver(Self.complete(.setBondable, index: 1, Self.settings([.lowEnergy, .bondable])))
        kernel.deliver(Self.complete(.setConnectable, index: 1, Self.settings([.lowEnergy, .bondable, .connectable])))
        kernel.deliver(Self.complete(.setIOCapability, index: 1))
        kernel.deliver(Self.complete(.setPowered, index: 1, Self.settings([.powered, .lowEnergy, .bondable, .connectable])))
        let settings = try adapter.prepareForLowEnergy()
        #expect(settings == [.powered, .lowEnergy, .bondable, .connectable])
        #expect(kernel.sent() == [
            bytes("04 00 01 00 00 00"),     // Read Controller Information
            bytes("05 00 01 00 01 00 00"),  // Set Powered off
            bytes("0d 00 01 00 01 00 01"),  // Set LE on
            bytes("09 00 01 00 01 00 01"),  // Set Bondable on
            bytes("07 00 01 00 01 00 01"),  // Set Connectable on
            bytes("18 00 01 00 01 00 03"),  // Set IO Capability NoInputNoOutput
            bytes("05 00 01 00 01 00 01"),  // Set Powered on
        ])
    }

    @Test func anAdapterAlreadySetUpIsLeftAlone() throws {
        let kernel = FakeBluetoothKernel()
        let adapter = try BlueZAdapter("hci0", system: kernel.system)
        let ready: AdapterSettings = [.powered, .lowEnergy, .bondable, .connectable]
        kernel.deliver(Self.complete(.readControllerInformation, index: 0, Self.controllerInformation(address: Self.adapterAddress, current: ready)))
        #expect(try adapter.prepareForLowEnergy() == ready)
        #expect(kernel.sent().count == 1)
    }

    /// Without bluetoothd the kernel starts with LE Secure Connections off: a band that refuses
    /// legacy pairing could not pair until `btmgmt sc on`.
    @Test func secureConnectionsAreTurnedOnWhenSupportedAndOff() throws {
        let kernel = FakeBluetoothKernel()
        let adapter = try BlueZAdapter("hci1", system: kernel.system)
        let ready: AdapterSettings = [.powered, .lowEnergy, .bondable, .connectable]
        let capable = ready.union([.advertising, .secureConnections])
        kernel.deliver(Self.complete(.readControllerInformation, index: 1,
                                     Self.controllerInformation(address: Self.adapterAddress, current: ready, supported: capable)))
        kernel.deliver(Self.complete(.setSecureConnections, index: 1, Self.settings(ready.union(.secureConnections))))
        #expect(try adapter.enableSecureConnections())
        #expect(kernel.sent() == [bytes("04 00 01 00 00 00"), bytes("2d 00 01 00 01 00 01")])  // Read Controller Information, Set SC on

        kernel.deliver(Self.complete(.readControllerInformation, index: 1,
                                     Self.controllerInformation(address: Self.adapterAddress, current: ready.union(.secureConnections), supported: capable)))
        #expect(try adapter.enableSecureConnections() == false, "already on")
        kernel.deliver(Self.complete(.readControllerInformation, index: 1, Self.controllerInformation(address: Self.adapterAddress, current: ready)))
        #expect(try adapter.enableSecureConnections() == false, "a controller without it is left alone")
        #expect(kernel.sent() == [bytes("04 00 01 00 00 00"), bytes("04 00 01 00 00 00")], "only read, never set")
    }

    @Test func controllerInformationGivesTheAddressAndSettings() throws {
        let kernel = FakeBluetoothKernel()
        let adapter = try BlueZAdapter("hci0", system: kernel.system)
        kernel.deliver(Self.complete(.readControllerInformation, index: 0, Self.controllerInformation(address: Self.adapterAddress, current: [.powered, .lowEnergy])))
        let info = try adapter.information()
        #expect(info.address == Self.adapterAddress)
        #expect(info.currentSettings == [.powered, .lowEnergy])
        #expect(info.name == "BlueZ 5.66")
        #expect(info.currentSettings.description == "powered le")
    }

    @Test func advertisingIsAddedAsInstanceOneAfterRemovingAnOldOne() throws {
        let kernel = FakeBluetoothKernel()
        let adapter = try BlueZAdapter("hci0", system: kernel.system)
        kernel.deliver(Self.complete(.removeAdvertising, index: 0, status: 0x0D))  // nothing to remove: fine
        kernel.deliver(Self.complete(.addAdvertising, index: 0, [0x01]))
        let advertisement = Advertisement(name: "Band", serviceUUIDs: [BluetoothUUID(0x180D)])
        try adapter.startAdvertising(advertisement)
        let sent = kernel.sent()
        #expect(sent.count == 2)
        #expect(sent[0] == bytes("3f 00 00 00 01 00 01"))
        #expect(Array(sent[1][0..<6]) == bytes("3e 00 00 00 18 00"))
        let parameters = try advertisement.addAdvertisingParameters()
        #expect(Array(sent[1][6...]) == parameters)
    }

    @Test func loadLongTermKeysSendsCountThenKeys() throws {
        let kernel = FakeBluetoothKernel()
        let adapter = try BlueZAdapter("hci1", system: kernel.system)
        let key = LongTermKey(peer: Self.peer, keyType: 2, central: false, encryptionSize: 16, ediv: 0x1234, rand: 0x0102030405060708,
                              value: [UInt8](0..<16))
        kernel.deliver(Self.complete(.loadLongTermKeys, index: 1))
        try adapter.loadLongTermKeys([key])
        let sent = try #require(kernel.sent().first)
        #expect(Array(sent[0..<8]) == bytes("13 00 01 00 26 00 01 00"))
        #expect(Array(sent[8...]) == bytes("24 00 00 01 aa 00 01 02 00 10 34 12 08 07 06 05 04 03 02 01") + [UInt8](0..<16))
    }

    @Test func theAgentConfirmsJustWorksOnItsAdapterOnlyAndStoresKeys() throws {
        let directory = TemporaryDirectory()
        let kernel = FakeBluetoothKernel()
        let adapter = try BlueZAdapter("hci1", system: kernel.system)
        kernel.deliver(Self.complete(.readControllerInformation, index: 1, Self.controllerInformation(address: Self.adapterAddress, current: [.powered])))
        var lines: [String] = []
        let store = LongTermKeyStore(path: "\(directory.path)/keys")
        let agent = try PairingAgent(adapter: adapter, keyStore: store, log: { lines.append($0) })
        _ = kernel.sent()
        kernel.deliver(bytes("0f 00 00 00 0c 00 24 00 00 01 aa 00 01 01 00 00 00 00"))  // for hci0: not ours
        kernel.deliver(bytes("0f 00 01 00 0c 00 24 00 00 01 aa 00 01 01 00 00 00 00"))  // for hci1
        kernel.deliver(bytes("""
            0a 00 01 00 25 00 01 24 00 00 01 aa 00 01 02 00 10 00 00 00 00 00 00 00 00 00 00 \
            00 11 22 33 44 55 66 77 88 99 aa bb cc dd ee ff
            """))
        let events = try agent.handlePendingEvents()
        #expect(events.count == 3)
        #expect(kernel.sent() == [bytes("1c 00 01 00 07 00 24 00 00 01 aa 00 01")])
        let stored = try store.keys(forAdapter: Self.adapterAddress)
        #expect(stored.map(\.peer) == [Self.peer])
        #expect(lines.contains { $0.contains("confirming pairing with 00:AA:01:00:00:24 (Just Works)") })
    }

    @Test func theAgentRefusesPasskeyEntry() throws {
        let kernel = FakeBluetoothKernel()
        let adapter = try BlueZAdapter("hci0", system: kernel.system)
        kernel.deliver(Self.complete(.readControllerInformation, index: 0, Self.controllerInformation(address: Self.adapterAddress, current: [.powered])))
        let agent = try PairingAgent(adapter: adapter, keyStore: nil)
        _ = kernel.sent()
        kernel.deliver(bytes("10 00 00 00 07 00 24 00 00 01 aa 00 01"))
        try agent.handlePendingEvents()
        #expect(kernel.sent() == [bytes("1f 00 00 00 07 00 24 00 00 01 aa 00 01")])
    }
}

@Suite("Pairing keys arrive after the link is up")
struct PairingKeyDrainTests {
    @Test func aLinkKeepsReadingItsAgentUntilTheNewKeyIsStored() throws {
        let directory = TemporaryDirectory()
        let kernel = FakeBluetoothKernel()
        let adapter = try BlueZAdapter("hci1", system: kernel.system)
        let management = kernel.kernelEnd
        kernel.deliver(ManagementTests.complete(.readControllerInformation, index: 1,
                                                ManagementTests.controllerInformation(address: ManagementTests.adapterAddress, current: [.powered])))
        let store = LongTermKeyStore(path: "\(directory.path)/keys")
        let agent = try PairingAgent(adapter: adapter, keyStore: store)
        // The kernel asks to confirm while connect waits; the key comes only after encryption.
        kernel.deliver(bytes("0f 00 01 00 0c 00 24 00 00 01 aa 00 01 01 00 00 00 00"), on: management)
        let link = try L2CAPATTLink.connect(to: ManagementTests.peer, from: ManagementTests.adapterAddress, agent: agent, system: kernel.system)
        #expect(agent.confirmedPairings == 1)
        #expect(agent.isAwaitingKeys)
        kernel.deliver(bytes("""
            0a 00 01 00 25 00 01 24 00 00 01 aa 00 01 02 00 10 00 00 00 00 00 00 00 00 00 00 \
            00 11 22 33 44 55 66 77 88 99 aa bb cc dd ee ff
            """), on: management)
        #expect(try link.receive(timeout: .milliseconds(10)) == nil)
        #expect(!agent.isAwaitingKeys)
        #expect(try store.keys(forAdapter: ManagementTests.adapterAddress).map(\.peer) == [ManagementTests.peer])
    }

    @Test func theDefaultKeyFileLivesBesideTheReadersKeystore() {
        #expect(LongTermKeyStore.defaultPath(environment: ["XDG_CONFIG_HOME": "/home/a/.cfg"]) == "/home/a/.cfg/bandkit/bluetooth-keys")
        #expect(LongTermKeyStore.defaultPath(environment: ["HOME": "/home/a"]) == "/home/a/.config/bandkit/bluetooth-keys")
    }
}

@Suite("BackgroundPairingAgent")
struct BackgroundPairingAgentTests {
    @Test func confirmsOnItsOwnThreadAndStopsCleanly() throws {
        let kernel = FakeBluetoothKernel()
        // Read Controller Information is answered before the agent's thread starts.
        let reply = ManagementTests.complete(.readControllerInformation, index: 0,
                                             ManagementTests.controllerInformation(address: ManagementTests.adapterAddress, current: [.powered]))
        let deliverer = DeliverOnFirstSocket(kernel: kernel, datagram: reply)
        let agent = try BackgroundPairingAgent(adapter: "hci0", keyFile: nil, log: { _ in }, system: deliverer.system)
        let management = kernel.kernelEnd
        _ = kernel.sent(on: management)  // the Read Controller Information command
        kernel.deliver(bytes("0f 00 00 00 0c 00 24 00 00 01 aa 00 01 01 00 00 00 00"), on: management)
        var answers: [[UInt8]] = []
        for _ in 0..<200 where answers.isEmpty {
            var entry = pollfd(fd: management, events: Int16(POLLIN), revents: 0)
            _ = poll(&entry, 1, 10)
            answers = kernel.sent(on: management)
        }
        #expect(answers == [bytes("1c 00 00 00 07 00 24 00 00 01 aa 00 01")])
        agent.stop()
        agent.stop()
    }
}

/// Queues `datagram` on the kernel end of the first Bluetooth socket as soon as it exists
/// (the agent's constructor reads its reply before returning).
final class DeliverOnFirstSocket: Sendable {
    let kernel: FakeBluetoothKernel
    let datagram: [UInt8]
    init(kernel: FakeBluetoothKernel, datagram: [UInt8]) {
        self.kernel = kernel
        self.datagram = datagram
    }
    var system: SystemCalls {
        var system = kernel.system
        let inner = system.socket
        system.socket = { [kernel, datagram] domain, type, proto in
            let fd = inner(domain, type, proto)
            if domain == FakeBluetoothKernel.bluetoothFamily, fd >= 0 { kernel.deliver(datagram) }
            return fd
        }
        return system
    }
}

@Suite("Advertising after a connection")
struct EnsureAdvertisingTests {
    @Test func aRegisteredInstanceIsLeftToTheKernel() throws {
        let kernel = FakeBluetoothKernel()
        let adapter = try BlueZAdapter("hci0", system: kernel.system)
        // Supported flags, max adv 31, max scan rsp 31, max instances 5, one instance: 1.
        kernel.deliver(ManagementTests.complete(.readAdvertisingFeatures, index: 0, bytes("ff ff 00 00 1f 1f 05 01 01")))
        try adapter.ensureAdvertising(Advertisement(name: "Band", serviceUUIDs: [BluetoothUUID(0x180D)]))
        #expect(kernel.sent() == [bytes("3d 00 00 00 00 00")])
    }

    @Test func aMissingInstanceIsAddedAgain() throws {
        let kernel = FakeBluetoothKernel()
        let adapter = try BlueZAdapter("hci0", system: kernel.system)
        kernel.deliver(ManagementTests.complete(.readAdvertisingFeatures, index: 0, bytes("ff ff 00 00 1f 1f 05 00")))
        kernel.deliver(ManagementTests.complete(.removeAdvertising, index: 0, status: 0x0D))
        kernel.deliver(ManagementTests.complete(.addAdvertising, index: 0, [0x01]))
        try adapter.ensureAdvertising(Advertisement(name: "Band", serviceUUIDs: [BluetoothUUID(0x180D)]))
        #expect(kernel.sent().map { $0[0] } == [0x3d, 0x3f, 0x3e])
    }

    @Test func aMalformedFeaturesReplyIsAnError() throws {
        let kernel = FakeBluetoothKernel()
        let adapter = try BlueZAdapter("hci0", system: kernel.system)
        kernel.deliver(ManagementTests.complete(.readAdvertisingFeatures, index: 0, bytes("ff ff 00 00 1f 1f 05 02 01")))
        #expect(throws: LinkError.self) { _ = try adapter.advertisingInstances() }
    }
}
