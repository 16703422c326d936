import BandBlueZ
import BandTestSupport
import BandWire
import Testing

@Suite("BluetoothAddress")
struct BluetoothAddressTests {
    @Test func textIsMostSignificantFirstAndTheWireIsLeastSignificantFirst() throws {
        let address = try BluetoothAddress("00:aa:01:00:00:24")
        #expect(address.description == "00:AA:01:00:00:24")
        #expect(try parse(bytes("24 00 00 01 aa 00"), BluetoothAddress.init(parsing:)) == address)
        var out = [UInt8](repeating: 0, count: 6)
        out.withUnsafeMutableBytes { raw in
            var writer = ByteWriter(raw)
            address.encode(into: &writer)
        }
        #expect(out == bytes("24 00 00 01 aa 00"))
    }

    @Test func malformedAddressesAreRefusedSayingWhy() {
        #expect(throws: AddressSyntaxError(text: "00:AA:01:00:00", reason: "expected six hex bytes separated by ':'")) {
            try BluetoothAddress("00:AA:01:00:00")
        }
        #expect(throws: AddressSyntaxError(text: "00:AA:01:00:0G:24", reason: "byte 5 ('0G') is not two hex digits")) {
            try BluetoothAddress("00:AA:01:00:0G:24")
        }
        #expect(throws: AddressSyntaxError.self) { try BluetoothAddress("000:A:01:00:00:24") }
        #expect(throws: AddressSyntaxError.self) { try BluetoothAddress("") }
    }

    @Test func leAddressesCarryTheirTypeInText() throws {
        let random = try LEAddress("C0:11:22:33:44:55/random")
        #expect(random.type == .leRandom)
        #expect(random.address.randomAddressKind == .staticRandom)
        #expect(random.description == "C0:11:22:33:44:55/random")
        let plain = try LEAddress("00:AA:01:00:00:24")
        #expect(plain.type == .lePublic)
        #expect(plain.description == "00:AA:01:00:00:24")
        #expect(throws: AddressSyntaxError.self) { try LEAddress("00:AA:01:00:00:24/sideways") }
    }

    @Test func hciAddressTypesMapOntoSocketAddressTypes() {
        #expect(AddressType(hciLEAddressType: 0) == .lePublic)
        #expect(AddressType(hciLEAddressType: 1) == .leRandom)
        #expect(AddressType(hciLEAddressType: 2) == .lePublic)   // public identity (resolved)
        #expect(AddressType(hciLEAddressType: 3) == .leRandom)   // random static identity
        #expect(AddressType.leRandom.hciLEAddressType == 1)
        #expect(AddressType(rawValue: 9).description == "type-9")
    }

    @Test func adapterNamesGiveTheirIndex() throws {
        #expect(try AdapterName.index(of: "hci0") == 0)
        #expect(try AdapterName.index(of: "hci12") == 12)
        #expect(try AdapterName.index(of: "3") == 3)
        #expect(throws: AddressSyntaxError.self) { try AdapterName.index(of: "hci") }
        #expect(throws: AddressSyntaxError.self) { try AdapterName.index(of: "wlan0") }
    }
}
