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
        var parser = Parser(input: input)
        try ATTPDUTable.visit(ATTOpcode(rawValue: try input.peekUInt8("opcode")), &parser)
        input = parser.input
        self = parser.decoded
    }

    /// Decodes the PDU the table's row names into one destination. Why one destination, and
    /// the payload decoded out of line: when each case decoded in place (or returned its PDU),
    /// every case got its own stack slots for its payload and its `ATTPDU` (a 516-byte parameter
    /// buffer each), and `init(parsing:)` reserved 12-19 KB of stack on the Cortex-M4. Now the
    /// parser holds one `ATTPDU` and only the payload being decoded is on the stack, in
    /// `decode(_:into:as:)`'s frame.
    struct Parser: ATTPDUTableVisitor {
        typealias Failure = ParseError
        var input: ByteCursor
        var decoded = ATTPDU.handleValueConfirmation(ATTHandleValueConfirmation())

        mutating func visit<PDU: ATTPDUType>(_ entry: ATTPDUEntry, _ type: PDU.Type, wrap: (PDU) -> ATTPDU) throws(ParseError) {
            try ATTPDU.decode(&input, into: &decoded, as: wrap)
        }

        mutating func visitUnknown(_ opcode: ATTOpcode) throws(ParseError) {
            try input.skip(1, "opcode")
            decoded = .unknown(opcode, try input.readParameters("parameters"))
        }
    }

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

    /// Whether a server decodes a PDU with this opcode at all: not one only a server sends (a
    /// response, a notification, an indication), nor Signed Write Command (no bond here carries
    /// a signing key). A server ignores those whatever their layout.
    public static func isDecodedByServer(_ opcode: ATTOpcode) -> Bool {
        opcode != .signedWriteCommand && opcode.kind?.direction != .serverToClient
    }

    /// Decodes one whole PDU a client sent to a server (``isDecodedByServer(_:)``); one a server
    /// does not decode fails at its opcode. What a GATT server parses with: a peripheral's image
    /// then carries no decoder of the PDUs only a client reads.
    public init(clientPDU bytes: UnsafeRawBufferPointer) throws(ParseError) {
        var parser = ClientPDUParser(input: ByteCursor(bytes))
        try ATTPDUTable.visit(ATTOpcode(rawValue: try parser.input.peekUInt8("opcode")), &parser)
        try parser.input.expectEnd()
        self = parser.decoded
    }

    /// ``Parser`` for ``init(clientPDU:)``: the table's row (a constant per opcode) decides, so
    /// the server-to-client rows' decoders are never instantiated.
    struct ClientPDUParser: ATTPDUTableVisitor {
        typealias Failure = ParseError
        var input: ByteCursor
        var decoded = ATTPDU.handleValueConfirmation(ATTHandleValueConfirmation())

        mutating func visit<PDU: ATTPDUType>(_ entry: ATTPDUEntry, _ type: PDU.Type, wrap: (PDU) -> ATTPDU) throws(ParseError) {
            guard entry.direction == .clientToServer, PDU.opcode != .signedWriteCommand else {
                throw ParseError(.invalidValue, at: input.offset, field: "opcode (a PDU a server does not decode)")
            }
            try ATTPDU.decode(&input, into: &decoded, as: wrap)
        }

        mutating func visitUnknown(_ opcode: ATTOpcode) throws(ParseError) {
            try input.skip(1, "opcode")
            decoded = .unknown(opcode, try input.readParameters("parameters"))
        }
    }

    /// Calls `visitor` with the PDU this holds: the one place that takes the cases apart.
    @inlinable
    public func visitPayload<Visitor: ATTPDUPayloadVisitor>(_ visitor: inout Visitor) -> Visitor.Result {
        switch self {
        case .errorResponse(let pdu): visitor.visit(pdu)
        case .exchangeMTURequest(let pdu): visitor.visit(pdu)
        case .exchangeMTUResponse(let pdu): visitor.visit(pdu)
        case .findInformationRequest(let pdu): visitor.visit(pdu)
        case .findInformationResponse(let pdu): visitor.visit(pdu)
        case .findByTypeValueRequest(let pdu): visitor.visit(pdu)
        case .findByTypeValueResponse(let pdu): visitor.visit(pdu)
        case .readByTypeRequest(let pdu): visitor.visit(pdu)
        case .readByTypeResponse(let pdu): visitor.visit(pdu)
        case .readRequest(let pdu): visitor.visit(pdu)
        case .readResponse(let pdu): visitor.visit(pdu)
        case .readBlobRequest(let pdu): visitor.visit(pdu)
        case .readBlobResponse(let pdu): visitor.visit(pdu)
        case .readMultipleRequest(let pdu): visitor.visit(pdu)
        case .readMultipleResponse(let pdu): visitor.visit(pdu)
        case .readByGroupTypeRequest(let pdu): visitor.visit(pdu)
        case .readByGroupTypeResponse(let pdu): visitor.visit(pdu)
        case .writeRequest(let pdu): visitor.visit(pdu)
        case .writeResponse(let pdu): visitor.visit(pdu)
        case .writeCommand(let pdu): visitor.visit(pdu)
        case .prepareWriteRequest(let pdu): visitor.visit(pdu)
        case .prepareWriteResponse(let pdu): visitor.visit(pdu)
        case .executeWriteRequest(let pdu): visitor.visit(pdu)
        case .executeWriteResponse(let pdu): visitor.visit(pdu)
        case .handleValueNotification(let pdu): visitor.visit(pdu)
        case .handleValueIndication(let pdu): visitor.visit(pdu)
        case .handleValueConfirmation(let pdu): visitor.visit(pdu)
        case .readMultipleVariableRequest(let pdu): visitor.visit(pdu)
        case .readMultipleVariableResponse(let pdu): visitor.visit(pdu)
        case .multipleHandleValueNotification(let pdu): visitor.visit(pdu)
        case .signedWriteCommand(let pdu): visitor.visit(pdu)
        case .unknown(let opcode, let parameters): visitor.visitUnknown(opcode, parameters)
        }
    }

    public var opcode: ATTOpcode {
        var reader = OpcodeReader()
        return visitPayload(&reader)
    }

    public func encode(into output: inout ByteWriter) {
        var encoder = Encoder(output: output)
        visitPayload(&encoder)
        output = encoder.output
    }

    struct OpcodeReader: ATTPDUPayloadVisitor {
        func visit<PDU: ATTPDUType>(_ pdu: PDU) -> ATTOpcode { PDU.opcode }
        func visitUnknown(_ opcode: ATTOpcode, _ parameters: ATTParameterBytes) -> ATTOpcode { opcode }
    }

    struct Encoder: ATTPDUPayloadVisitor {
        var output: ByteWriter
        mutating func visit<PDU: ATTPDUType>(_ pdu: PDU) { pdu.encode(into: &output) }
        mutating func visitUnknown(_ opcode: ATTOpcode, _ parameters: ATTParameterBytes) {
            output.writeUInt8(opcode.rawValue)
            parameters.write(to: &output)
        }
    }
}

/// Something done with whichever PDU an ``ATTPDU`` holds, generic over its type
/// (``ATTPDU/visitPayload(_:)``).
public protocol ATTPDUPayloadVisitor {
    associatedtype Result
    mutating func visit<PDU: ATTPDUType>(_ pdu: PDU) -> Result
    /// An opcode without a model, and everything after it.
    mutating func visitUnknown(_ opcode: ATTOpcode, _ parameters: ATTParameterBytes) -> Result
}
