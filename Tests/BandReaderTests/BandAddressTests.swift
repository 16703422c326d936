import BandReader
import BandWire
import Testing

@Suite struct BandAddressTests {
    @Test func bluetoothAddressIsPublicOnHci0ByDefault() throws {
        let address = try BandAddress(parsing: "aa:bb:cc:dd:ee:0f")
        guard case .bluetooth(let device, let adapter) = address else { Issue.record("\(address)"); return }
        #expect(device.address.description == "AA:BB:CC:DD:EE:0F")
        #expect(device.type == .public)
        #expect(adapter == "hci0")
        #expect(address.keystoreKey == "AA:BB:CC:DD:EE:0F")
    }

    @Test func randomAddressAndAdapterAreHonoured() throws {
        let address = try BandAddress(parsing: "C0:11:22:33:44:55", random: true, adapter: "hci1")
        #expect(address == .bluetooth(LEAddress(BluetoothAddress(0xC0_11_22_33_44_55), type: .random), adapter: "hci1"))
        #expect(address.description == "C0:11:22:33:44:55 (random, hci1)")
        #expect(address.keystoreKey == "C0:11:22:33:44:55")
    }

    @Test func simulatorAddressCarriesItsSocketPath() throws {
        #expect(try BandAddress(parsing: "sim:/tmp/band.sock") == .simulator(path: "/tmp/band.sock"))
        #expect(try BandAddress(parsing: "sim:/tmp/band.sock").keystoreKey == "sim:/tmp/band.sock")
    }

    @Test func malformedAddressesAreRefusedWithAReason() {
        for text in ["", "AA:BB:CC:DD:EE", "AA:BB:CC:DD:EE:FF:00", "AA-BB-CC-DD-EE-FF", "GG:BB:CC:DD:EE:FF", "A:BB:CC:DD:EE:FFF", "sim:"] {
            #expect(throws: BandAddressError.self, "\(text)") { try BandAddress(parsing: text) }
        }
        #expect(throws: BandAddressError.self) { try BandAddress(parsing: "AA:BB:CC:DD:EE:FF", adapter: "eth0") }
        #expect(throws: BandAddressError.self) { try BandAddress(parsing: "sim:/x", random: true) }
    }
}
