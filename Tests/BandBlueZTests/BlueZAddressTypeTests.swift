@testable import BandBlueZ
import BandWire
import Testing

@Suite("BlueZ address types")
struct BlueZAddressTypeTests {
    @Test func socketAndManagementNumberingIsConvertedExplicitly() {
        #expect(LEAddressType.public.bluezAddressType == 1)          // BDADDR_LE_PUBLIC
        #expect(LEAddressType.random.bluezAddressType == 2)          // BDADDR_LE_RANDOM
        #expect(LEAddressType.publicIdentity.bluezAddressType == 1)  // the kernel names peers by identity
        #expect(LEAddressType.randomIdentity.bluezAddressType == 2)
        #expect(LEAddressType.fromBlueZ(1) == .public)
        #expect(LEAddressType.fromBlueZ(2) == .random)
        #expect(LEAddressType.fromBlueZ(0) == nil)                   // BDADDR_BREDR is no LE address
        #expect(LEAddressType.fromBlueZ(3) == nil)
    }

    @Test func adapterNamesGiveTheirIndex() throws {
        #expect(try AdapterName.index(of: "hci0") == 0)
        #expect(try AdapterName.index(of: "hci12") == 12)
        #expect(try AdapterName.index(of: "3") == 3)
        #expect(throws: AddressSyntaxError.self) { try AdapterName.index(of: "hci") }
        #expect(throws: AddressSyntaxError.self) { try AdapterName.index(of: "wlan0") }
    }
}
