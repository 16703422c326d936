import BandATT
import BandLink
import BandWire

/// Why a GATT procedure failed.
///
/// Each case says whether the bearer is still usable: after ``transactionTimeout`` or
/// ``protocolViolation`` no further ATT PDU may be sent on it (Core 5.4 Vol 3 Part F §3.3.3), and
/// after ``link`` it is gone; the other failures end one procedure only.
public enum GATTError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The server answered the request with an Error Response.
    case attError(request: ATTOpcode, handle: UInt16, code: ATTErrorCode)
    /// No response within the transaction timeout (30 s, §3.3.3); the bearer was closed.
    case transactionTimeout(request: ATTOpcode, after: Duration)
    /// The response to `request` did not decode.
    case malformedResponse(request: ATTOpcode, ParseError)
    /// The server sent something ATT does not allow at this point (a response to no request, a
    /// response of the wrong kind, a handle range that does not advance); the bearer was closed.
    case protocolViolation(String)
    /// The link failed or was closed (`LinkError.closed` when the peer hung up).
    case link(LinkError)
    /// A request was started while another was in flight, e.g. from inside an event handler.
    /// ATT allows one outstanding request per bearer (§3.3.2).
    case requestInFlight(pending: ATTOpcode, attempted: ATTOpcode)
    /// An event handler tried to start a request; handlers must only record what they got
    /// (the PDU being dispatched may be an indication still awaiting its confirmation).
    case requestFromEventHandler(attempted: ATTOpcode)
    /// The bearer can no longer be used (an earlier timeout or violation closed it).
    case bearerUnusable(reason: String)
    /// A value longer than one PDU can carry at the current ATT_MTU.
    case valueTooLong(length: Int, limit: Int)
    /// The characteristic has no Client Characteristic Configuration descriptor, or does not
    /// permit the kind of subscription asked for.
    case notSubscribable(BluetoothUUID, reason: String)

    /// False once no further PDUs may be exchanged on this bearer.
    public var bearerStillUsable: Bool {
        switch self {
        case .attError, .malformedResponse, .requestInFlight, .requestFromEventHandler, .valueTooLong, .notSubscribable: true
        case .transactionTimeout, .protocolViolation, .link, .bearerUnusable: false
        }
    }

    public var description: String {
        switch self {
        case .attError(let request, let handle, let code):
            let handleText = handle == 0 ? "" : " on handle 0x\(Hex.encode([UInt8(handle >> 8), UInt8(handle & 0xFF)]))"
            return "\(request.name ?? request.description) failed\(handleText): \(code)"
        case .transactionTimeout(let request, let after):
            return "no response to \(request.name ?? request.description) within \(after); link closed (ATT transaction timeout)"
        case .malformedResponse(let request, let error):
            return "malformed response to \(request.name ?? request.description): \(error)"
        case .protocolViolation(let what):
            return "ATT protocol violation by the server: \(what); link closed"
        case .link(let error):
            return "link: \(error)"
        case .requestInFlight(let pending, let attempted):
            return "cannot send \(attempted.name ?? attempted.description) while \(pending.name ?? pending.description) awaits its response"
        case .requestFromEventHandler(let attempted):
            return "cannot send \(attempted.name ?? attempted.description) from inside a notification handler"
        case .bearerUnusable(let reason):
            return "ATT bearer unusable: \(reason)"
        case .valueTooLong(let length, let limit):
            return "value of \(length) bytes exceeds the \(limit) bytes one PDU carries at this MTU"
        case .notSubscribable(let uuid, let reason):
            return "cannot subscribe to characteristic \(uuid): \(reason)"
        }
    }
}
