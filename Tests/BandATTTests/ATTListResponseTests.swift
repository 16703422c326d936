import BandATT
import BandTestSupport
import BandWire
import Testing

/// The list responses as a GATT server builds them (fill until the MTU is full) and as a
/// client reads them.
@Suite struct ATTListResponseTests {
    @Test func readByTypeBuilderStopsWhenTheNextPairWouldExceedTheMTU() {
        var response = ATTReadByTypeResponse()
        let declaration = bytes("02 03 00 00 2a")
        var appended = 0
        declaration.withUnsafeBytes { value in
            while response.append(handle: UInt16(2 + 2 * appended), value: value, mtu: 23) { appended += 1 }
        }
        // 2 header bytes + 3 × 7 = 23; a fourth pair would need 30.
        #expect(appended == 3)
        #expect(encoded(response).count == 23)
        #expect(response.entries.map(\.handle) == [2, 4, 6])
    }

    @Test func readByTypeBuilderStopsAtTheFirstValueOfAnotherLength() {
        var response = ATTReadByTypeResponse()
        bytes("02 03 00 00 2a").withUnsafeBytes { do { let appended = response.append(handle: 2, value: $0, mtu: 185); #expect(appended) } }
        bytes("02 05 00 9e ca dc 24 0e e5 a9 e0 93 f3 a3 b5 01 00 40 6e").withUnsafeBytes {
            do { let appended = response.append(handle: 4, value: $0, mtu: 185); #expect(!appended) }
        }
        #expect(response.count == 1)
    }

    @Test func readByTypeBuilderCutsLongValuesToMTUMinus4() {
        var response = ATTReadByTypeResponse()
        let long = [UInt8](repeating: 0x41, count: 40)
        long.withUnsafeBytes { do { let appended = response.append(handle: 3, value: $0, mtu: 23); #expect(appended) } }
        #expect(response.valueLength == 19)
        #expect(response.pairLength == 21)
        #expect(encoded(response).count == 23)
        // And to 253 at the largest MTU: the length field is one byte.
        var big = ATTReadByTypeResponse()
        [UInt8](repeating: 1, count: 512).withUnsafeBytes { do { let appended = big.append(handle: 3, value: $0, mtu: 517); #expect(appended) } }
        #expect(big.valueLength == 253)
    }

    @Test func readByTypeForEachEntryViewsEachValueInPlace() throws {
        let response = characteristicDeclarations()
        var seen: [(UInt16, [UInt8])] = []
        response.forEachEntry { handle, value in seen.append((handle, Array(value))) }
        #expect(seen.map(\.0) == [2, 4])
        #expect(seen.map(\.1) == [bytes("02 03 00 00 2a"), bytes("02 05 00 01 2a")])
        #expect(Array(response.entries.map { $0.value.array }) == seen.map(\.1))
    }

    @Test func findInformationBuilderRefusesAUUIDOfTheOtherWidth() {
        var response = ATTFindInformationResponse(format: .handleAnd16BitUUID)
        do { let appended = response.append(handle: 0x2C, type: BluetoothUUID(0x2902), mtu: 23); #expect(appended) }
        do { let appended = response.append(handle: 0x2D, type: nordicUARTService, mtu: 23); #expect(!appended) }
        #expect(response.entries.map(\.type) == [BluetoothUUID(0x2902)])
        #expect(ATTFindInformationResponse.Format.fitting(nordicUARTService) == .handleAnd128BitUUID)
    }

    @Test func findInformationBuilderFillsTheMTU() {
        var response = ATTFindInformationResponse(format: .handleAnd16BitUUID)
        var handle: UInt16 = 1
        while response.append(handle: handle, type: BluetoothUUID(0x2902), mtu: 23) { handle += 1 }
        // 2 + 5 × 4 = 22; a sixth entry needs 26.
        #expect(response.count == 5)
    }

    @Test func findInformationReads128BitUUIDsBack() {
        #expect(findInformation128().entries.map(\.type) == [nordicUARTService])
        #expect(findInformation128().entries.map(\.handle) == [0x30])
    }

    @Test func readByGroupTypeBuilderKeepsOneUUIDWidth() {
        var response = ATTReadByGroupTypeResponse()
        do { let appended = response.append(.init(handle: 1, endGroupHandle: 7, uuid: BluetoothUUID(0x1800)), mtu: 23); #expect(appended) }
        do { let appended = response.append(.init(handle: 8, endGroupHandle: 9, uuid: nordicUARTService), mtu: 23); #expect(!appended) }
        do { let appended = response.append(.init(handle: 8, endGroupHandle: 9, uuid: BluetoothUUID(0x1801)), mtu: 23); #expect(appended) }
        do { let appended = response.append(.init(handle: 10, endGroupHandle: 11, uuid: BluetoothUUID(0x180D)), mtu: 23); #expect(appended) }
        // 2 + 3 × 6 = 20; a fourth needs 26.
        do { let appended = response.append(.init(handle: 12, endGroupHandle: 13, uuid: BluetoothUUID(0x180F)), mtu: 23); #expect(!appended) }
        #expect(response.entries.map(\.uuid) == [BluetoothUUID(0x1800), BluetoothUUID(0x1801), BluetoothUUID(0x180D)])
    }

    @Test func readByGroupType128BitEntryRoundTrips() throws {
        var response = ATTReadByGroupTypeResponse()
        do { let appended = response.append(.init(handle: 0x20, endGroupHandle: 0x2F, uuid: nordicUARTService), mtu: 23); #expect(appended) }
        let wire = encoded(response)
        #expect(wire == bytes("11 14 20 00 2f 00 " + nordicUARTLE))
        #expect(try decodePDU(wire) == .readByGroupTypeResponse(response))
        #expect(response.entry(at: 0) == .init(handle: 0x20, endGroupHandle: 0x2F, uuid: nordicUARTService))
    }

    @Test func findByTypeValueBuilderFillsTheMTU() {
        var response = ATTFindByTypeValueResponse()
        var handle: UInt16 = 1
        while response.append(.init(handle: handle, endGroupHandle: handle + 1), mtu: 23) { handle += 2 }
        #expect(response.count == 5)
        #expect(response.entries.last == .init(handle: 9, endGroupHandle: 10))
    }

    @Test func listsAtTheLargestMTURoundTrip() throws {
        var response = ATTFindByTypeValueResponse()
        var handle: UInt16 = 1
        while response.append(.init(handle: handle, endGroupHandle: handle), mtu: ATT.maximumMTU) { handle += 1 }
        #expect(response.count == 129)
        let wire = encoded(response)
        #expect(wire.count == 517)
        #expect(try decodePDU(wire) == .findByTypeValueResponse(response))
    }

    @Test func readMultipleRequestListsItsHandles() {
        let request = ATTReadMultipleRequest(handles: [3, 5, 9])
        #expect(request.handles == [3, 5, 9])
        #expect(encoded(request) == bytes("0e 03 00 05 00 09 00"))
    }
}

@Suite struct ATTTupleListTests {
    @Test func readMultipleVariableResponseCutsTheLastValueAtTheMTU() {
        var response = ATTReadMultipleVariableResponse()
        let long = [UInt8](repeating: 0x41, count: 30)
        do { let appended = bytes("64").withUnsafeBytes { response.append($0, mtu: 23) }; #expect(appended) }
        do { let appended = long.withUnsafeBytes { response.append($0, mtu: 23) }; #expect(appended) }
        do { let appended = bytes("01").withUnsafeBytes { response.append($0, mtu: 23) }; #expect(!appended) }
        #expect(encoded(response).count == 23)
        var seen: [(Int, Int)] = []
        response.forEachValue { length, value in seen.append((length, value.count)) }
        #expect(seen.map(\.0) == [1, 30])
        #expect(seen.map(\.1) == [1, 17])
    }

    @Test func readMultipleVariableResponseToleratesAHalfLengthField() throws {
        guard case .readMultipleVariableResponse(let response) = try decodePDU(bytes("21 01 00 64 04")) else {
            Issue.record("wrong case"); return
        }
        var count = 0
        response.forEachValue { _, _ in count += 1 }
        #expect(count == 1)
    }

    @Test func multipleNotificationTuplesMustBeWhole() {
        #expect(throws: ParseError(.truncated, at: 5, field: "attribute value")) {
            _ = try decodePDU(bytes("23 12 00 03 00 06 52"))
        }
        #expect(throws: ParseError(.truncated, at: 1, field: "attribute handle")) { _ = try decodePDU(bytes("23")) }
        #expect(throws: ParseError(.invalidValue, at: 7, field: "attribute handle")) {
            _ = try decodePDU(bytes("23 12 00 02 00 06 52 00 00 01 00 5a"))
        }
    }

    @Test func multipleNotificationIteratesHandlesAndValues() {
        var seen: [(UInt16, [UInt8])] = []
        heartRateAndBattery().forEachValue { handle, value in seen.append((handle, Array(value))) }
        #expect(seen.map(\.0) == [0x12, 0x2E])
        #expect(seen.map(\.1) == [bytes("06 52"), bytes("5a")])
    }

    @Test func signedWriteNeedsTheWholeSignature() {
        #expect(throws: ParseError(.truncated, at: 3, field: "authentication signature")) {
            _ = try decodePDU(bytes("d2 2e 00 01 02 03"))
        }
    }
}
