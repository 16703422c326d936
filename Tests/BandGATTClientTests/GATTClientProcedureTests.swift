import BandATT
import BandGATT
import BandGATTClient
import BandLink
import BandTestSupport
import BandWire
import Testing

/// Discovery, long reads and subscriptions, as PDU conversations with a small heart-rate server:
///
/// | handles | attribute |
/// |---|---|
/// | 0x0001–0x0005 | Generic Access 0x1800 |
/// | 0x0006 | Heart Rate service 0x180D |
/// | 0x0007/0x0008 | Heart Rate Measurement 0x2A37 (notify), value at 0x0008 |
/// | 0x0009 | its CCCD |
/// | 0x000A/0x000B | Body Sensor Location 0x2A38 (read) |
/// | 0x000C–0xFFFF | a 128-bit vendor service |
@Suite struct GATTClientProcedureTests {
    static let vendorServiceLE = "d0 42 19 3a 3b 43 23 8e fe 48 fc 78 00 00 03 00"

    @Test func primaryServiceDiscoveryContinuesAfterTheLastGroupUntilTheGroupEndingAtFFFF() throws {
        let peer = try ScriptedATTPeer([
            .expect("10 01 00 ff ff 00 28"),
            .send("11 06 01 00 05 00 00 18 06 00 0b 00 0d 18"),
            .expect("10 0c 00 ff ff 00 28"),
            .send("11 14 0c 00 ff ff " + Self.vendorServiceLE),
        ])
        let client = GATTClient(bearer: peer.client)
        let services = try client.discoverPrimaryServices()
        #expect(services.map(\.uuid) == [BluetoothUUID(0x1800), BluetoothUUID(0x180D),
                                         BluetoothUUID(string: "00030000-78fc-48fe-8e23-433b3a1942d0")!])
        #expect(services.map(\.endHandle) == [0x0005, 0x000B, 0xFFFF])
        #expect(peer.finish() == [])
    }

    @Test func primaryServiceDiscoveryEndsOnAttributeNotFound() throws {
        let peer = try ScriptedATTPeer([
            .expect("10 01 00 ff ff 00 28"),
            .send("11 06 01 00 05 00 00 18"),
            .expect("10 06 00 ff ff 00 28"),
            .send("01 10 06 00 0a"),
        ])
        let client = GATTClient(bearer: peer.client)
        #expect(try client.discoverPrimaryServices().count == 1)
        #expect(peer.finish() == [])
    }

    @Test func discoveryThatDoesNotAdvanceIsRefusedRatherThanLoopingForever() throws {
        let peer = try ScriptedATTPeer([
            .expect("08 06 00 0b 00 03 28"),
            .send("09 07 05 00 10 08 00 37 2a"),   // a declaration before the service start
            .expectClose(within: .seconds(2)),
        ])
        let client = GATTClient(bearer: peer.client)
        let service = GATTService(uuid: BluetoothUUID(0x180D), handle: 0x0006, endHandle: 0x000B)
        #expect(throws: GATTError.self) { try client.discoverCharacteristics(of: service) }
        #expect(!client.isUsable)
        #expect(peer.finish() == [])
    }

    @Test func characteristicDiscoveryReadsDeclarationsAndComputesEachEndHandle() throws {
        let peer = try ScriptedATTPeer([
            .expect("08 06 00 0b 00 03 28"),
            .send("09 07 07 00 10 08 00 37 2a 0a 00 02 0b 00 38 2a"),
            .expect("08 0b 00 0b 00 03 28"),
            .send("01 08 0b 00 0a"),
        ])
        let client = GATTClient(bearer: peer.client)
        let service = GATTService(uuid: BluetoothUUID(0x180D), handle: 0x0006, endHandle: 0x000B)
        let characteristics = try client.discoverCharacteristics(of: service)
        #expect(characteristics.map(\.uuid) == [BluetoothUUID(0x2A37), BluetoothUUID(0x2A38)])
        #expect(characteristics.map(\.valueHandle) == [0x0008, 0x000B])
        #expect(characteristics.map(\.endHandle) == [0x0009, 0x000B])
        #expect(characteristics[0].properties == .notify)
        #expect(characteristics[1].properties == .read)
        #expect(peer.finish() == [])
    }

    @Test func characteristicWith128BitUUIDIsDiscovered() throws {
        let peer = try ScriptedATTPeer([
            .expect("08 0c 00 ff ff 03 28"),
            .send("09 15 0d 00 12 0e 00 d0 42 19 3a 3b 43 23 8e fe 48 fc 78 01 00 03 00"),
            .expect("08 0e 00 ff ff 03 28"),
            .send("01 08 0e 00 0a"),
        ])
        let client = GATTClient(bearer: peer.client)
        let service = GATTService(uuid: BluetoothUUID(string: "00030000-78fc-48fe-8e23-433b3a1942d0")!, handle: 0x000C, endHandle: 0xFFFF)
        let characteristics = try client.discoverCharacteristics(of: service)
        #expect(characteristics.count == 1)
        #expect(characteristics.first?.uuid == BluetoothUUID(string: "00030001-78fc-48fe-8e23-433b3a1942d0"))
        #expect(characteristics.first?.valueHandle == 0x000E)
        #expect(characteristics.first?.properties == [.read, .notify])
        #expect(characteristics.first?.endHandle == 0xFFFF)
        #expect(peer.finish() == [])
    }

    @Test func descriptorDiscoveryCoversTheHandlesAfterTheValue() throws {
        let peer = try ScriptedATTPeer([.expect("04 09 00 09 00"), .send("05 01 09 00 02 29")])
        let client = GATTClient(bearer: peer.client)
        let measurement = GATTCharacteristic(uuid: BluetoothUUID(0x2A37), declarationHandle: 7, valueHandle: 8,
                                             properties: .notify, endHandle: 9)
        #expect(try client.discoverDescriptors(of: measurement) == [GATTDescriptor(uuid: BluetoothUUID(0x2902), handle: 9)])
        #expect(peer.finish() == [])
    }

    @Test func characteristicWhoseValueIsItsLastHandleHasNoDescriptorsAndCostsNoRequest() throws {
        let peer = try ScriptedATTPeer([])
        let client = GATTClient(bearer: peer.client)
        let location = GATTCharacteristic(uuid: BluetoothUUID(0x2A38), declarationHandle: 10, valueHandle: 11,
                                          properties: .read, endHandle: 11)
        #expect(try client.discoverDescriptors(of: location) == [])
        #expect(peer.finish() == [])
    }

    @Test func discoverAllBuildsTheWholeTree() throws {
        let peer = try ScriptedATTPeer([
            .expect("10 01 00 ff ff 00 28"),
            .send("11 06 06 00 0b 00 0d 18"),
            .expect("10 0c 00 ff ff 00 28"),
            .send("01 10 0c 00 0a"),
            .expect("08 06 00 0b 00 03 28"),
            .send("09 07 07 00 10 08 00 37 2a 0a 00 02 0b 00 38 2a"),
            .expect("08 0b 00 0b 00 03 28"),
            .send("01 08 0b 00 0a"),
            .expect("04 09 00 09 00"),
            .send("05 01 09 00 02 29"),
        ])
        let client = GATTClient(bearer: peer.client)
        let database = try client.discoverAll()
        let measurement = try #require(database.characteristic(BluetoothUUID(0x2A37), in: BluetoothUUID(0x180D)))
        #expect(measurement.descriptors.map(\.handle) == [0x0009])
        #expect(peer.finish() == [])
    }

    @Test func longValueIsReadWithReadBlobUntilAShortPart() throws {
        let first = (0..<22).map { String(format: "%02x", $0) }.joined(separator: " ")
        let peer = try ScriptedATTPeer([
            .expect("0a 03 00"), .send("0b " + first),
            .expect("0c 03 00 16 00"), .send("0d 16 17 18 19 1a"),
        ])
        let client = GATTClient(bearer: peer.client)
        #expect(try client.read(0x0003) == Array(0..<27))
        #expect(peer.finish() == [])
    }

    @Test func valueOfExactlyOnePDUEndsWhenTheServerSaysAttributeNotLong() throws {
        let first = (0..<22).map { String(format: "%02x", $0) }.joined(separator: " ")
        let peer = try ScriptedATTPeer([
            .expect("0a 03 00"), .send("0b " + first),
            .expect("0c 03 00 16 00"), .send("01 0c 03 00 0b"),
        ])
        let client = GATTClient(bearer: peer.client)
        #expect(try client.read(0x0003) == Array(0..<22))
        #expect(peer.finish() == [])
    }

    @Test func subscribingWritesTheCCCDOncePerBearer() throws {
        let peer = try ScriptedATTPeer([.expect("12 09 00 01 00"), .send("13")])
        let client = GATTClient(bearer: peer.client)
        let measurement = GATTCharacteristic(uuid: BluetoothUUID(0x2A37), declarationHandle: 7, valueHandle: 8,
                                             properties: .notify, endHandle: 9,
                                             descriptors: [GATTDescriptor(uuid: BluetoothUUID(0x2902), handle: 9)])
        #expect(try client.subscribe(to: measurement) == true)
        #expect(try client.subscribe(to: measurement) == false)
        #expect(client.isSubscribed(to: measurement))
        #expect(peer.finish() == [])
    }

    @Test func subscribingForIndicationsWritesTwo() throws {
        let peer = try ScriptedATTPeer([.expect("12 09 00 02 00"), .send("13")])
        let client = GATTClient(bearer: peer.client)
        let control = GATTCharacteristic(uuid: BluetoothUUID(0x2A39), declarationHandle: 7, valueHandle: 8,
                                         properties: [.write, .indicate], endHandle: 9,
                                         descriptors: [GATTDescriptor(uuid: BluetoothUUID(0x2902), handle: 9)])
        try client.subscribe(to: control, .indications)
        #expect(peer.finish() == [])
    }

    @Test func characteristicWithoutCCCDCannotBeSubscribed() throws {
        let peer = try ScriptedATTPeer([])
        let client = GATTClient(bearer: peer.client)
        let measurement = GATTCharacteristic(uuid: BluetoothUUID(0x2A37), declarationHandle: 7, valueHandle: 8,
                                             properties: .notify, endHandle: 8)
        #expect(throws: GATTError.self) { try client.subscribe(to: measurement) }
        #expect(peer.finish() == [])
    }
}
