import BandATT
import BandTestSupport
import BandWire
import Testing

/// Deliberately broken PDUs: each must fail with the right kind of error at the right byte.
@Suite struct ATTMalformedPDUTests {
    static let allTypes: [any ATTPDUType.Type] = [
        ATTErrorResponse.self, ATTExchangeMTURequest.self, ATTExchangeMTUResponse.self,
        ATTFindInformationRequest.self, ATTFindInformationResponse.self, ATTFindByTypeValueRequest.self,
        ATTFindByTypeValueResponse.self, ATTReadByTypeRequest.self, ATTReadByTypeResponse.self,
        ATTReadRequest.self, ATTReadResponse.self, ATTReadBlobRequest.self, ATTReadBlobResponse.self,
        ATTReadMultipleRequest.self, ATTReadMultipleResponse.self, ATTReadByGroupTypeRequest.self,
        ATTReadByGroupTypeResponse.self, ATTWriteRequest.self, ATTWriteResponse.self, ATTWriteCommand.self,
        ATTPrepareWriteRequest.self, ATTPrepareWriteResponse.self, ATTExecuteWriteRequest.self,
        ATTExecuteWriteResponse.self, ATTHandleValueNotification.self, ATTHandleValueIndication.self,
        ATTHandleValueConfirmation.self, ATTSignedWriteCommand.self, ATTReadMultipleVariableRequest.self,
        ATTReadMultipleVariableResponse.self, ATTMultipleHandleValueNotification.self,
    ]

    /// The vector for each type, so every type is fed otherwise valid bytes.
    static func vector(for type: any ATTPDUType.Type) -> [UInt8] {
        bytes(pduVectors.first { bytes($0.hex)[0] == type.opcode.rawValue }!.hex)
    }

    @Test func everyPDUTypeRejectsAnotherOpcodeAtOffset0() {
        for type in Self.allTypes {
            var input = Self.vector(for: type)
            input[0] = type.opcode == .readRequest ? 0x0B : ATTOpcode.readRequest.rawValue
            #expect(throws: ParseError(.invalidValue, at: 0, field: "opcode"), "\(type)") {
                _ = try type.init(parsingAll: input)
            }
        }
    }

    @Test func everyPDUTypeHasAVectorAndTheDispatchAgreesOnItsOpcode() throws {
        for type in Self.allTypes {
            let pdu = try decodePDU(Self.vector(for: type))
            #expect(pdu.opcode == type.opcode)
        }
    }

    @Test(arguments: [
        "01 0a 29 00 0a 00", "02 f7 00 00", "03 17 00 00", "04 01 00 ff ff 00", "0a 03 00 00",
        "0c 03 00 16 00 00", "13 00", "18 01 00", "19 00", "1e 00",
    ])
    func fixedSizePDUsRejectTrailingBytes(_ hex: String) {
        let input = bytes(hex)
        let error = #expect(throws: ParseError.self) { _ = try decodePDU(input) }
        #expect(error?.kind == .trailingBytes)
        #expect(error?.offset == input.count - 1)
    }

    @Test func typeUUIDOfAnyOtherWidthIsRejected() {
        // 16 + 1 bytes after the range: the UUID ends at 16 and one byte trails.
        #expect(throws: ParseError(.trailingBytes, at: 21, field: "attribute type")) {
            _ = try decodePDU(bytes("08 01 00 ff ff " + nordicUARTLE + " 00"))
        }
        // 4 bytes: a 32-bit UUID never appears in ATT (Vol 3 Part F §3.2.1); read as a cut 128-bit one.
        #expect(throws: ParseError(.truncated, at: 5, field: "attribute group type")) { _ = try decodePDU(bytes("10 01 00 ff ff 00 28 00 00")) }
    }

    @Test func findInformationFormatMustBe1Or2() {
        #expect(throws: ParseError(.invalidValue, at: 1, field: "format")) { _ = try decodePDU(bytes("05 03 2c 00 02 29")) }
        #expect(throws: ParseError(.invalidValue, at: 1, field: "format")) { _ = try decodePDU(bytes("05 00 2c 00 02 29")) }
    }

    @Test func listEntriesMayNotNameHandleZero() {
        #expect(throws: ParseError(.invalidValue, at: 6, field: "handle")) { _ = try decodePDU(bytes("05 01 2c 00 02 29 00 00 01 29")) }
        #expect(throws: ParseError(.invalidValue, at: 2, field: "attribute handle")) {
            _ = try decodePDU(bytes("09 07 00 00 02 03 00 00 2a"))
        }
        #expect(throws: ParseError(.invalidValue, at: 2, field: "attribute handle")) {
            _ = try decodePDU(bytes("11 06 00 00 07 00 00 18"))
        }
        #expect(throws: ParseError(.invalidValue, at: 1, field: "found attribute handle")) { _ = try decodePDU(bytes("07 00 00 15 00")) }
    }

    @Test func groupMayNotEndBeforeItStarts() {
        #expect(throws: ParseError(.invalidValue, at: 3, field: "group end handle")) { _ = try decodePDU(bytes("07 10 00 0f 00")) }
        #expect(throws: ParseError(.invalidValue, at: 10, field: "end group handle")) {
            _ = try decodePDU(bytes("11 06 01 00 07 00 00 18 08 00 07 00 01 18"))
        }
    }

    @Test func readByTypeLengthBelow2IsInvalid() {
        #expect(throws: ParseError(.invalidValue, at: 1, field: "length")) { _ = try decodePDU(bytes("09 01 02")) }
        #expect(throws: ParseError(.invalidValue, at: 1, field: "length")) { _ = try decodePDU(bytes("09 00")) }
    }

    @Test func readByTypeDataMustBeAWholeNumberOfPairs() {
        // Length 7, then 7 + 3 bytes: the second pair is cut at offset 9.
        #expect(throws: ParseError(.truncated, at: 9, field: "attribute data list")) {
            _ = try decodePDU(bytes("09 07 02 00 02 03 00 00 2a 04 00 02"))
        }
    }

    @Test func readByTypeWithEmptyValuesIsLegal() throws {
        let pdu = try decodePDU(bytes("09 02 05 00 06 00"))
        guard case .readByTypeResponse(let response) = pdu else { Issue.record("wrong case"); return }
        #expect(response.count == 2)
        #expect(response.entries.map(\.handle) == [5, 6])
        #expect(response.entry(at: 1).value.isEmpty)
    }

    @Test func readByGroupTypeLengthMustBe6Or20() {
        for length: UInt8 in [0, 4, 5, 7, 8, 19, 21, 255] {
            var input = bytes("11 00 01 00 07 00 00 18")
            input[1] = length
            #expect(throws: ParseError(.invalidValue, at: 1, field: "length"), "length \(length)") { _ = try decodePDU(input) }
        }
    }

    @Test func readMultipleRequestNeedsTwoWholeHandles() {
        #expect(throws: ParseError(.truncated, at: 1, field: "set of handles")) { _ = try decodePDU(bytes("0e 03 00")) }
        #expect(throws: ParseError(.truncated, at: 5, field: "attribute handle")) { _ = try decodePDU(bytes("0e 03 00 05 00 07")) }
        #expect(throws: Never.self) { _ = try decodePDU(bytes("0e 03 00 05 00 07 00")) }
    }

    @Test func notificationAndIndicationMayNotUseTheReservedHandle() {
        #expect(throws: ParseError(.invalidValue, at: 1, field: "attribute handle")) { _ = try decodePDU(bytes("1b 00 00 06 52")) }
        #expect(throws: ParseError(.invalidValue, at: 1, field: "attribute handle")) { _ = try decodePDU(bytes("1d 00 00 01")) }
    }

    @Test func requestsKeepInvalidRangesAndHandlesForTheServerToAnswer() throws {
        guard case .findInformationRequest(let request) = try decodePDU(bytes("04 00 00 ff ff")) else {
            Issue.record("wrong case"); return
        }
        #expect(!request.range.isValid)
        #expect(!ATTHandleRange(start: 5, end: 4).isValid)
        #expect(ATTHandleRange(start: 5, end: 5).isValid)
        #expect(try decodePDU(bytes("0a 00 00")) == .readRequest(.init(handle: 0)))
    }

    @Test func valueLongerThan512BytesIsInvalidAtByte512OfTheValue() {
        let input = bytes("12 2c 00") + [UInt8](repeating: 0x55, count: 513)
        #expect(throws: ParseError(.invalidValue, at: 3 + 512, field: "attribute value")) { _ = try decodePDU(input) }
        #expect(throws: Never.self) { _ = try decodePDU(Array(input.dropLast())) }
    }

    @Test func unknownPDULongerThanTheLargestMTUIsInvalid() {
        let input: [UInt8] = [0x42] + [UInt8](repeating: 0, count: 517)
        #expect(throws: ParseError(.invalidValue, at: 517, field: "parameters")) { _ = try decodePDU(input) }
        #expect(throws: Never.self) { _ = try decodePDU(Array(input.dropLast())) }
    }

    @Test func openValuesSurviveARoundTrip() throws {
        let input = bytes("01 77 34 12 c3")
        let pdu = try decodePDU(input)
        #expect(pdu == .errorResponse(.init(requestOpcode: ATTOpcode(rawValue: 0x77), handle: 0x1234,
                                            error: ATTErrorCode(rawValue: 0xC3))))
        #expect(encoded(pdu) == input)
        let flags = try decodePDU(bytes("18 07"))
        #expect(flags == .executeWriteRequest(.init(flags: .init(rawValue: 7))))
        #expect(encoded(flags) == bytes("18 07"))
    }

    @Test func emptyInputIsTruncatedAtTheOpcode() {
        #expect(throws: ParseError(.truncated, at: 0, field: "opcode")) { _ = try decodePDU([]) }
    }
}
