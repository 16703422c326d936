import BandWire

/// What an ATT PDU is for (Core 5.4 Vol 3 Part F §3.3.2, §3.4.9), which decides who sends it and
/// what, if anything, answers it.
public enum ATTPDUKind: Hashable, Sendable {
    /// Client → server; exactly one response follows: `response`, or an Error Response.
    case request(response: ATTOpcode)
    /// Server → client: the success response closing the transaction of `request`.
    case response(request: ATTOpcode)
    /// Server → client: closes the transaction of whichever request it names.
    case errorResponse
    /// Client → server; nothing comes back, not even an Error Response.
    case command
    /// Server → client, unacknowledged.
    case notification
    /// Server → client; the client sends a Handle Value Confirmation.
    case indication
    /// Client → server: acknowledges an indication.
    case confirmation

    /// Who sends PDUs of this kind.
    public var direction: ATTPDUDirection {
        switch self {
        case .request, .command, .confirmation: return .clientToServer
        case .response, .errorResponse, .notification, .indication: return .serverToClient
        }
    }
}

/// The side of an ATT bearer that sends a PDU.
public enum ATTPDUDirection: Hashable, Sendable {
    case clientToServer
    case serverToClient
}

/// One row of ``ATTPDUTable``: an opcode's name in Core 5.4 Table 3.37 and its kind.
public struct ATTPDUEntry: Sendable {
    public let opcode: ATTOpcode
    public let name: String
    public let kind: ATTPDUKind

    @inlinable
    init(_ opcode: UInt8, _ name: String, _ kind: ATTPDUKind) {
        self.opcode = ATTOpcode(rawValue: opcode)
        self.name = name
        self.kind = kind
    }

    /// Who sends this PDU (it follows from the kind).
    @inlinable public var direction: ATTPDUDirection { kind.direction }
}

/// Something done with the row of one opcode: its entry, its PDU type and the ``ATTPDU`` case
/// that holds it. Generic, so each use is specialised (no existential, nothing allocated).
public protocol ATTPDUTableVisitor {
    associatedtype Result
    associatedtype Failure: Error
    mutating func visit<PDU: ATTPDUType>(_ entry: ATTPDUEntry, _ type: PDU.Type, wrap: (PDU) -> ATTPDU) throws(Failure) -> Result
    /// An opcode the table has no row for.
    mutating func visitUnknown(_ opcode: ATTOpcode) throws(Failure) -> Result
}

/// ATT's PDUs (Core 5.4 Vol 3 Part F §3.4, Table 3.37): the one list of opcode → name, kind
/// (and so direction), PDU type and ``ATTPDU`` case, which ``ATTPDU/init(parsing:)``,
/// ``ATTOpcode``'s properties, the GATT client and the GATT server consult instead of each
/// enumerating the opcodes (as Zephyr's `att.c` has one `handlers[]` and Bumble one
/// `@ATT_PDU.subclass` per PDU).
///
/// A `switch` rather than an array: it needs no storage to initialise (the firmware allocates
/// nothing, ever), compiles to a jump table, and a lookup that only wants the kind is reduced
/// to that by the optimiser.
public enum ATTPDUTable {
    @inlinable
    public static func visit<Visitor: ATTPDUTableVisitor>(
        _ opcode: ATTOpcode, _ visitor: inout Visitor
    ) throws(Visitor.Failure) -> Visitor.Result {
        switch opcode.rawValue {
        case 0x01: try visitor.visit(ATTPDUEntry(0x01, "Error Response", .errorResponse), ATTErrorResponse.self, wrap: ATTPDU.errorResponse)
        case 0x02: try visitor.visit(ATTPDUEntry(0x02, "Exchange MTU Request", .request(response: .exchangeMTUResponse)),
                                     ATTExchangeMTURequest.self, wrap: ATTPDU.exchangeMTURequest)
        case 0x03: try visitor.visit(ATTPDUEntry(0x03, "Exchange MTU Response", .response(request: .exchangeMTURequest)),
                                     ATTExchangeMTUResponse.self, wrap: ATTPDU.exchangeMTUResponse)
        case 0x04: try visitor.visit(ATTPDUEntry(0x04, "Find Information Request", .request(response: .findInformationResponse)),
                                     ATTFindInformationRequest.self, wrap: ATTPDU.findInformationRequest)
        case 0x05: try visitor.visit(ATTPDUEntry(0x05, "Find Information Response", .response(request: .findInformationRequest)),
                                     ATTFindInformationResponse.self, wrap: ATTPDU.findInformationResponse)
        case 0x06: try visitor.visit(ATTPDUEntry(0x06, "Find By Type Value Request", .request(response: .findByTypeValueResponse)),
                                     ATTFindByTypeValueRequest.self, wrap: ATTPDU.findByTypeValueRequest)
        case 0x07: try visitor.visit(ATTPDUEntry(0x07, "Find By Type Value Response", .response(request: .findByTypeValueRequest)),
                                     ATTFindByTypeValueResponse.self, wrap: ATTPDU.findByTypeValueResponse)
        case 0x08: try visitor.visit(ATTPDUEntry(0x08, "Read By Type Request", .request(response: .readByTypeResponse)),
                                     ATTReadByTypeRequest.self, wrap: ATTPDU.readByTypeRequest)
        case 0x09: try visitor.visit(ATTPDUEntry(0x09, "Read By Type Response", .response(request: .readByTypeRequest)),
                                     ATTReadByTypeResponse.self, wrap: ATTPDU.readByTypeResponse)
        case 0x0A: try visitor.visit(ATTPDUEntry(0x0A, "Read Request", .request(response: .readResponse)),
                                     ATTReadRequest.self, wrap: ATTPDU.readRequest)
        case 0x0B: try visitor.visit(ATTPDUEntry(0x0B, "Read Response", .response(request: .readRequest)),
                                     ATTReadResponse.self, wrap: ATTPDU.readResponse)
        case 0x0C: try visitor.visit(ATTPDUEntry(0x0C, "Read Blob Request", .request(response: .readBlobResponse)),
                                     ATTReadBlobRequest.self, wrap: ATTPDU.readBlobRequest)
        case 0x0D: try visitor.visit(ATTPDUEntry(0x0D, "Read Blob Response", .response(request: .readBlobRequest)),
                                     ATTReadBlobResponse.self, wrap: ATTPDU.readBlobResponse)
        case 0x0E: try visitor.visit(ATTPDUEntry(0x0E, "Read Multiple Request", .request(response: .readMultipleResponse)),
                                     ATTReadMultipleRequest.self, wrap: ATTPDU.readMultipleRequest)
        case 0x0F: try visitor.visit(ATTPDUEntry(0x0F, "Read Multiple Response", .response(request: .readMultipleRequest)),
                                     ATTReadMultipleResponse.self, wrap: ATTPDU.readMultipleResponse)
        case 0x10: try visitor.visit(ATTPDUEntry(0x10, "Read By Group Type Request", .request(response: .readByGroupTypeResponse)),
                                     ATTReadByGroupTypeRequest.self, wrap: ATTPDU.readByGroupTypeRequest)
        case 0x11: try visitor.visit(ATTPDUEntry(0x11, "Read By Group Type Response", .response(request: .readByGroupTypeRequest)),
                                     ATTReadByGroupTypeResponse.self, wrap: ATTPDU.readByGroupTypeResponse)
        case 0x12: try visitor.visit(ATTPDUEntry(0x12, "Write Request", .request(response: .writeResponse)),
                                     ATTWriteRequest.self, wrap: ATTPDU.writeRequest)
        case 0x13: try visitor.visit(ATTPDUEntry(0x13, "Write Response", .response(request: .writeRequest)),
                                     ATTWriteResponse.self, wrap: ATTPDU.writeResponse)
        case 0x16: try visitor.visit(ATTPDUEntry(0x16, "Prepare Write Request", .request(response: .prepareWriteResponse)),
                                     ATTPrepareWriteRequest.self, wrap: ATTPDU.prepareWriteRequest)
        case 0x17: try visitor.visit(ATTPDUEntry(0x17, "Prepare Write Response", .response(request: .prepareWriteRequest)),
                                     ATTPrepareWriteResponse.self, wrap: ATTPDU.prepareWriteResponse)
        case 0x18: try visitor.visit(ATTPDUEntry(0x18, "Execute Write Request", .request(response: .executeWriteResponse)),
                                     ATTExecuteWriteRequest.self, wrap: ATTPDU.executeWriteRequest)
        case 0x19: try visitor.visit(ATTPDUEntry(0x19, "Execute Write Response", .response(request: .executeWriteRequest)),
                                     ATTExecuteWriteResponse.self, wrap: ATTPDU.executeWriteResponse)
        case 0x1B: try visitor.visit(ATTPDUEntry(0x1B, "Handle Value Notification", .notification),
                                     ATTHandleValueNotification.self, wrap: ATTPDU.handleValueNotification)
        case 0x1D: try visitor.visit(ATTPDUEntry(0x1D, "Handle Value Indication", .indication),
                                     ATTHandleValueIndication.self, wrap: ATTPDU.handleValueIndication)
        case 0x1E: try visitor.visit(ATTPDUEntry(0x1E, "Handle Value Confirmation", .confirmation),
                                     ATTHandleValueConfirmation.self, wrap: ATTPDU.handleValueConfirmation)
        case 0x20: try visitor.visit(ATTPDUEntry(0x20, "Read Multiple Variable Request", .request(response: .readMultipleVariableResponse)),
                                     ATTReadMultipleVariableRequest.self, wrap: ATTPDU.readMultipleVariableRequest)
        case 0x21: try visitor.visit(ATTPDUEntry(0x21, "Read Multiple Variable Response", .response(request: .readMultipleVariableRequest)),
                                     ATTReadMultipleVariableResponse.self, wrap: ATTPDU.readMultipleVariableResponse)
        case 0x23: try visitor.visit(ATTPDUEntry(0x23, "Multiple Handle Value Notification", .notification),
                                     ATTMultipleHandleValueNotification.self, wrap: ATTPDU.multipleHandleValueNotification)
        case 0x52: try visitor.visit(ATTPDUEntry(0x52, "Write Command", .command), ATTWriteCommand.self, wrap: ATTPDU.writeCommand)
        case 0xD2: try visitor.visit(ATTPDUEntry(0xD2, "Signed Write Command", .command), ATTSignedWriteCommand.self, wrap: ATTPDU.signedWriteCommand)
        default: try visitor.visitUnknown(opcode)
        }
    }

    /// The row of `opcode`; nil for opcodes Core 5.4 Table 3.37 does not define.
    @inlinable
    public static func entry(_ opcode: ATTOpcode) -> ATTPDUEntry? {
        var lookup = EntryLookup()
        return visit(opcode, &lookup)
    }

    /// The kind of `opcode`; nil for opcodes Core 5.4 Table 3.37 does not define. What the
    /// per-PDU paths ask (the trace decoder's discovery, client and server dispatch): its own
    /// lookup, so the name a row carries is never built for it.
    @inlinable
    public static func kind(_ opcode: ATTOpcode) -> ATTPDUKind? {
        var lookup = KindLookup()
        return visit(opcode, &lookup)
    }

    @usableFromInline
    struct KindLookup: ATTPDUTableVisitor {
        @usableFromInline typealias Failure = Never
        @inlinable init() {}
        @inlinable
        func visit<PDU: ATTPDUType>(_ entry: ATTPDUEntry, _ type: PDU.Type, wrap: (PDU) -> ATTPDU) -> ATTPDUKind? { entry.kind }
        @inlinable
        func visitUnknown(_ opcode: ATTOpcode) -> ATTPDUKind? { nil }
    }

    @usableFromInline
    struct EntryLookup: ATTPDUTableVisitor {
        @usableFromInline typealias Failure = Never
        @inlinable init() {}
        @inlinable
        func visit<PDU: ATTPDUType>(_ entry: ATTPDUEntry, _ type: PDU.Type, wrap: (PDU) -> ATTPDU) -> ATTPDUEntry? { entry }
        @inlinable
        func visitUnknown(_ opcode: ATTOpcode) -> ATTPDUEntry? { nil }
    }
}
