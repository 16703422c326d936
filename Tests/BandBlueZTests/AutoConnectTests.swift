@testable import BandBlueZ
import BandTestSupport
import BandWire
import Testing

/// Add Device / Remove Device / Get Connections, byte for byte, and the auto-connect list's
/// scripted exchange with the kernel: the commands it sends and the link changes it reports.
@Suite("Kernel auto-connect: Add Device, Remove Device, Get Connections")
struct AutoConnectTests {
    static let peer = ManagementTests.peer
    static let random = LEAddress(try! BluetoothAddress("C0:11:22:33:44:55"), type: .random)

    @Test func addDeviceEncodesAddressTypeAndActionAndParsesBack() throws {
        let command = AddDevice(peer: Self.peer, action: .autoConnect)
        #expect(command.parameters == bytes("24 00 00 01 aa 00 01 02"))
        #expect(try AddDevice(parsingAll: command.parameters) == command)
        let random = AddDevice(peer: Self.random, action: .report)
        #expect(random.parameters == bytes("55 44 33 22 11 c0 02 00"))
        #expect(try AddDevice(parsingAll: random.parameters) == random)
    }

    @Test func addDeviceRefusesAnUndefinedActionAndABREDRAddressAtTheirOffsets() {
        #expect(throws: ParseError(.invalidValue, at: 7, field: "Action")) { try AddDevice(parsingAll: bytes("24 00 00 01 aa 00 01 03")) }
        #expect(throws: ParseError(.invalidValue, at: 6, field: "Address_Type")) { try AddDevice(parsingAll: bytes("24 00 00 01 aa 00 00 02")) }
        #expect(throws: ParseError.self) { try AddDevice(parsingAll: bytes("24 00 00 01 aa 00 01")) }
        #expect(throws: ParseError.self) { try AddDevice(parsingAll: bytes("24 00 00 01 aa 00 01 02 00")) }
    }

    @Test func removeDeviceIsTheAddressBlock() throws {
        let command = RemoveDevice(peer: Self.random)
        #expect(command.parameters == bytes("55 44 33 22 11 c0 02"))
        #expect(try RemoveDevice(parsingAll: command.parameters) == command)
        #expect(throws: ParseError(.invalidValue, at: 6, field: "Address_Type")) { try RemoveDevice(parsingAll: bytes("55 44 33 22 11 c0 07")) }
    }

    @Test func connectionListSkipsBREDRPeersAndRefusesACountItsBytesCannotHold() throws {
        let list = try ConnectionList(parsingAll: bytes("03 00  24 00 00 01 aa 00 01  01 02 03 04 05 06 00  55 44 33 22 11 c0 02"))
        #expect(list.peers == [Self.peer, Self.random])
        var writer = [UInt8](repeating: 0, count: 16)
        writer.withUnsafeMutableBytes { raw in
            var output = ByteWriter(raw)
            list.encode(into: &output)
        }
        #expect(writer == bytes("02 00  24 00 00 01 aa 00 01  55 44 33 22 11 c0 02"))
        #expect(try ConnectionList(parsingAll: writer) == list)
        #expect(try ConnectionList(parsingAll: bytes("00 00")).peers.isEmpty)
        #expect(throws: ParseError.self) { try ConnectionList(parsingAll: bytes("ff ff 24 00 00 01 aa 00 01")) }
    }

    @Test func addingAPeerSendsAddDeviceAutoConnectThenAsksWhetherItIsConnected() throws {
        let kernel = FakeBluetoothKernel()
        let list = try AutoConnectList(adapter: "hci1", system: kernel.system)
        kernel.deliver(ManagementTests.complete(.addDevice, index: 1, bytes("24 00 00 01 aa 00 01")))
        kernel.deliver(ManagementTests.complete(.getConnections, index: 1, bytes("01 00 55 44 33 22 11 c0 02")))
        #expect(try list.add(Self.peer) == false, "another peer's link is not this one's")
        #expect(kernel.sent() == [bytes("33 00 01 00 08 00 24 00 00 01 aa 00 01 02"), bytes("15 00 01 00 00 00")])

        kernel.deliver(ManagementTests.complete(.addDevice, index: 1, bytes("55 44 33 22 11 c0 02")))
        kernel.deliver(ManagementTests.complete(.getConnections, index: 1, bytes("01 00 55 44 33 22 11 c0 02")))
        #expect(try list.add(Self.random) == true, "already connected: no Device Connected will come")
        #expect(list.peers == [Self.peer, Self.random])
        _ = kernel.sent()

        kernel.deliver(ManagementTests.complete(.removeDevice, index: 1, bytes("24 00 00 01 aa 00 01")))
        try list.remove(Self.peer)
        try list.remove(Self.peer)
        #expect(kernel.sent() == [bytes("34 00 01 00 07 00 24 00 00 01 aa 00 01")], "removed once; a peer not added is not sent")

        kernel.deliver(ManagementTests.complete(.removeDevice, index: 1, bytes("55 44 33 22 11 c0 02")))
        list.close()
        #expect(kernel.sent() == [bytes("34 00 01 00 07 00 55 44 33 22 11 c0 02")], "closing takes every peer off the kernel's list")
    }

    @Test func aRefusedAddDeviceIsAnErrorNamingTheCommandAndNothingIsKept() throws {
        let kernel = FakeBluetoothKernel()
        let list = try AutoConnectList(adapter: "hci0", system: kernel.system)
        kernel.deliver(ManagementTests.complete(.addDevice, index: 0, status: 0x0C, bytes("24 00 00 01 aa 00 01")))  // Not Supported
        #expect { try list.add(Self.peer) } throws: { "\($0)".contains("Add Device on hci0") }
        #expect(list.peers.isEmpty)
    }

    @Test func linksComingUpAndGoingDownOnItsAdapterAreReportedOthersIgnored() throws {
        let kernel = FakeBluetoothKernel()
        let list = try AutoConnectList(adapter: "hci1", system: kernel.system)
        kernel.deliver(bytes("0b 00 01 00 0d 00 24 00 00 01 aa 00 01 00 00 00 00 00 00"))  // Device Connected, hci1
        kernel.deliver(bytes("0b 00 00 00 0d 00 55 44 33 22 11 c0 02 00 00 00 00 00 00"))  // hci0: another adapter's
        kernel.deliver(bytes("0f 00 01 00 0c 00 24 00 00 01 aa 00 01 01 00 00 00 00"))  // User Confirmation Request
        kernel.deliver(bytes("0c 00 01 00 08 00 24 00 00 01 aa 00 01 08"))  // Device Disconnected, timeout
        #expect(try list.changes() == [.up(Self.peer), .down(Self.peer)])
        #expect(try list.changes().isEmpty)
    }

    /// `sockaddr_l2` of an accepted ATT channel: family, PSM 0, address, CID 4, type.
    static func accepted(_ address: String, type: UInt8) -> [UInt8] {
        bytes("1f 00 00 00 \(address) 04 00") + [type, 0]
    }

    static func isNothing(_ handover: AutoConnectList.Handover) -> Bool { if case .nothing = handover { true } else { false } }
    static func isNotListed(_ handover: AutoConnectList.Handover) -> Bool { if case .notListed = handover { true } else { false } }

    /// Gateway: "connect 24:00…, and hand me its channel" — kernel: "connected" and, on the ATT
    /// listener, the channel; another peer's channel is not the gateway's. Nothing is connected by
    /// the gateway itself: no socket here ever calls connect().
    @Test func theKernelsLinkHandsItsChannelOverOnTheListenerAndASessionTakesItOnce() throws {
        let kernel = FakeBluetoothKernel()
        let list = try AutoConnectList(adapter: "hci1", system: kernel.system)
        let management = kernel.kernelEnd
        try list.listen(on: try BluetoothAddress("00:AA:01:00:00:23"))
        let listener = kernel.kernelEnd
        #expect(list.pollDescriptors.count == 2)
        kernel.deliver(ManagementTests.complete(.addDevice, index: 1, bytes("24 00 00 01 aa 00 01")), on: management)
        kernel.deliver(ManagementTests.complete(.getConnections, index: 1, bytes("00 00")), on: management)
        #expect(try list.add(Self.peer) == false, "away: the kernel connects it when it advertises")
        #expect(Self.isNothing(list.takeLink(Self.peer)), "no channel yet, and no connect() instead")
        #expect(Self.isNotListed(list.takeLink(Self.random)))

        kernel.deliver(bytes("0b 00 01 00 0d 00 24 00 00 01 aa 00 01 00 00 00 00 00 00"), on: management)  // Device Connected
        kernel.incomingConnection(Self.accepted("24 00 00 01 aa 00", type: 1), on: listener)
        kernel.incomingConnection(Self.accepted("55 44 33 22 11 c0", type: 2), on: listener)  // not on the list
        #expect(try list.changes() == [.up(Self.peer), .handedOver(Self.peer)])
        guard case .link(let link) = list.takeLink(Self.peer) else { Issue.record("no link handed over"); return }
        #expect(link.peer == Self.peer)
        #expect(Self.isNothing(list.takeLink(Self.peer)), "taken once")
        #expect(kernel.state.withLock { $0.connectedAddresses }.isEmpty, "nothing was connect()ed")
    }

    @Test func aLinkThatGoesDownTakesItsUntakenChannelWithIt() throws {
        let kernel = FakeBluetoothKernel()
        let list = try AutoConnectList(adapter: "hci1", system: kernel.system)
        let management = kernel.kernelEnd
        try list.listen(on: try BluetoothAddress("00:AA:01:00:00:23"))
        let listener = kernel.kernelEnd
        kernel.deliver(ManagementTests.complete(.addDevice, index: 1, bytes("24 00 00 01 aa 00 01")), on: management)
        kernel.deliver(ManagementTests.complete(.getConnections, index: 1, bytes("00 00")), on: management)
        _ = try list.add(Self.peer)
        kernel.incomingConnection(Self.accepted("24 00 00 01 aa 00", type: 1), on: listener)
        #expect(try list.changes() == [.handedOver(Self.peer)])
        kernel.deliver(bytes("0c 00 01 00 08 00 24 00 00 01 aa 00 01 08"), on: management)  // Device Disconnected, timeout
        #expect(try list.changes() == [.down(Self.peer)])
        #expect(Self.isNothing(list.takeLink(Self.peer)), "a gone link's channel is not handed to a session")
    }

    /// Added while its link is up: if the channel is waiting on the listener it is handed over;
    /// if not, someone else made the link before the gateway listened, and add says so.
    @Test func aPeerAlreadyConnectedIsHandedOverOrReportedHeldElsewhere() throws {
        let kernel = FakeBluetoothKernel()
        let list = try AutoConnectList(adapter: "hci1", system: kernel.system)
        let management = kernel.kernelEnd
        try list.listen(on: try BluetoothAddress("00:AA:01:00:00:23"))
        let listener = kernel.kernelEnd
        kernel.deliver(ManagementTests.complete(.addDevice, index: 1, bytes("24 00 00 01 aa 00 01")), on: management)
        kernel.deliver(ManagementTests.complete(.getConnections, index: 1, bytes("01 00 24 00 00 01 aa 00 01")), on: management)
        kernel.incomingConnection(Self.accepted("24 00 00 01 aa 00", type: 1), on: listener)
        #expect(try list.add(Self.peer) == false, "its channel was waiting: handed over")
        #expect(list.hasQueuedChanges)
        #expect(try list.changes() == [.handedOver(Self.peer)])

        kernel.deliver(ManagementTests.complete(.addDevice, index: 1, bytes("55 44 33 22 11 c0 02")), on: management)
        kernel.deliver(ManagementTests.complete(.getConnections, index: 1, bytes("01 00 55 44 33 22 11 c0 02")), on: management)
        #expect(try list.add(Self.random) == true, "up, and no channel of it: held elsewhere")
    }
}
