import BandBlueZ
import BandLink
import BandTestSupport
import BandWire
import Glibc
import Testing

@Suite("LEScanner")
struct LEScannerTests {
    static func commandComplete(_ opcode: UInt16, status: UInt8) -> [UInt8] {
        [0x04, 0x0E, 0x04, 0x01, UInt8(opcode & 0xFF), UInt8(opcode >> 8), status]
    }

    static let scanResponse = bytes("04 3e 1c 02 01 04 00 24 00 00 01 aa 00 10 0f 09 42 61 6e 64 4b 69 74 20 42 61 6e 64 20 31 c0")

    @Test func theSocketIsARawHCISocketOnTheAdapterFilteringScanEvents() throws {
        let kernel = FakeBluetoothKernel()
        _ = try LEScanner(adapter: "hci1", system: kernel.system)
        #expect(kernel.state.withLock { $0.boundAddresses } == [bytes("1f 00 01 00 00 00")])
        let filter = try #require(kernel.state.withLock { $0.setOptions.first })
        #expect(filter.level == 0 && filter.name == 2)  // SOL_HCI, HCI_FILTER
        // type mask: events; event mask: Command Complete (0x0e), Command Status (0x0f), LE Meta (0x3e).
        #expect(Array(filter.value[0..<12]) == bytes("10 00 00 00 00 c0 00 00 00 00 00 40"))
    }

    @Test func legacyScanStartsWithDisableParametersEnableAndYieldsReports() throws {
        let kernel = FakeBluetoothKernel()
        let scanner = try LEScanner(adapter: "hci1", system: kernel.system)
        kernel.deliver(Self.commandComplete(0x200C, status: 0x0C))  // disable while idle: Command Disallowed, ignored
        kernel.deliver(Self.commandComplete(0x200B, status: 0x00))
        kernel.deliver(HCIEventTests.legacyReport)                  // a report racing the last command
        kernel.deliver(Self.commandComplete(0x200C, status: 0x00))
        kernel.deliver(Self.scanResponse)
        try scanner.start()
        #expect(!scanner.usesExtendedCommands)
        #expect(kernel.sent() == [
            bytes("01 0c 20 02 00 00"),
            bytes("01 0b 20 07 01 10 00 10 00 00 00"),
            bytes("01 0c 20 02 01 00"),
        ])
        let first = try #require(try scanner.nextReport(timeout: .seconds(1)))
        #expect(first.data.localName == "Band")
        let second = try #require(try scanner.nextReport(timeout: .seconds(1)))
        #expect(second.isScanResponse)
        #expect(try scanner.nextReport(timeout: .milliseconds(10)) == nil)
        kernel.deliver(Self.commandComplete(0x200C, status: 0x00))
        scanner.stop()
        #expect(kernel.sent() == [bytes("01 0c 20 02 00 00")])
    }

    @Test func aControllerRefusingLegacyCommandsIsDrivenWithExtendedOnes() throws {
        let kernel = FakeBluetoothKernel()
        let scanner = try LEScanner(adapter: "hci0", system: kernel.system)
        kernel.deliver(Self.commandComplete(0x200C, status: 0x0C))
        kernel.deliver(Self.commandComplete(0x200B, status: 0x0C))
        kernel.deliver(Self.commandComplete(0x2042, status: 0x00))
        kernel.deliver(Self.commandComplete(0x2041, status: 0x00))
        kernel.deliver(Self.commandComplete(0x2042, status: 0x00))
        kernel.deliver(HCIEventTests.extendedReport)
        try scanner.start()
        #expect(scanner.usesExtendedCommands)
        #expect(kernel.sent().map { Array($0[0..<3]) } == [bytes("01 0c 20"), bytes("01 0b 20"), bytes("01 42 20"), bytes("01 41 20"), bytes("01 42 20")])
        #expect(try scanner.nextReport(timeout: .seconds(1))?.data.localName == "Band")
    }

    @Test func aFailedEnableIsAnErrorNamingTheCommandAndStatus() throws {
        let kernel = FakeBluetoothKernel()
        let scanner = try LEScanner(adapter: "hci0", system: kernel.system)
        kernel.deliver(Self.commandComplete(0x200C, status: 0x00))
        kernel.deliver(Self.commandComplete(0x200B, status: 0x00))
        kernel.deliver(Self.commandComplete(0x200C, status: 0x12))
        #expect(throws: LinkError.system(call: "LE Set Scan Enable on hci0: Invalid HCI Command Parameters (0x12)", errno: EIO)) {
            try scanner.start()
        }
    }

    @Test func aSilentControllerTimesOut() throws {
        let kernel = FakeBluetoothKernel()
        let scanner = try LEScanner(adapter: "hci0", system: kernel.system)
        let hci = try HCIRawSocket(deviceIndex: 0, system: kernel.system)
        #expect(throws: LinkError.system(call: "LE Set Scan Parameters on hci0 (no reply)", errno: ETIMEDOUT)) {
            _ = try hci.run(.leSetScanParameters(active: true, interval: 16, window: 16), timeout: .milliseconds(20))
        }
        _ = scanner
    }

    @Test func discoveryMergesAdvertisementAndScanResponseAndStopsAtAMatch() throws {
        let kernel = FakeBluetoothKernel()
        let scanner = try LEScanner(adapter: "hci1", system: kernel.system)
        kernel.deliver(Self.commandComplete(0x200C, status: 0x00))
        kernel.deliver(Self.commandComplete(0x200B, status: 0x00))
        kernel.deliver(Self.commandComplete(0x200C, status: 0x00))
        kernel.deliver(HCIEventTests.legacyReport)
        kernel.deliver(Self.scanResponse)
        kernel.deliver(Self.commandComplete(0x200C, status: 0x00))  // the disable when discovery ends
        let devices = try Discovery.scan(scanner, for: .seconds(2)) { $0.name == "BandKit Band 1" }
        let device = try #require(devices.first)
        #expect(devices.count == 1)
        #expect(device.name == "BandKit Band 1")
        #expect(device.rssi == -64)
        #expect(device.isConnectable)
        #expect(device.advertises(BluetoothUUID(0x180D)))
        #expect(device.reportCount == 2)
        #expect(!scanner.isScanning)
    }

    @Test func anUnknownAdapterNameIsRefused() {
        #expect(throws: LinkError.self) { _ = try LEScanner(adapter: "eth0", system: FakeBluetoothKernel().system) }
    }
}
