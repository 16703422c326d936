import BandATT
import BandGATT
import BandReplay
import BandTestSupport
import BandWire
import Testing

/// A trace conversation, line by line: who sent which ATT PDU.
func reconstruct(_ lines: [(ATTSender, String)], connection: TraceConnection = TraceConnection(handle: 0x40)) throws -> GATTDatabaseReconstructor {
    var reconstructor = GATTDatabaseReconstructor()
    for (sender, hex) in lines {
        let pdu = bytes(hex)
        try pdu.withUnsafeBytes { raw in try reconstructor.observe(raw, from: sender, on: connection) }
    }
    return reconstructor
}

let phone = ATTSender.recordingHost
let strap = ATTSender.remoteDevice
let strapSide = ATTServerSide(connection: TraceConnection(handle: 0x40), server: .remoteDevice)

/// A phone discovering a heart-rate strap, as an Android HCI log shows it.
let strapDiscovery: [(ATTSender, String)] = [
    (phone, "02 f7 00"), (strap, "03 b9 00"),
    (phone, "10 01 00 ff ff 00 28"), (strap, "11 06 01 00 05 00 00 18 06 00 0b 00 0d 18"),
    (phone, "10 0c 00 ff ff 00 28"), (strap, "01 10 0c 00 0a"),
    (phone, "08 01 00 05 00 03 28"), (strap, "09 07 02 00 02 03 00 00 2a"),
    (phone, "08 04 00 05 00 03 28"), (strap, "01 08 04 00 0a"),
    (phone, "08 06 00 0b 00 03 28"), (strap, "09 07 07 00 10 08 00 37 2a 0a 00 02 0b 00 38 2a"),
    (phone, "08 0b 00 0b 00 03 28"), (strap, "01 08 0b 00 0a"),
    (phone, "04 09 00 09 00"), (strap, "05 01 09 00 02 29"),
    (phone, "0a 03 00"), (strap, "0b 53 74 72 61 70"),
    (phone, "0a 0b 00"), (strap, "0b 01"),
    (phone, "12 09 00 01 00"), (strap, "13"),
    (strap, "1b 08 00 06 52"), (strap, "1b 08 00 16 55 b6 02 94 02"),
]

@Test func discoveryResponsesRebuildServicesCharacteristicsDescriptorsAndValues() throws {
    let reconstructor = try reconstruct(strapDiscovery)
    #expect(reconstructor.sides == [strapSide])
    #expect(reconstructor.preferredSide == strapSide)
    #expect(reconstructor.notificationCount(strapSide) == 2)
    let database = reconstructor.database(strapSide)
    #expect(database.services == [
        RecordedService(handle: 1, endGroupHandle: 5, uuid: BluetoothUUID(0x1800)),
        RecordedService(handle: 6, endGroupHandle: 11, uuid: BluetoothUUID(0x180D)),
    ])
    #expect(database.characteristics == [
        RecordedCharacteristic(handle: 2, properties: .read, valueHandle: 3, uuid: BluetoothUUID(0x2A00)),
        RecordedCharacteristic(handle: 7, properties: .notify, valueHandle: 8, uuid: BluetoothUUID(0x2A37)),
        RecordedCharacteristic(handle: 10, properties: .read, valueHandle: 11, uuid: BluetoothUUID(0x2A38)),
    ])
    #expect(database.descriptors == [RecordedDescriptor(handle: 9, uuid: BluetoothUUID(0x2902))])
    #expect(database.values == [3: RecordedValue(bytes: Array("Strap".utf8)), 11: RecordedValue(bytes: [0x01])])
    #expect(database.serverMTU == 0xB9)
    #expect(database.clientConfiguration(forValueHandle: 8)?.handle == 9)
    #expect(database.uuid(ofValueHandle: 8) == BluetoothUUID(0x2A37))
    #expect(database.endHandle(ofCharacteristicAt: 1) == 9)
    #expect(database.endHandle(ofCharacteristicAt: 2) == 11)
    #expect(reconstructor.unmatchedResponses == 0)
}

@Test func aLongValueIsReassembledFromReadAndReadBlobResponses() throws {
    // ATT_MTU 23: a Read Response of 22 bytes may be cut; the blob at offset 22 finishes it.
    let first = (0..<22).map { Hex.encode([UInt8($0)]) }.joined(separator: " ")
    let reconstructor = try reconstruct([
        (phone, "0a 03 00"), (strap, "0b " + first),
        (phone, "0c 03 00 16 00"), (strap, "0d 16 17 18 19 1a"),
    ])
    let value = reconstructor.database(strapSide).values[3]
    #expect(value == RecordedValue(bytes: Array(0..<27), isComplete: true))
}

@Test func aFullSizeReadWithoutBlobsIsMarkedPossiblyIncomplete() throws {
    let full = (0..<22).map { _ in "41" }.joined(separator: " ")
    let reconstructor = try reconstruct([(phone, "0a 03 00"), (strap, "0b " + full)])
    #expect(reconstructor.database(strapSide).values[3]?.isComplete == false)
}

@Test func attributeNotLongAtTheEndOfAValueMarksItComplete() throws {
    let full = (0..<22).map { _ in "41" }.joined(separator: " ")
    let reconstructor = try reconstruct([
        (phone, "0a 03 00"), (strap, "0b " + full),
        (phone, "0c 03 00 16 00"), (strap, "01 0c 03 00 0b"),
    ])
    #expect(reconstructor.database(strapSide).values[3] == RecordedValue(bytes: Array(repeating: 0x41, count: 22), isComplete: true))
}

@Test func refusedReadsAreRememberedWithTheirErrorButInvalidHandleIsNot() throws {
    let reconstructor = try reconstruct([
        (phone, "0a 05 00"), (strap, "01 0a 05 00 05"),
        (phone, "0a 06 00"), (strap, "01 0a 06 00 01"),
    ])
    #expect(reconstructor.database(strapSide).readErrors == [5: .insufficientAuthentication])
}

@Test func anErrorNamingAnotherRequestTeachesNothingAndIsCounted() throws {
    let reconstructor = try reconstruct([(phone, "0a 05 00"), (strap, "01 08 05 00 02")])
    #expect(reconstructor.database(strapSide).readErrors.isEmpty)
    #expect(reconstructor.unmatchedResponses == 1)
}

@Test func aResponseWithNoRequestBeforeItIsCountedNotApplied() throws {
    let reconstructor = try reconstruct([(strap, "11 06 01 00 05 00 00 18")])
    #expect(reconstructor.database(strapSide).services.isEmpty)
    #expect(reconstructor.unmatchedResponses == 1)
}

@Test func serviceDiscoveryByUUIDKeepsTheAskedForUUID() throws {
    let reconstructor = try reconstruct([(phone, "06 01 00 ff ff 00 28 0d 18"), (strap, "07 06 00 0b 00")])
    #expect(reconstructor.database(strapSide).services == [RecordedService(handle: 6, endGroupHandle: 11, uuid: BluetoothUUID(0x180D))])
}

@Test func readUsingCharacteristicUUIDRecordsValues() throws {
    let reconstructor = try reconstruct([(phone, "08 01 00 ff ff 19 2a"), (strap, "09 03 2a 00 5a")])
    #expect(reconstructor.database(strapSide).values == [0x2A: RecordedValue(bytes: [0x5A])])
}

@Test func includesAndOneTwentyEightBitServicesAreRebuilt() throws {
    let vendor = "fb 34 9b 5f 80 00 00 80 00 10 00 00 0a 19 00 00"
    let reconstructor = try reconstruct([
        (phone, "10 01 00 ff ff 00 28"), (strap, "11 14 20 00 2f 00 " + vendor),
        (phone, "08 20 00 2f 00 02 28"), (strap, "09 08 21 00 01 00 05 00 00 18"),
    ])
    let database = reconstructor.database(strapSide)
    #expect(database.services.first?.uuid == BluetoothUUID(0x190A))
    #expect(database.includes == [RecordedInclude(handle: 0x21, includedServiceHandle: 1, endGroupHandle: 5, uuid: BluetoothUUID(0x1800))])
}

@Test func bothEndsOfAConnectionKeepSeparateDatabases() throws {
    // The band (remote) discovers the phone's Current Time service while the phone discovers the band.
    let reconstructor = try reconstruct([
        (phone, "10 01 00 ff ff 00 28"),
        (strap, "10 01 00 ff ff 00 28"),
        (phone, "11 06 01 00 04 00 05 18"),
        (strap, "11 06 01 00 05 00 0d 18"),
    ])
    #expect(reconstructor.database(strapSide).services.map(\.uuid) == [BluetoothUUID(0x180D)])
    let phoneSide = ATTServerSide(connection: TraceConnection(handle: 0x40), server: .recordingHost)
    #expect(reconstructor.database(phoneSide).services.map(\.uuid) == [BluetoothUUID(0x1805)])
}

@Test func connectionsAreKeptApart() throws {
    var reconstructor = GATTDatabaseReconstructor()
    let a = TraceConnection(handle: 1), b = TraceConnection(handle: 2)
    for (pdu, sender, connection) in [(bytes("0a 03 00"), phone, a), (bytes("0a 04 00"), phone, b),
                                      (bytes("0b 42"), strap, b), (bytes("0b 41"), strap, a)] {
        try pdu.withUnsafeBytes { raw in try reconstructor.observe(raw, from: sender, on: connection) }
    }
    #expect(reconstructor.database(ATTServerSide(connection: a, server: strap)).values == [3: RecordedValue(bytes: [0x41])])
    #expect(reconstructor.database(ATTServerSide(connection: b, server: strap)).values == [4: RecordedValue(bytes: [0x42])])
}

@Test func aMalformedResponseThrowsWithItsOffsetAndLeavesTheDatabaseAlone() throws {
    var reconstructor = try reconstruct([(phone, "10 01 00 ff ff 00 28")])
    let broken = bytes("11 06 01 00 05 00 00")  // last entry cut short
    #expect(throws: ParseError(.truncated, at: 2, field: "attribute data list")) {
        try broken.withUnsafeBytes { raw in
            try reconstructor.observe(raw, from: strap, on: TraceConnection(handle: 0x40))
        }
    }
    #expect(reconstructor.database(strapSide).services.isEmpty)
}

// Found by fuzz/replay: a trace reading the reserved handle 0x0000 (BandATT accepts it in a
// Read Request, as a server must to refuse it), or a value Read Blob continuing a value past 512 bytes, gave a
// database holding them.
@Test func handleZeroAndBytesPast512AreLeftOutOfTheDatabase() throws {
    let value = String(repeating: "ab ", count: 512)
    let reconstructor = try reconstruct([
        (phone, "02 05 02"), (strap, "03 05 02"),
        (phone, "08 01 00 ff ff 19 2a"), (strap, "09 03 05 00 01"),
        (phone, "0a 00 00"), (strap, "0b 01 02"),
        (phone, "0a 00 00"), (strap, "01 0a 00 00 05"),
        (phone, "0a 0b 00"), (strap, "0b " + value),
        (phone, "0c 0b 00 00 02"), (strap, "0d 01 02 03 04"),
    ])
    let database = reconstructor.database(strapSide)
    #expect(database.values[5]?.bytes == [1])
    #expect(database.values[0] == nil)
    #expect(database.readErrors[0] == nil)
    #expect(database.values[0x0b]?.bytes.count == 512)
    #expect(ReplayAttributeTable(database).attributes.allSatisfy { $0.handle != 0 })
}
