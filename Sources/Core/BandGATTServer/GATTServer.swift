import BandATT
import BandWire

/// The one ATT server of BandKit (Core 5.4 Vol 3 Part F §3.4) over any ``GATTAttributeSource``:
/// the simulated band's static table and a replay's reconstructed one.
///
/// No I/O: ``handle(_:source:into:)`` turns one client PDU into at most one response PDU in a
/// caller-owned buffer and says what the client did. The value holds only the connection's
/// ATT state (negotiated MTU); the attributes and their per-connection state (CCCDs,
/// authentication) live in the source. Written in the Embedded Swift subset: generics, typed
/// throws, no allocation, no Foundation.
///
/// | request | when | answer |
/// |---|---|---|
/// | Exchange MTU | first time | Exchange MTU Response with ``serverMTU``; ATT_MTU = max(23, min(client, server)) |
/// | Exchange MTU | again | Request Not Supported ("shall only be sent once", §3.4.2.1) |
/// | any discovery | range invalid (start 0 or start > end) | Invalid Handle (start) |
/// | any discovery | nothing of the type in the range | Attribute Not Found (start): ends the client's loop |
/// | Find By Type Value | | attributes of the type whose readable value equals the one asked for (service UUIDs compare as UUIDs, in either width) |
/// | Read By Type | first match refused by the source | that error (its handle); a later refusal ends the list (§3.4.4.1) |
/// | Read By Group Type | type other than 0x2800/0x2801 | Unsupported Group Type |
/// | Read, Read Blob | handle 0 or not in the table | Invalid Handle |
/// | Read, Read Blob | the source refuses | its error (Read Not Permitted, Insufficient Authentication…) |
/// | Read Blob | offset past the value | Invalid Offset (an offset equal to the length reads an empty part) |
/// | Read Multiple | ``answersReadMultiple`` false | Request Not Supported |
/// | Read Multiple | a handle invalid or refused | the first such error (its handle) |
/// | Write | handle invalid | Invalid Handle |
/// | Write | the source refuses | its error |
/// | Prepare/Execute Write, Read Multiple Variable, unknown requests | | Request Not Supported (handle 0, §3.4.1.1) |
/// | malformed request | | Invalid PDU (handle 0) |
///
/// Commands (Write Command, Signed Write, unknown opcodes with bit 6 set) never get a
/// response, not even an error (§3.4.9); responses, notifications and indications from a client
/// are ignored without being decoded (the event is ``GATTServerEvent/unexpected(_:)``, whatever
/// their layout), as are signed writes.
public struct GATTServer: Sendable {
    /// The Receive MTU offered in the Exchange MTU Response.
    public let serverMTU: Int
    /// ATT_MTU in force on this connection.
    public var mtu: Int { negotiatedMTU }
    /// True once the client exchanged MTUs (a second exchange is refused).
    public var mtuExchanged: Bool { exchanged }
    @usableFromInline var negotiatedMTU: Int
    @usableFromInline var exchanged = false
    /// Whether Read Multiple Request is answered (the band's firmware does not offer it).
    public let answersReadMultiple: Bool

    /// `serverMTU` is clamped to 23…517; `mtu` is the ATT_MTU the link starts with.
    public init(serverMTU: Int = ATT.maximumMTU, mtu: Int = ATT.defaultLEMTU, answersReadMultiple: Bool = true) {
        self.serverMTU = max(ATT.defaultLEMTU, min(serverMTU, ATT.maximumMTU))
        negotiatedMTU = mtu
        self.answersReadMultiple = answersReadMultiple
    }

    /// Answers `pdu`, writing the response (if one is owed) at the start of `output`, which
    /// must hold at least ``mtu`` bytes.
    @inlinable
    public mutating func handle<Source: GATTAttributeSource>(
        _ pdu: UnsafeRawBufferPointer, source: inout Source, into output: UnsafeMutableRawBufferPointer
    ) -> GATTServerResult<Source.WriteEffect> {
        precondition(output.count >= mtu, "response buffer smaller than ATT_MTU")
        guard let first = pdu.first else { return GATTServerResult(responseLength: 0, event: .none, error: nil) }
        let opcode = ATTOpcode(rawValue: first)
        var writer = ByteWriter(output)
        var event = GATTServerEvent<Source.WriteEffect>.none
        let answer = respond(to: pdu, opcode: opcode, source: &source, writer: &writer, event: &event)
        switch answer {
        case .written:
            precondition(!writer.overflowed, "response larger than the output buffer")
            return GATTServerResult(responseLength: writer.count, event: event, error: nil)
        case .failed(let error, let handle):
            var errorWriter = ByteWriter(output)
            ATTErrorResponse(requestOpcode: opcode, handle: handle, error: error).encode(into: &errorWriter)
            return GATTServerResult(responseLength: errorWriter.count, event: event, error: error)
        }
    }

    /// A request's outcome: the success response is in the writer (possibly nothing, for a
    /// command), or an Error Response naming `handle` is owed.
    @usableFromInline
    enum Answer {
        case written
        case failed(ATTErrorCode, handle: UInt16)
    }

    @inlinable
    mutating func respond<Source: GATTAttributeSource>(
        to pdu: UnsafeRawBufferPointer, opcode: ATTOpcode, source: inout Source,
        writer: inout ByteWriter, event: inout GATTServerEvent<Source.WriteEffect>
    ) -> Answer {
        guard ATTPDU.isDecodedByServer(opcode) else {
            // A response, notification or indication from the client, or a signed write: no
            // answer (§3.4.9), named by the event whatever its layout.
            event = .unexpected(opcode)
            return .written
        }
        let request: ATTPDU
        do throws(ParseError) {
            request = try ATTPDU(clientPDU: pdu)
        } catch {
            // Only a request is owed an answer (§3.4.1.1); a broken command, response or
            // confirmation is dropped.
            return opcode.isRequest ? .failed(.invalidPDU, handle: 0) : .written
        }
        switch request {
        case .exchangeMTURequest(let request):
            guard !exchanged else { return .failed(.requestNotSupported, handle: 0) }
            exchanged = true
            ATTExchangeMTUResponse(serverRxMTU: UInt16(serverMTU)).encode(into: &writer)
            // Both sides use min(client Rx MTU, server Rx MTU), never below the LE default (§3.4.2.2).
            negotiatedMTU = max(ATT.defaultLEMTU, min(Int(request.clientRxMTU), serverMTU))
            event = .exchangedMTU(mtu)
            return .written
        case .findInformationRequest(let request):
            return findInformation(request.range, source: source, writer: &writer)
        case .findByTypeValueRequest(let request):
            return findByTypeValue(request, source: source, writer: &writer)
        case .readByTypeRequest(let request):
            return readByType(request.range, type: request.attributeType, source: source, writer: &writer)
        case .readByGroupTypeRequest(let request):
            return readByGroupType(request.range, type: request.groupType, source: source, writer: &writer)
        case .readRequest(let request):
            return read(request.handle, offset: 0, response: .readResponse, source: source, writer: &writer)
        case .readBlobRequest(let request):
            return read(request.handle, offset: Int(request.valueOffset), response: .readBlobResponse, source: source, writer: &writer)
        case .readMultipleRequest(let request):
            guard answersReadMultiple else { return .failed(.requestNotSupported, handle: 0) }
            return readMultiple(request, source: source, writer: &writer)
        case .writeRequest(let request):
            return request.value.withUnsafeBytes { value in
                write(value, to: request.handle, withResponse: true, source: &source, writer: &writer, event: &event)
            }
        case .writeCommand(let command):
            return command.value.withUnsafeBytes { value in
                write(value, to: command.handle, withResponse: false, source: &source, writer: &writer, event: &event)
            }
        case .handleValueConfirmation:
            event = .confirmedIndication
            return .written
        default:
            return unhandled(opcode, event: &event)
        }
    }

    /// A PDU this server has no handler for, answered as the opcode table says it must be.
    @inlinable
    func unhandled<WriteEffect>(_ opcode: ATTOpcode, event: inout GATTServerEvent<WriteEffect>) -> Answer {
        switch opcode.kind {
        case .request?:
            // Prepare/Execute Write, Read Multiple Variable: no attribute is longer than one
            // Write Request carries, so queued writes are not offered (§3.4.6).
            return .failed(.requestNotSupported, handle: 0)
        case nil:
            // An opcode Core 5.4 does not define says by bit 6 whether it is a command (§3.3.1):
            // a command is dropped, anything else refused.
            return opcode.isCommand ? .written : .failed(.requestNotSupported, handle: 0)
        case .command?, .confirmation?, .response?, .errorResponse?, .notification?, .indication?:
            // Signed writes need a CSRK from bonding, which neither server has; the rest are
            // server PDUs a client must not send. No answer either way.
            event = .unexpected(opcode)
            return .written
        }
    }
}
