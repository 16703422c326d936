import BandATT
import BandGATT
import BandGATTServer
import BandReplay
import BandTestSupport
import BandWire
import Testing

/// The one GATT server over a replay's attribute source: the connection as a replay serves it.
final class ReplayServer {
    var server: GATTServer
    var source: ReplayAttributeSource
    init(database: RecordedGATTDatabase, serverMTU: Int) {
        server = GATTServer(serverMTU: serverMTU)
        source = ReplayAttributeSource(database: database)
    }
    var mtu: Int { server.mtu }
    func configuration(forValueHandle handle: UInt16) -> ClientCharacteristicConfiguration? {
        source.configuration(forValueHandle: handle)
    }
    /// Answers `pdu` into `output`: the response's length and the event.
    func handle(_ pdu: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer)
        -> (Int, GATTServerEvent<ReplayAttributeSource.WriteEffect>) {
        let result = server.handle(pdu, source: &source, into: output)
        return (result.responseLength, result.event)
    }
}

/// The strap of `strapDiscovery`, as a replay serves it.
func strapServer(mtu: Int = 0xB9) throws -> ReplayServer {
    ReplayServer(database: try reconstruct(strapDiscovery).database(strapSide), serverMTU: mtu)
}

/// Sends `request` (hex) and returns the response as hex ("" for none) and the event.
@discardableResult
func ask(_ replay: ReplayServer, _ request: String) -> (response: String, action: GATTServerEvent<ReplayAttributeSource.WriteEffect>) {
    var output = [UInt8](repeating: 0, count: ATT.maximumMTU)
    let pdu = bytes(request)
    let result = pdu.withUnsafeBytes { raw in
        output.withUnsafeMutableBytes { replay.server.handle(raw, source: &replay.source, into: $0) }
    }
    let hex = Hex.encode(output[0..<result.responseLength])
    return (stride(from: 0, to: hex.count, by: 2).map { i in
        let start = hex.index(hex.startIndex, offsetBy: i)
        return String(hex[start..<hex.index(start, offsetBy: 2)])
    }.joined(separator: " "), result.event)
}

@Test func theServerAnswersAWholeDiscoveryLikeTheRecordedStrap() throws {
    let server = try strapServer()
    #expect(ask(server, "02 f7 00") == ("03 b9 00", .exchangedMTU(0xB9)))
    #expect(ask(server, "10 01 00 ff ff 00 28").response == "11 06 01 00 05 00 00 18 06 00 0b 00 0d 18")
    #expect(ask(server, "10 0c 00 ff ff 00 28").response == "01 10 0c 00 0a")
    #expect(ask(server, "08 06 00 0b 00 03 28").response == "09 07 07 00 10 08 00 37 2a 0a 00 02 0b 00 38 2a")
    #expect(ask(server, "08 0b 00 0b 00 03 28").response == "01 08 0b 00 0a")
    #expect(ask(server, "04 09 00 09 00").response == "05 01 09 00 02 29")
    #expect(ask(server, "0a 0b 00").response == "0b 01")
    #expect(ask(server, "0a 03 00").response == "0b 53 74 72 61 70")
}

@Test func findInformationListsDeclarationsValuesAndDescriptorsOfOneUUIDWidth() throws {
    let server = try strapServer()
    ask(server, "02 f7 00")
    #expect(ask(server, "04 06 00 0b 00").response == "05 01 06 00 00 28 07 00 03 28 08 00 37 2a 09 00 02 29 0a 00 03 28 0b 00 38 2a")
}

@Test func listResponsesStopAtTheMTU() throws {
    let server = try strapServer()  // no MTU exchange: 23 bytes
    // 23 − 2 = 21 bytes of 4-byte entries: 5 entries.
    #expect(ask(server, "04 01 00 ff ff").response == "05 01 01 00 00 28 02 00 03 28 03 00 00 2a 06 00 00 28 07 00 03 28")
}

@Test func requestsForWhatTheTraceNeverShowedGetTheErrorsARealServerGives() throws {
    let server = try strapServer()
    #expect(ask(server, "0a 00 00").response == "01 0a 00 00 01", "handle 0: Invalid Handle")
    #expect(ask(server, "0a 30 00").response == "01 0a 30 00 01", "no such attribute: Invalid Handle")
    #expect(ask(server, "0a 08 00").response == "01 0a 08 00 02", "notify-only value never read: Read Not Permitted")
    #expect(ask(server, "04 05 00 01 00").response == "01 04 05 00 01", "start after end: Invalid Handle")
    #expect(ask(server, "10 01 00 ff ff 03 28").response == "01 10 01 00 10", "grouping by 0x2803: Unsupported Group Type")
    #expect(ask(server, "08 01 00 ff ff 19 2a").response == "01 08 01 00 0a", "no battery level: Attribute Not Found")
    #expect(ask(server, "0c 0b 00 02 00").response == "01 0c 0b 00 07", "offset past the value: Invalid Offset")
    #expect(ask(server, "16 03 00 00 00 41").response == "01 16 00 00 06", "prepared writes: Request Not Supported")
    #expect(ask(server, "0a 03").response == "01 0a 00 00 04", "malformed: Invalid PDU")
    #expect(ask(server, "12 03 00 41") == ("01 12 03 00 03", .writeRefused(handle: 3, error: .writeNotPermitted)), "read-only value: Write Not Permitted")
}

@Test func recordedReadErrorsAreGivenBack() throws {
    let reconstructor = try reconstruct(strapDiscovery + [(phone, "0a 0b 00"), (strap, "01 0a 0b 00 05")])
    let server = ReplayServer(database: reconstructor.database(strapSide), serverMTU: 23)
    #expect(ask(server, "0a 0b 00").response == "01 0a 0b 00 05")
}

@Test func commandsNeverGetAResponseEvenWhenRefused() throws {
    let server = try strapServer()
    #expect(ask(server, "52 03 00 41") == ("", .writeRefused(handle: 3, error: .writeNotPermitted)))
    #expect(ask(server, "52 30 00 41") == ("", .writeRefused(handle: 0x30, error: .invalidHandle)))
    #expect(ask(server, "d2 03 00 41 00 00 00 00 00 00 00 00 00 00 00 00").response == "")
}

@Test func cccdWritesAreStoredPerClientAndReadBack() throws {
    let server = try strapServer()
    #expect(server.configuration(forValueHandle: 8) == [])
    #expect(ask(server, "12 09 00 01 00") == ("13", .wrote(handle: 9, effect: .configured(valueHandle: 8, configuration: .notifications))))
    #expect(server.configuration(forValueHandle: 8) == .notifications)
    #expect(ask(server, "0a 09 00").response == "0b 01 00")
    #expect(ask(server, "12 09 00 01").response == "01 12 09 00 0d", "one byte: Invalid Attribute Value Length")
    #expect(server.configuration(forValueHandle: 11) == nil, "no CCCD known for body sensor location")
}

@Test func longValuesAreServedInReadBlobPieces() throws {
    let long = RecordedGATTDatabase(
        services: [RecordedService(handle: 1, endGroupHandle: 3, uuid: BluetoothUUID(0x180A))],
        characteristics: [RecordedCharacteristic(handle: 2, properties: .read, valueHandle: 3, uuid: BluetoothUUID(0x2A29))],
        values: [3: RecordedValue(bytes: Array(0..<30))])
    let server = ReplayServer(database: long, serverMTU: 23)
    #expect(ask(server, "0a 03 00").response == "0b " + (0..<22).map { Hex.encode([UInt8($0)]) }.joined(separator: " "))
    #expect(ask(server, "0c 03 00 16 00").response == "0d 16 17 18 19 1a 1b 1c 1d")
    #expect(ask(server, "0c 03 00 1e 00").response == "0d", "offset at the end: empty part")
}

@Test func findByTypeValueFindsAServiceByItsUUIDInEitherWidth() throws {
    let server = try strapServer()
    #expect(ask(server, "06 01 00 ff ff 00 28 0d 18").response == "07 06 00 0b 00")
    #expect(ask(server, "06 01 00 ff ff 00 28 fb 34 9b 5f 80 00 00 80 00 10 00 00 0d 18 00 00").response == "07 06 00 0b 00")
    #expect(ask(server, "06 01 00 ff ff 00 28 0f 18").response == "01 06 01 00 0a")
}

@Test func readMultipleConcatenatesOrFailsOnTheFirstBadHandle() throws {
    let server = try strapServer()
    #expect(ask(server, "0e 0b 00 03 00").response == "0f 01 53 74 72 61 70")
    #expect(ask(server, "0e 0b 00 08 00").response == "01 0e 08 00 02")
}

@Test func unknownRequestsAreNotSupportedAndUnknownCommandsIgnored() throws {
    let server = try strapServer()
    #expect(ask(server, "20 03 00 0b 00").response == "01 20 00 00 06")
    #expect(ask(server, "7f 01 02").response == "")
    #expect(ask(server, "1e").action == .confirmedIndication)
    #expect(ask(server, "1b 08 00 01").action == .unexpected(.handleValueNotification))
}
