import BandATT
import Testing

@Suite struct ATTOpcodeTests {
    @Test func everyRequestMapsToTheResponseOneHigherAndBack() {
        let pairs: [(ATTOpcode, ATTOpcode)] = [
            (.exchangeMTURequest, .exchangeMTUResponse), (.findInformationRequest, .findInformationResponse),
            (.findByTypeValueRequest, .findByTypeValueResponse), (.readByTypeRequest, .readByTypeResponse),
            (.readRequest, .readResponse), (.readBlobRequest, .readBlobResponse),
            (.readMultipleRequest, .readMultipleResponse), (.readByGroupTypeRequest, .readByGroupTypeResponse),
            (.writeRequest, .writeResponse), (.prepareWriteRequest, .prepareWriteResponse),
            (.executeWriteRequest, .executeWriteResponse),
            (.readMultipleVariableRequest, .readMultipleVariableResponse),
        ]
        for (request, response) in pairs {
            #expect(request.isRequest && !request.isResponse, "\(request)")
            #expect(response.isResponse && !response.isRequest, "\(response)")
            #expect(request.responseOpcode == response)
            #expect(response.requestOpcode == request)
        }
    }

    @Test func commandsNotificationsAndIndicationsAreNeitherRequestsNorResponses() {
        for opcode in [ATTOpcode.writeCommand, .signedWriteCommand, .handleValueNotification,
                       .handleValueIndication, .handleValueConfirmation, .multipleHandleValueNotification] {
            #expect(!opcode.isRequest, "\(opcode)")
            #expect(opcode.responseOpcode == nil)
            #expect(opcode.requestOpcode == nil)
        }
        #expect(ATTOpcode.errorResponse.isResponse)
        #expect(ATTOpcode.errorResponse.requestOpcode == nil)
    }

    @Test func commandFlagIsBit6AndSignatureFlagIsBit7() {
        #expect(ATTOpcode.writeCommand.isCommand)
        #expect(!ATTOpcode.writeCommand.hasAuthenticationSignature)
        #expect(ATTOpcode.signedWriteCommand.isCommand)
        #expect(ATTOpcode.signedWriteCommand.hasAuthenticationSignature)
        #expect(ATTOpcode.signedWriteCommand.method == ATTOpcode.writeRequest.method)
        #expect(ATTOpcode.writeCommand.method == ATTOpcode.writeRequest.method)
        #expect(!ATTOpcode.writeRequest.isCommand)
    }

    @Test func opcodeValuesMatchCoreTable3_37() {
        let expected: [(ATTOpcode, UInt8)] = [
            (.errorResponse, 0x01), (.exchangeMTURequest, 0x02), (.exchangeMTUResponse, 0x03),
            (.findInformationRequest, 0x04), (.findInformationResponse, 0x05),
            (.findByTypeValueRequest, 0x06), (.findByTypeValueResponse, 0x07),
            (.readByTypeRequest, 0x08), (.readByTypeResponse, 0x09), (.readRequest, 0x0A),
            (.readResponse, 0x0B), (.readBlobRequest, 0x0C), (.readBlobResponse, 0x0D),
            (.readMultipleRequest, 0x0E), (.readMultipleResponse, 0x0F),
            (.readByGroupTypeRequest, 0x10), (.readByGroupTypeResponse, 0x11), (.writeRequest, 0x12),
            (.writeResponse, 0x13), (.prepareWriteRequest, 0x16), (.prepareWriteResponse, 0x17),
            (.executeWriteRequest, 0x18), (.executeWriteResponse, 0x19),
            (.handleValueNotification, 0x1B), (.handleValueIndication, 0x1D),
            (.handleValueConfirmation, 0x1E), (.readMultipleVariableRequest, 0x20),
            (.readMultipleVariableResponse, 0x21), (.multipleHandleValueNotification, 0x23),
            (.writeCommand, 0x52), (.signedWriteCommand, 0xD2),
        ]
        for (opcode, raw) in expected {
            #expect(opcode.rawValue == raw)
            #expect(opcode.name != nil)
        }
    }

    @Test func unknownOpcodeKeepsItsValueAndPrintsAsHex() {
        let opcode = ATTOpcode(rawValue: 0x42)
        #expect(opcode.rawValue == 0x42)
        #expect(opcode.name == nil)
        #expect(opcode.description == "opcode 0x42")
        #expect(ATTOpcode.readRequest.description == "Read Request (0x0a)")
    }

    @Test func errorCodesCoverTable3_4AndTheCommonProfileRange() {
        #expect(ATTErrorCode.invalidHandle.rawValue == 0x01)
        #expect(ATTErrorCode.attributeNotFound.rawValue == 0x0A)
        #expect(ATTErrorCode.valueNotAllowed.rawValue == 0x13)
        #expect(ATTErrorCode.cccdImproperlyConfigured.rawValue == 0xFD)
        #expect(ATTErrorCode.outOfRange.rawValue == 0xFF)
        for raw in UInt8(0x01)...0x13 {
            #expect(ATTErrorCode(rawValue: raw).name != "Reserved", "0x\(raw)")
        }
        #expect(ATTErrorCode(rawValue: 0x14).name == "Reserved")
        #expect(ATTErrorCode(rawValue: 0x7F).name == "Reserved")
    }

    @Test func applicationErrorsSpan0x80To0x9F() {
        #expect(ATTErrorCode.application(0).rawValue == 0x80)
        #expect(ATTErrorCode.application(0x1F).rawValue == 0x9F)
        #expect(ATTErrorCode(rawValue: 0x80).isApplicationError)
        #expect(ATTErrorCode(rawValue: 0x9F).isApplicationError)
        #expect(!ATTErrorCode(rawValue: 0xA0).isApplicationError)
        #expect(!ATTErrorCode(rawValue: 0x7F).isApplicationError)
        #expect(ATTErrorCode(rawValue: 0xFE).isCommonProfileError)
        #expect(ATTErrorCode.attributeNotFound.description == "Attribute Not Found (0x0a)")
    }

    @Test func mtuNegotiationTakesTheSmallerButNeverBelow23() {
        #expect(negotiatedATTMTU(client: 247, server: 185) == 185)
        #expect(negotiatedATTMTU(client: 517, server: 517) == 517)
        #expect(negotiatedATTMTU(client: 10, server: 517) == 23)
        #expect(ATT.defaultLEMTU == 23)
        #expect(ATT.maximumMTU == 517)
        #expect(ATT.maximumAttributeValueLength == 512)
    }
}
