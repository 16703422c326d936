import BandATT
import BandTestSupport
import BandWire
import Testing

/// One PDU as bytes and as a value, with the strict prefixes that are themselves valid PDUs
/// (a value or list that simply ends earlier); every other prefix must fail as truncated.
struct PDUVector: CustomTestStringConvertible, Sendable {
    let name: String
    let hex: String
    let pdu: ATTPDU
    let validPrefixes: [Int]

    init(_ name: String, _ hex: String, _ pdu: ATTPDU, validPrefixes: [Int] = []) {
        self.name = name
        self.hex = hex
        self.pdu = pdu
        self.validPrefixes = validPrefixes
    }

    var testDescription: String { name }
}

let nordicUARTService = BluetoothUUID(string: "6e400001-b5a3-f393-e0a9-e50e24dcca9e")!
let nordicUARTLE = "9e ca dc 24 0e e5 a9 e0 93 f3 a3 b5 01 00 40 6e"

func findInformation16() -> ATTFindInformationResponse {
    var response = ATTFindInformationResponse(format: .handleAnd16BitUUID)
    _ = response.append(handle: 0x002C, type: BluetoothUUID(0x2902), mtu: 23)
    _ = response.append(handle: 0x002D, type: BluetoothUUID(0x2901), mtu: 23)
    return response
}

func findInformation128() -> ATTFindInformationResponse {
    var response = ATTFindInformationResponse(format: .handleAnd128BitUUID)
    _ = response.append(handle: 0x0030, type: nordicUARTService, mtu: 23)
    return response
}

func characteristicDeclarations() -> ATTReadByTypeResponse {
    var response = ATTReadByTypeResponse()
    bytes("02 03 00 00 2a").withUnsafeBytes { _ = response.append(handle: 0x0002, value: $0, mtu: 23) }
    bytes("02 05 00 01 2a").withUnsafeBytes { _ = response.append(handle: 0x0004, value: $0, mtu: 23) }
    return response
}

func primaryServices() -> ATTReadByGroupTypeResponse {
    var response = ATTReadByGroupTypeResponse()
    _ = response.append(.init(handle: 0x0001, endGroupHandle: 0x0007, uuid: BluetoothUUID(0x1800)), mtu: 23)
    _ = response.append(.init(handle: 0x0008, endGroupHandle: 0x000B, uuid: BluetoothUUID(0x1801)), mtu: 23)
    return response
}

func heartRateServiceRange() -> ATTFindByTypeValueResponse {
    var response = ATTFindByTypeValueResponse()
    _ = response.append(.init(handle: 0x0010, endGroupHandle: 0x0015), mtu: 23)
    return response
}

func batteryAndName() -> ATTReadMultipleVariableResponse {
    var response = ATTReadMultipleVariableResponse()
    bytes("64").withUnsafeBytes { _ = response.append($0, mtu: 23) }
    bytes("42 61 6e 64").withUnsafeBytes { _ = response.append($0, mtu: 23) }
    return response
}

func heartRateAndBattery() -> ATTMultipleHandleValueNotification {
    var notification = ATTMultipleHandleValueNotification()
    bytes("06 52").withUnsafeBytes { _ = notification.append(handle: 0x0012, value: $0, mtu: 23) }
    bytes("5a").withUnsafeBytes { _ = notification.append(handle: 0x002E, value: $0, mtu: 23) }
    return notification
}

/// Spec layouts (Core 5.4 Vol 3 Part F §3.4) filled with the values a heart-rate band exchanges;
/// the notification is the Cardiosport strap's `16 55 b6 02 94 02` from ble-formats.md §1.
let pduVectors: [PDUVector] = [
    PDUVector("Error Response: Read Request on 0x0029, Attribute Not Found", "01 0a 29 00 0a",
              .errorResponse(.init(requestOpcode: .readRequest, handle: 0x0029, error: .attributeNotFound))),
    PDUVector("Exchange MTU Request 247", "02 f7 00", .exchangeMTURequest(.init(clientRxMTU: 247))),
    PDUVector("Exchange MTU Response 23", "03 17 00", .exchangeMTUResponse(.init(serverRxMTU: 23))),
    PDUVector("Find Information Request 0x0001-0xffff", "04 01 00 ff ff",
              .findInformationRequest(.init(range: .all))),
    PDUVector("Find Information Response, 16-bit UUIDs", "05 01 2c 00 02 29 2d 00 01 29",
              .findInformationResponse(findInformation16()), validPrefixes: [6]),
    PDUVector("Find Information Response, 128-bit UUID", "05 02 30 00 " + nordicUARTLE,
              .findInformationResponse(findInformation128())),
    PDUVector("Find By Type Value Request: primary service 0x180d", "06 01 00 ff ff 00 28 0d 18",
              .findByTypeValueRequest(.init(range: .all, attributeType: 0x2800, value: attributeBytes("0d 18"))),
              validPrefixes: [7, 8]),
    PDUVector("Find By Type Value Response 0x0010-0x0015", "07 10 00 15 00",
              .findByTypeValueResponse(heartRateServiceRange())),
    PDUVector("Read By Type Request: characteristic declarations", "08 01 00 ff ff 03 28",
              .readByTypeRequest(.init(range: .all, attributeType: BluetoothUUID(0x2803)))),
    PDUVector("Read By Type Request, 128-bit type", "08 01 00 ff ff " + nordicUARTLE,
              .readByTypeRequest(.init(range: .all, attributeType: nordicUARTService)), validPrefixes: [7]),
    PDUVector("Read By Type Response: two characteristic declarations",
              "09 07 02 00 02 03 00 00 2a 04 00 02 05 00 01 2a",
              .readByTypeResponse(characteristicDeclarations()), validPrefixes: [9]),
    PDUVector("Read Request 0x0003", "0a 03 00", .readRequest(.init(handle: 0x0003))),
    PDUVector("Read Response \"Band\"", "0b 42 61 6e 64",
              .readResponse(.init(value: attributeBytes("42 61 6e 64"))), validPrefixes: [1, 2, 3, 4]),
    PDUVector("Read Blob Request 0x0003 at 22", "0c 03 00 16 00",
              .readBlobRequest(.init(handle: 0x0003, valueOffset: 22))),
    PDUVector("Read Blob Response", "0d 41 42",
              .readBlobResponse(.init(partValue: attributeBytes("41 42"))), validPrefixes: [1, 2]),
    PDUVector("Read Multiple Request 0x0003 0x0005", "0e 03 00 05 00",
              .readMultipleRequest(.init(handles: [0x0003, 0x0005]))),
    PDUVector("Read Multiple Response", "0f 64 01",
              .readMultipleResponse(.init(values: ATTParameterBytes(bytes("64 01")))), validPrefixes: [1, 2]),
    PDUVector("Read By Group Type Request: primary services", "10 01 00 ff ff 00 28",
              .readByGroupTypeRequest(.init(range: .all, groupType: BluetoothUUID(0x2800)))),
    PDUVector("Read By Group Type Response: GAP and GATT", "11 06 01 00 07 00 00 18 08 00 0b 00 01 18",
              .readByGroupTypeResponse(primaryServices()), validPrefixes: [8]),
    PDUVector("Write Request: enable notifications", "12 2c 00 01 00",
              .writeRequest(.init(handle: 0x002C, value: attributeBytes("01 00"))), validPrefixes: [3, 4]),
    PDUVector("Write Response", "13", .writeResponse(.init())),
    PDUVector("Write Command", "52 2e 00 01",
              .writeCommand(.init(handle: 0x002E, value: attributeBytes("01"))), validPrefixes: [3]),
    PDUVector("Prepare Write Request", "16 03 00 00 00 41 42 43",
              .prepareWriteRequest(.init(handle: 0x0003, valueOffset: 0, partValue: attributeBytes("41 42 43"))),
              validPrefixes: [5, 6, 7]),
    PDUVector("Prepare Write Response", "17 03 00 12 00 41",
              .prepareWriteResponse(.init(handle: 0x0003, valueOffset: 18, partValue: attributeBytes("41"))),
              validPrefixes: [5]),
    PDUVector("Execute Write Request: write", "18 01", .executeWriteRequest(.init(flags: .immediatelyWriteAllPendingValues))),
    PDUVector("Execute Write Request: cancel", "18 00", .executeWriteRequest(.init(flags: .cancelAllPreparedWrites))),
    PDUVector("Execute Write Response", "19", .executeWriteResponse(.init())),
    PDUVector("Handle Value Notification: heart rate with RR", "1b 12 00 16 55 b6 02 94 02",
              .handleValueNotification(.init(handle: 0x0012, value: attributeBytes("16 55 b6 02 94 02"))),
              validPrefixes: [3, 4, 5, 6, 7, 8]),
    PDUVector("Handle Value Indication: service changed", "1d 03 00 01 00 ff ff",
              .handleValueIndication(.init(handle: 0x0003, value: attributeBytes("01 00 ff ff"))),
              validPrefixes: [3, 4, 5, 6]),
    PDUVector("Handle Value Confirmation", "1e", .handleValueConfirmation(.init())),
    PDUVector("Signed Write Command", "d2 2e 00 01 " + String(repeating: "aa ", count: 12),
              .signedWriteCommand(.init(handle: 0x002E, value: attributeBytes("01"),
                                        signature: FixedBytes<12>([UInt8](repeating: 0xAA, count: 12)))),
              validPrefixes: [15]),
    PDUVector("Read Multiple Variable Request", "20 03 00 05 00",
              .readMultipleVariableRequest(.init(handles: [0x0003, 0x0005]))),
    PDUVector("Read Multiple Variable Response: battery and name", "21 01 00 64 04 00 42 61 6e 64",
              .readMultipleVariableResponse(batteryAndName()), validPrefixes: Array(1..<10)),
    PDUVector("Multiple Handle Value Notification: heart rate and battery", "23 12 00 02 00 06 52 2e 00 01 00 5a",
              .multipleHandleValueNotification(heartRateAndBattery()), validPrefixes: [7]),
    PDUVector("Unassigned opcode 0x42 survives", "42 01 02", .unknown(ATTOpcode(rawValue: 0x42), ATTParameterBytes(bytes("01 02"))),
              validPrefixes: [1, 2]),
]

@Suite struct ATTPDUVectorTests {
    @Test(arguments: pduVectors)
    func decodesToTheExpectedValue(_ vector: PDUVector) throws {
        #expect(try decodePDU(bytes(vector.hex)) == vector.pdu)
        #expect(try decodePDU(bytes(vector.hex)).opcode.rawValue == bytes(vector.hex)[0])
    }

    @Test(arguments: pduVectors)
    func encodesToTheExpectedBytes(_ vector: PDUVector) {
        #expect(Hex.encode(encoded(vector.pdu)) == Hex.encode(bytes(vector.hex)))
    }

    @Test(arguments: pduVectors)
    func everyShorterPrefixIsTruncatedUnlessItIsAShorterValidPDU(_ vector: PDUVector) {
        let notTruncated = prefixesThatDidNotTruncate(bytes(vector.hex)) { (c) throws(ParseError) in try ATTPDU(parsing: &c) }
        #expect(notTruncated == vector.validPrefixes)
    }
}
