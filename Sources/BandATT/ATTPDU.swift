import BandWire

/// Any ATT PDU, decoded by its opcode (Core 5.4 Vol 3 Part F §3.4, Table 3.37).
///
/// `init(parsing:)` consumes the whole PDU: ATT has no length field, so a PDU is exactly one
/// L2CAP frame on channel 0x0004. An opcode this library does not model decodes as
/// ``unknown(_:_:)`` with its parameters intact (a server answers it with Request Not
/// Supported, a trace shows it); a modelled PDU that breaks its layout throws ``ParseError``
/// with the offset of the bad field.
public enum ATTPDU: Equatable, Sendable, WireDecodable, WireEncodable {
    case errorResponse(ATTErrorResponse)
    case exchangeMTURequest(ATTExchangeMTURequest)
    case exchangeMTUResponse(ATTExchangeMTUResponse)
    case findInformationRequest(ATTFindInformationRequest)
    case findInformationResponse(ATTFindInformationResponse)
    case findByTypeValueRequest(ATTFindByTypeValueRequest)
    case findByTypeValueResponse(ATTFindByTypeValueResponse)
    case readByTypeRequest(ATTReadByTypeRequest)
    case readByTypeResponse(ATTReadByTypeResponse)
    case readRequest(ATTReadRequest)
    case readResponse(ATTReadResponse)
    case readBlobRequest(ATTReadBlobRequest)
    case readBlobResponse(ATTReadBlobResponse)
    case readMultipleRequest(ATTReadMultipleRequest)
    case readMultipleResponse(ATTReadMultipleResponse)
    case readByGroupTypeRequest(ATTReadByGroupTypeRequest)
    case readByGroupTypeResponse(ATTReadByGroupTypeResponse)
    case writeRequest(ATTWriteRequest)
    case writeResponse(ATTWriteResponse)
    case writeCommand(ATTWriteCommand)
    case prepareWriteRequest(ATTPrepareWriteRequest)
    case prepareWriteResponse(ATTPrepareWriteResponse)
    case executeWriteRequest(ATTExecuteWriteRequest)
    case executeWriteResponse(ATTExecuteWriteResponse)
    case handleValueNotification(ATTHandleValueNotification)
    case handleValueIndication(ATTHandleValueIndication)
    case handleValueConfirmation(ATTHandleValueConfirmation)
    case readMultipleVariableRequest(ATTReadMultipleVariableRequest)
    case readMultipleVariableResponse(ATTReadMultipleVariableResponse)
    case multipleHandleValueNotification(ATTMultipleHandleValueNotification)
    case signedWriteCommand(ATTSignedWriteCommand)
    /// An opcode without a model here (none in Core 5.4 Table 3.37), and everything after it.
    case unknown(ATTOpcode, ATTParameterBytes)

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        let opcode = ATTOpcode(rawValue: try input.peekUInt8("opcode"))
        switch opcode {
        case .errorResponse: self = .errorResponse(try ATTErrorResponse(parsing: &input))
        case .exchangeMTURequest: self = .exchangeMTURequest(try ATTExchangeMTURequest(parsing: &input))
        case .exchangeMTUResponse: self = .exchangeMTUResponse(try ATTExchangeMTUResponse(parsing: &input))
        case .findInformationRequest: self = .findInformationRequest(try ATTFindInformationRequest(parsing: &input))
        case .findInformationResponse: self = .findInformationResponse(try ATTFindInformationResponse(parsing: &input))
        case .findByTypeValueRequest: self = .findByTypeValueRequest(try ATTFindByTypeValueRequest(parsing: &input))
        case .findByTypeValueResponse: self = .findByTypeValueResponse(try ATTFindByTypeValueResponse(parsing: &input))
        case .readByTypeRequest: self = .readByTypeRequest(try ATTReadByTypeRequest(parsing: &input))
        case .readByTypeResponse: self = .readByTypeResponse(try ATTReadByTypeResponse(parsing: &input))
        case .readRequest: self = .readRequest(try ATTReadRequest(parsing: &input))
        case .readResponse: self = .readResponse(try ATTReadResponse(parsing: &input))
        case .readBlobRequest: self = .readBlobRequest(try ATTReadBlobRequest(parsing: &input))
        case .readBlobResponse: self = .readBlobResponse(try ATTReadBlobResponse(parsing: &input))
        case .readMultipleRequest: self = .readMultipleRequest(try ATTReadMultipleRequest(parsing: &input))
        case .readMultipleResponse: self = .readMultipleResponse(try ATTReadMultipleResponse(parsing: &input))
        case .readByGroupTypeRequest: self = .readByGroupTypeRequest(try ATTReadByGroupTypeRequest(parsing: &input))
        case .readByGroupTypeResponse: self = .readByGroupTypeResponse(try ATTReadByGroupTypeResponse(parsing: &input))
        case .writeRequest: self = .writeRequest(try ATTWriteRequest(parsing: &input))
        case .writeResponse: self = .writeResponse(try ATTWriteResponse(parsing: &input))
        case .writeCommand: self = .writeCommand(try ATTWriteCommand(parsing: &input))
        case .prepareWriteRequest: self = .prepareWriteRequest(try ATTPrepareWriteRequest(parsing: &input))
        case .prepareWriteResponse: self = .prepareWriteResponse(try ATTPrepareWriteResponse(parsing: &input))
        case .executeWriteRequest: self = .executeWriteRequest(try ATTExecuteWriteRequest(parsing: &input))
        case .executeWriteResponse: self = .executeWriteResponse(try ATTExecuteWriteResponse(parsing: &input))
        case .handleValueNotification: self = .handleValueNotification(try ATTHandleValueNotification(parsing: &input))
        case .handleValueIndication: self = .handleValueIndication(try ATTHandleValueIndication(parsing: &input))
        case .handleValueConfirmation: self = .handleValueConfirmation(try ATTHandleValueConfirmation(parsing: &input))
        case .readMultipleVariableRequest: self = .readMultipleVariableRequest(try ATTReadMultipleVariableRequest(parsing: &input))
        case .readMultipleVariableResponse: self = .readMultipleVariableResponse(try ATTReadMultipleVariableResponse(parsing: &input))
        case .multipleHandleValueNotification: self = .multipleHandleValueNotification(try ATTMultipleHandleValueNotification(parsing: &input))
        case .signedWriteCommand: self = .signedWriteCommand(try ATTSignedWriteCommand(parsing: &input))
        default:
            try input.skip(1, "opcode")
            self = .unknown(opcode, try input.readParameters("parameters"))
        }
    }

    /// Decodes one whole PDU held in `bytes` (an L2CAP payload).
    public init(bytes: UnsafeRawBufferPointer, baseOffset: Int = 0) throws(ParseError) {
        self = try ATTPDU(parsingAll: bytes, baseOffset: baseOffset)
    }

    public var opcode: ATTOpcode {
        switch self {
        case .errorResponse: ATTErrorResponse.opcode
        case .exchangeMTURequest: ATTExchangeMTURequest.opcode
        case .exchangeMTUResponse: ATTExchangeMTUResponse.opcode
        case .findInformationRequest: ATTFindInformationRequest.opcode
        case .findInformationResponse: ATTFindInformationResponse.opcode
        case .findByTypeValueRequest: ATTFindByTypeValueRequest.opcode
        case .findByTypeValueResponse: ATTFindByTypeValueResponse.opcode
        case .readByTypeRequest: ATTReadByTypeRequest.opcode
        case .readByTypeResponse: ATTReadByTypeResponse.opcode
        case .readRequest: ATTReadRequest.opcode
        case .readResponse: ATTReadResponse.opcode
        case .readBlobRequest: ATTReadBlobRequest.opcode
        case .readBlobResponse: ATTReadBlobResponse.opcode
        case .readMultipleRequest: ATTReadMultipleRequest.opcode
        case .readMultipleResponse: ATTReadMultipleResponse.opcode
        case .readByGroupTypeRequest: ATTReadByGroupTypeRequest.opcode
        case .readByGroupTypeResponse: ATTReadByGroupTypeResponse.opcode
        case .writeRequest: ATTWriteRequest.opcode
        case .writeResponse: ATTWriteResponse.opcode
        case .writeCommand: ATTWriteCommand.opcode
        case .prepareWriteRequest: ATTPrepareWriteRequest.opcode
        case .prepareWriteResponse: ATTPrepareWriteResponse.opcode
        case .executeWriteRequest: ATTExecuteWriteRequest.opcode
        case .executeWriteResponse: ATTExecuteWriteResponse.opcode
        case .handleValueNotification: ATTHandleValueNotification.opcode
        case .handleValueIndication: ATTHandleValueIndication.opcode
        case .handleValueConfirmation: ATTHandleValueConfirmation.opcode
        case .readMultipleVariableRequest: ATTReadMultipleVariableRequest.opcode
        case .readMultipleVariableResponse: ATTReadMultipleVariableResponse.opcode
        case .multipleHandleValueNotification: ATTMultipleHandleValueNotification.opcode
        case .signedWriteCommand: ATTSignedWriteCommand.opcode
        case .unknown(let opcode, _): opcode
        }
    }

    public func encode(into output: inout ByteWriter) {
        switch self {
        case .errorResponse(let pdu): pdu.encode(into: &output)
        case .exchangeMTURequest(let pdu): pdu.encode(into: &output)
        case .exchangeMTUResponse(let pdu): pdu.encode(into: &output)
        case .findInformationRequest(let pdu): pdu.encode(into: &output)
        case .findInformationResponse(let pdu): pdu.encode(into: &output)
        case .findByTypeValueRequest(let pdu): pdu.encode(into: &output)
        case .findByTypeValueResponse(let pdu): pdu.encode(into: &output)
        case .readByTypeRequest(let pdu): pdu.encode(into: &output)
        case .readByTypeResponse(let pdu): pdu.encode(into: &output)
        case .readRequest(let pdu): pdu.encode(into: &output)
        case .readResponse(let pdu): pdu.encode(into: &output)
        case .readBlobRequest(let pdu): pdu.encode(into: &output)
        case .readBlobResponse(let pdu): pdu.encode(into: &output)
        case .readMultipleRequest(let pdu): pdu.encode(into: &output)
        case .readMultipleResponse(let pdu): pdu.encode(into: &output)
        case .readByGroupTypeRequest(let pdu): pdu.encode(into: &output)
        case .readByGroupTypeResponse(let pdu): pdu.encode(into: &output)
        case .writeRequest(let pdu): pdu.encode(into: &output)
        case .writeResponse(let pdu): pdu.encode(into: &output)
        case .writeCommand(let pdu): pdu.encode(into: &output)
        case .prepareWriteRequest(let pdu): pdu.encode(into: &output)
        case .prepareWriteResponse(let pdu): pdu.encode(into: &output)
        case .executeWriteRequest(let pdu): pdu.encode(into: &output)
        case .executeWriteResponse(let pdu): pdu.encode(into: &output)
        case .handleValueNotification(let pdu): pdu.encode(into: &output)
        case .handleValueIndication(let pdu): pdu.encode(into: &output)
        case .handleValueConfirmation(let pdu): pdu.encode(into: &output)
        case .readMultipleVariableRequest(let pdu): pdu.encode(into: &output)
        case .readMultipleVariableResponse(let pdu): pdu.encode(into: &output)
        case .multipleHandleValueNotification(let pdu): pdu.encode(into: &output)
        case .signedWriteCommand(let pdu): pdu.encode(into: &output)
        case .unknown(let opcode, let parameters):
            output.writeUInt8(opcode.rawValue)
            parameters.write(to: &output)
        }
    }
}
