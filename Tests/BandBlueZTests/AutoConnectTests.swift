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
}
