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
        // One destination for every case (see `decode(_:into:as:)`).
        var decoded = ATTPDU.handleValueConfirmation(ATTHandleValueConfirmation())
        switch opcode {
        case .errorResponse: try Self.decode(&input, into: &decoded, as: ATTPDU.errorResponse)
        case .exchangeMTURequest: try Self.decode(&input, into: &decoded, as: ATTPDU.exchangeMTURequest)
        case .exchangeMTUResponse: try Self.decode(&input, into: &decoded, as: ATTPDU.exchangeMTUResponse)
        case .findInformationRequest: try Self.decode(&input, into: &decoded, as: ATTPDU.findInformationRequest)
        case .findInformationResponse: try Self.decode(&input, into: &decoded, as: ATTPDU.findInformationResponse)
        case .findByTypeValueRequest: try Self.decode(&input, into: &decoded, as: ATTPDU.findByTypeValueRequest)
        case .findByTypeValueResponse: try Self.decode(&input, into: &decoded, as: ATTPDU.findByTypeValueResponse)
        case .readByTypeRequest: try Self.decode(&input, into: &decoded, as: ATTPDU.readByTypeRequest)
        case .readByTypeResponse: try Self.decode(&input, into: &decoded, as: ATTPDU.readByTypeResponse)
        case .readRequest: try Self.decode(&input, into: &decoded, as: ATTPDU.readRequest)
        case .readResponse: try Self.decode(&input, into: &decoded, as: ATTPDU.readResponse)
        case .readBlobRequest: try Self.decode(&input, into: &decoded, as: ATTPDU.readBlobRequest)
        case .readBlobResponse: try Self.decode(&input, into: &decoded, as: ATTPDU.readBlobResponse)
        case .readMultipleRequest: try Self.decode(&input, into: &decoded, as: ATTPDU.readMultipleRequest)
        case .readMultipleResponse: try Self.decode(&input, into: &decoded, as: ATTPDU.readMultipleResponse)
        case .readByGroupTypeRequest: try Self.decode(&input, into: &decoded, as: ATTPDU.readByGroupTypeRequest)
        case .readByGroupTypeResponse: try Self.decode(&input, into: &decoded, as: ATTPDU.readByGroupTypeResponse)
        case .writeRequest: try Self.decode(&input, into: &decoded, as: ATTPDU.writeRequest)
        case .writeResponse: try Self.decode(&input, into: &decoded, as: ATTPDU.writeResponse)
        case .writeCommand: try Self.decode(&input, into: &decoded, as: ATTPDU.writeCommand)
        case .prepareWriteRequest: try Self.decode(&input, into: &decoded, as: ATTPDU.prepareWriteRequest)
        case .prepareWriteResponse: try Self.decode(&input, into: &decoded, as: ATTPDU.prepareWriteResponse)
        case .executeWriteRequest: try Self.decode(&input, into: &decoded, as: ATTPDU.executeWriteRequest)
        case .executeWriteResponse: try Self.decode(&input, into: &decoded, as: ATTPDU.executeWriteResponse)
        case .handleValueNotification: try Self.decode(&input, into: &decoded, as: ATTPDU.handleValueNotification)
        case .handleValueIndication: try Self.decode(&input, into: &decoded, as: ATTPDU.handleValueIndication)
        case .handleValueConfirmation: try Self.decode(&input, into: &decoded, as: ATTPDU.handleValueConfirmation)
        case .readMultipleVariableRequest: try Self.decode(&input, into: &decoded, as: ATTPDU.readMultipleVariableRequest)
        case .readMultipleVariableResponse: try Self.decode(&input, into: &decoded, as: ATTPDU.readMultipleVariableResponse)
        case .multipleHandleValueNotification: try Self.decode(&input, into: &decoded, as: ATTPDU.multipleHandleValueNotification)
        case .signedWriteCommand: try Self.decode(&input, into: &decoded, as: ATTPDU.signedWriteCommand)
        default:
            try input.skip(1, "opcode")
            decoded = .unknown(opcode, try input.readParameters("parameters"))
        }
        self = decoded
    }

    /// Decodes one payload and stores it, wrapped in its case, through `destination`. Why out of
    /// line and through one `inout` destination: when each case decoded in place (or returned
    /// its PDU), every case got its own stack slots for its payload and its `ATTPDU` (a
    /// 516-byte parameter buffer each), and `init(parsing:)` reserved 12-19 KB of stack on the
    /// Cortex-M4. Now the switch holds one `ATTPDU` and only the payload being decoded is on
    /// the stack, in this function's frame.
    @inline(never)
    private static func decode<Payload: WireDecodable>(
        _ input: inout ByteCursor, into destination: inout ATTPDU, as wrap: (Payload) -> ATTPDU
    ) throws(ParseError) {
        destination = wrap(try Payload(parsing: &input))
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
