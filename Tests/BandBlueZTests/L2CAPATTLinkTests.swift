import BandBlueZ
import BandLink
import BandTestSupport
import BandWire
import Glibc
import Testing

@Suite("L2CAPATTLink")
struct L2CAPATTLinkTests {
    static let adapter = try! BluetoothAddress("00:AA:01:01:00:23")
    static let band = LEAddress(try! BluetoothAddress("00:AA:01:00:00:24"), type: .public)
    static let solBluetooth: Int32 = 274
    static let btSecurity: Int32 = 4

    @Test func connectBindsTheAdapterAndConnectsToCID4OfThePeer() throws {
        let kernel = FakeBluetoothKernel()
        let link = try L2CAPATTLink.connect(to: Self.band, from: Self.adapter, system: kernel.system)
        let call = try #require(kernel.state.withLock { $0.socketCalls.first })
        #expect(call.type & 0xF == Int32(SOCK_SEQPACKET.rawValue))
        #expect(call.type & Int32(SOCK_NONBLOCK.rawValue) != 0, "the connect is waited for in poll, never blocking")
        #expect(call.proto == 0)  // BTPROTO_L2CAP
        // sockaddr_l2: family 31, PSM 0, address (LE), CID 4, type LE public, padding.
        #expect(kernel.state.withLock { $0.boundAddresses } == [bytes("1f 00 00 00 23 00 01 01 aa 00 04 00 01 00")])
        #expect(kernel.state.withLock { $0.connectedAddresses } == [bytes("1f 00 00 00 24 00 00 01 aa 00 04 00 01 00")])
        #expect(kernel.state.withLock { $0.setOptions }.isEmpty, "security low sets no BT_SECURITY")
        #expect(link.peer == Self.band)
        #expect(link.mtu == 23)
    }

    @Test func aRandomAddressIsConnectedWithItsType() throws {
        let kernel = FakeBluetoothKernel()
        let peer = LEAddress(try BluetoothAddress("C0:11:22:33:44:55"), type: .random)
        _ = try L2CAPATTLink.connect(to: peer, from: Self.adapter, system: kernel.system)
        #expect(kernel.state.withLock { $0.connectedAddresses } == [bytes("1f 00 00 00 55 44 33 22 11 c0 04 00 02 00")])
    }

    @Test func mediumSecurityIsRequestedBeforeConnectingAndCheckedAfter() throws {
        let kernel = FakeBluetoothKernel()
        kernel.setOption(level: Self.solBluetooth, name: Self.btSecurity, to: [2, 16])
        let link = try L2CAPATTLink.connect(to: Self.band, from: Self.adapter, security: .medium, system: kernel.system)
        let options = kernel.state.withLock { $0.setOptions }
        #expect(options.count == 1)
        #expect(options.first?.level == Self.solBluetooth)
        #expect(options.first?.name == Self.btSecurity)
        #expect(options.first?.value == [2, 0])
        #expect(try link.securityLevel() == .medium)
    }

    @Test func aLinkThatStaysUnencryptedIsASecurityFailure() throws {
        let kernel = FakeBluetoothKernel()
        kernel.setOption(level: Self.solBluetooth, name: Self.btSecurity, to: [1, 0])
        #expect(throws: LinkError.securityFailed("link to 00:AA:01:00:00:24 is at security low, medium was required (pairing refused?)")) {
            _ = try L2CAPATTLink.connect(to: Self.band, from: Self.adapter, security: .medium, system: kernel.system)
        }
    }

    @Test func securityTheKernelSkippedAtConnectIsRequestedAgainOnTheConnectedSocket() throws {
        // Linux may start the ATT channel before the SMP channel exists ("security requested but
        // not available") and connect unencrypted; asking again after connect pairs for real.
        let kernel = FakeBluetoothKernel()
        kernel.setOption(level: Self.solBluetooth, name: Self.btSecurity, to: [1, 0])
        kernel.state.withLock { $0.raiseOnConnectedSocketSucceeds = true }
        let link = try L2CAPATTLink.connect(to: Self.band, from: Self.adapter, security: .medium, system: kernel.system)
        #expect(kernel.state.withLock { $0.setOptions.map(\.value) } == [[2, 0], [2, 0]])
        #expect(try link.securityLevel() == .medium)
    }

    @Test func unconfirmedPairingSurfacesAsSecurityFailedNotAPermissionError() throws {
        let kernel = FakeBluetoothKernel()
        kernel.state.withLock { $0.socketError = EACCES }
        #expect(throws: LinkError.securityFailed("connect 00:AA:01:00:00:24: pairing failed or was not confirmed (EACCES)")) {
            _ = try L2CAPATTLink.connect(to: Self.band, from: Self.adapter, security: .medium, system: kernel.system)
        }
    }

    @Test func aPeerThatNeverAnswersTimesOut() throws {
        let kernel = FakeBluetoothKernel()
        kernel.state.withLock { $0.pollTimesOut = true }
        #expect(throws: LinkError.system(call: "connect 00:AA:01:00:00:24 (no answer within 0.05 seconds)", errno: ETIMEDOUT)) {
            _ = try L2CAPATTLink.connect(to: Self.band, from: Self.adapter, timeout: .milliseconds(50), system: kernel.system)
        }
    }

    @Test func aTimedOutConnectTearsDownTheHalfOpenLinkThroughTheAgentsAdapter() throws {
        let kernel = FakeBluetoothKernel()
        let adapter = try BlueZAdapter("hci1", system: kernel.system)
        let management = kernel.kernelEnd
        kernel.deliver(ManagementTests.complete(.readControllerInformation, index: 1,
                                                ManagementTests.controllerInformation(address: Self.adapter, current: [.powered])), on: management)
        let agent = try PairingAgent(adapter: adapter, keyStore: nil)
        _ = kernel.sent(on: management)
        kernel.state.withLock { $0.pollTimesOut = true }
        kernel.deliver(ManagementTests.complete(.disconnect, index: 1, bytes("24 00 00 01 aa 00 01")), on: management)
        #expect(throws: LinkError.self) {
            _ = try L2CAPATTLink.connect(to: Self.band, from: Self.adapter, timeout: .milliseconds(30), agent: agent, system: kernel.system)
        }
        #expect(kernel.sent(on: management) == [bytes("14 00 01 00 07 00 24 00 00 01 aa 00 01")])
    }

    @Test func aRefusedConnectionNamesThePeer() throws {
        let kernel = FakeBluetoothKernel()
        kernel.state.withLock { $0.connectResult = .hostUnreachable }
        #expect(throws: LinkError.system(call: "connect 00:AA:01:00:00:24", errno: EHOSTUNREACH)) {
            _ = try L2CAPATTLink.connect(to: Self.band, from: Self.adapter, system: kernel.system)
        }
    }

    @Test func aKernelWithoutBluetoothIsSaidPlainly() throws {
        let kernel = FakeBluetoothKernel()
        kernel.state.withLock { $0.socketFailure = .addressFamilyNotSupported }
        #expect(throws: LinkError.system(call: "socket(AF_BLUETOOTH) (this kernel has no Bluetooth support)", errno: EAFNOSUPPORT)) {
            _ = try L2CAPATTLink.connect(to: Self.band, from: Self.adapter, system: kernel.system)
        }
    }

    @Test func pdusCrossTheLinkOnePerDatagram() throws {
        let kernel = FakeBluetoothKernel()
        let link = try L2CAPATTLink.connect(to: Self.band, from: Self.adapter, system: kernel.system)
        try link.send(bytes("02 f7 00"))
        #expect(kernel.sent() == [bytes("02 f7 00")])
        kernel.deliver(bytes("03 f7 00"))
        #expect(try link.receive(timeout: .seconds(1)) == bytes("03 f7 00"))
        #expect(throws: LinkError.pduTooLarge(size: 24, limit: 23)) { try link.send([UInt8](repeating: 0, count: 24)) }
    }

    @Test func linkLossIsClosedAndKeepsTheReason() throws {
        let kernel = FakeBluetoothKernel()
        let link = try L2CAPATTLink.connect(to: Self.band, from: Self.adapter, system: kernel.system)
        kernel.deliver(bytes("1b 29 00 48"))
        kernel.state.withLock { $0.receiveFailures = [.timedOut] }  // supervision timeout
        #expect(throws: LinkError.closed) { _ = try link.receive(timeout: .seconds(1)) }
        #expect(link.closeReason == .timedOut)
    }

    @Test func aLinkLostWhileSendingStillEndsTheReceive() throws {
        // The central disconnects while the band sends notifications: the send takes the
        // socket's one error, and the socket then says POLLHUP to poll and EAGAIN to recv.
        let kernel = FakeBluetoothKernel()
        let link = try L2CAPATTLink.connect(to: Self.band, from: Self.adapter, system: kernel.system)
        kernel.tearDownLink(.connectionReset)
        #expect(throws: LinkError.closed) { try link.send(bytes("1b 29 00 48")) }
        #expect(throws: LinkError.closed) { try link.send(bytes("1b 29 00 49")) }
        #expect(throws: LinkError.closed) { _ = try link.receive(timeout: .zero) }
        #expect(kernel.state.withLock { $0.wouldBlockAnswers } == 1, "one EAGAIN under POLLHUP is the end, not a retry")
        #expect(link.closeReason == .connectionReset)
    }

    @Test func channelMTUComesFromL2CAPOptions() throws {
        let kernel = FakeBluetoothKernel()
        // struct l2cap_options: omtu, imtu, flush_to (u16 each), mode, fcs, max_tx (u8), txwin_size (u16).
        kernel.setOption(level: 6, name: 1, to: bytes("f7 00 00 02 ff ff 00 00 00 00 00 00"))
        let link = try L2CAPATTLink.connect(to: Self.band, from: Self.adapter, system: kernel.system)
        let mtu = try link.channelMTU()
        #expect(mtu.incoming == 512)
        #expect(mtu.outgoing == 247)
    }

    @Test func theListenerBindsTheAdapterAndHandsOutLinksWithThePeerAddress() throws {
        let kernel = FakeBluetoothKernel()
        let listener = try L2CAPATTListener(adapter: Self.band.address, system: kernel.system)
        let listenerEnd = kernel.kernelEnd
        #expect(kernel.state.withLock { $0.boundAddresses } == [bytes("1f 00 00 00 24 00 00 01 aa 00 04 00 01 00")])
        #expect(try listener.accept(timeout: .milliseconds(10)) == nil)
        kernel.incomingConnection(bytes("1f 00 00 00 23 00 01 01 aa 00 04 00 01 00"), on: listenerEnd)
        let link = try #require(try listener.accept(timeout: .seconds(1)))
        #expect(link.peer == LEAddress(Self.adapter, type: .public))
        kernel.deliver(bytes("02 17 00"))
        #expect(try link.receive(timeout: .seconds(1)) == bytes("02 17 00"))
        listener.close()
        #expect(throws: LinkError.closed) { _ = try listener.accept(timeout: .zero) }
    }
}
