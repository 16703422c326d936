import BandBlueZ
import BandLEHost
import BandProtocol
import BandTestSupport
import BandWire
import Testing

/// What the band advertises through its own host is what `bandsim serve --hci` asks BlueZ to
/// advertise, byte for byte; and the 31-byte limit is met without cutting a structure.
@Suite struct AdvertisingPayloadTests {
    @Test func bandAdvertisesWhatBandsimAdvertisesThroughBlueZ() {
        let services = [BluetoothUUID(0x180D), BandActivityService.service]
        let name = "BandKit"
        let configuration = Array(name.utf8).withUnsafeBytes { LEHostConfiguration.band(name: $0, services: services) }
        let bluez = Advertisement(name: name, serviceUUIDs: services)
        #expect(configuration.advertisingData.bytes.array == encoded(bluez.advertisingData))
        #expect(configuration.scanResponse.bytes.array == encoded(bluez.scanResponse))
        #expect(configuration.advertisingData.bytes.count == 3 + 4 + 18)
    }

    @Test func aNameTooLongIsShortenedAtACharacterBoundary() {
        // 27 bytes of room after the header: "Bänd" repeated puts a two-byte ä across the cut.
        let name = Array(String(repeating: "Bänd ", count: 7).utf8)
        var payload = AdvertisingPayload()
        let flagsFit = payload.appendFlags()
        #expect(flagsFit)
        #expect(name.withUnsafeBytes { payload.appendLocalName($0) })
        let bytes = payload.bytes.array
        #expect(bytes[4] == AdvertisingPayload.ADType.shortenedLocalName)
        #expect(bytes.count <= 31)
        #expect(String(validating: bytes[5...], as: UTF8.self) != nil)
        #expect(Int(bytes[3]) == bytes.count - 4)
    }

    @Test func structuresThatDoNotFitAreRefusedWhole() {
        var payload = AdvertisingPayload()
        let data = [UInt8](repeating: 7, count: 25)
        #expect(data.withUnsafeBytes { payload.appendManufacturerData(company: 0xFFFF, $0) })
        #expect(payload.bytes.count == 29)
        let uuidsFit = payload.appendServiceUUIDs16([BluetoothUUID(0x180D)])
        #expect(!uuidsFit)
        #expect(payload.bytes.count == 29)
        #expect(payload.bytes.array.prefix(4) == [28, 0xFF, 0xFF, 0xFF])
    }
}
