import BandTestSupport
import BandWire
import Testing

@Suite("BluetoothAddress")
struct BluetoothAddressTests {
    @Test func textIsMostSignificantFirstAndTheWireIsLeastSignificantFirst() throws {
        let address = try BluetoothAddress("00:aa:01:00:00:24")
        #expect(address.description == "00:AA:01:00:00:24")
        #expect(address.value == 0x00AA_0100_0024)
        #expect(address.wireOrder == bytes("24 00 00 01 aa 00"))
        #expect(try parse(bytes("24 00 00 01 aa 00"), BluetoothAddress.init(parsing:)) == address)
        #expect(encoded(address) == bytes("24 00 00 01 aa 00"))
        #expect(BluetoothAddress(wireOrder: bytes("24 00 00 01 aa 00")) == address)
    }

    @Test func everyByteRoundTripsThroughTextAndWire() throws {
        for byte in [UInt8(0x00), 0x0F, 0x10, 0x9A, 0xF0, 0xFF] {
            for position in 0..<6 {
                let address = BluetoothAddress(UInt64(byte) << (8 * UInt64(position)))
                #expect(try BluetoothAddress(address.description) == address)
                #expect(try parse(encoded(address), BluetoothAddress.init(parsing:)) == address)
            }
        }
        #expect(BluetoothAddress.any.description == "00:00:00:00:00:00")
    }

    @Test func aTruncatedAddressIsAnErrorAtItsOffset() {
        #expect(throws: ParseError(.truncated, at: 0, field: "BD_ADDR")) {
            try parse(bytes("24 00 00 01 aa"), BluetoothAddress.init(parsing:))
        }
    }

    @Test func malformedAddressesAreRefusedSayingWhatAndWhere() {
        #expect(throws: AddressSyntaxError(text: "00:AA:01:00:00", reason: "expected six hex bytes separated by ':', found 5 groups")) {
            try BluetoothAddress("00:AA:01:00:00")
        }
        #expect(throws: AddressSyntaxError(text: "00:AA:01:00:0G:24", reason: "byte 5 ('0G', at character 13) is not two hex digits")) {
            try BluetoothAddress("00:AA:01:00:0G:24")
        }
        for text in ["", "000:A:01:00:00:24", "00-AA-01-00-00-24", "00:AA:01:00:00:24:", "+1:AA:01:00:00:24", "00:AA:01:00:00:２４"] {
            #expect(throws: AddressSyntaxError.self, "\(text)") { try BluetoothAddress(text) }
        }
    }

    @Test func randomAddressSubtypesComeFromTheTopTwoBits() throws {
        #expect(try BluetoothAddress("C0:11:22:33:44:55").randomAddressKind == .staticRandom)
        #expect(try BluetoothAddress("7F:11:22:33:44:55").randomAddressKind == .resolvablePrivate)
        #expect(try BluetoothAddress("3F:11:22:33:44:55").randomAddressKind == .nonResolvablePrivate)
        #expect(try BluetoothAddress("80:11:22:33:44:55").randomAddressKind == .reserved)
    }
}

@Suite("LEAddress")
struct LEAddressTests {
    @Test func leAddressesCarryTheirTypeInText() throws {
        let random = try LEAddress("C0:11:22:33:44:55/random")
        #expect(random.type == .random)
        #expect(random.description == "C0:11:22:33:44:55/random")
        let plain = try LEAddress("00:AA:01:00:00:24")
        #expect(plain.type == .public)
        #expect(plain.description == "00:AA:01:00:00:24")
        #expect(try LEAddress("00:AA:01:00:00:24/random-identity").type == .randomIdentity)
        #expect(throws: AddressSyntaxError.self) { try LEAddress("00:AA:01:00:00:24/sideways") }
        #expect(throws: AddressSyntaxError.self) { try LEAddress("/random") }
    }

    @Test func addressTypesUseHCINumberingAndKeepUnknownValues() throws {
        #expect([LEAddressType.public, .random, .publicIdentity, .randomIdentity].map(\.rawValue) == [0, 1, 2, 3])
        #expect([LEAddressType.public, .random, .publicIdentity, .randomIdentity].map(\.isRandom) == [false, true, false, true])
        for raw in UInt8(0)...9 {
            let type = LEAddressType(rawValue: raw)
            #expect(try LEAddressType(type.description) == type)
        }
        #expect(LEAddressType(rawValue: 9).description == "type-9")
        #expect(throws: AddressSyntaxError.self) { try LEAddressType("type-x") }
    }
}
