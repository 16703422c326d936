import BandWire

/// The LE signaling channel (L2CAP CID 0x0005, Core 5.4 Vol 3 Part A §4) of a peripheral
/// that offers no connection-oriented channels: it asks the central for connection
/// parameters and answers what a central may ask.
///
/// | from the central | answer |
/// |---|---|
/// | Connection Parameter Update Response (to our request) | ``Outcome/parametersAnswered(accepted:)`` |
/// | Command Reject (of our request) | ``Outcome/requestRejected(reason:)`` |
/// | LE Credit Based Connection Request | refused: SPSM not supported |
/// | Connection Parameter Update Request (only a central may be asked) | Command Reject, not understood (§4.20) |
/// | any other or unknown code, a malformed request | Command Reject, not understood |
/// | a response with an identifier we did not use, identifier 0 | ignored |
public struct LESignalingChannel: Sendable {
    /// What one signaling PDU from the central calls for.
    public enum Outcome: Equatable, Sendable {
        case none
        /// Send Command Reject with this reason, repeating `identifier`.
        case reject(identifier: UInt8, reason: UInt16)
        /// Refuse an LE credit based connection, repeating `identifier`.
        case refuseChannel(identifier: UInt8)
        case parametersAnswered(accepted: Bool)
        case requestRejected(reason: UInt16)
        /// A PDU that could not be read and needs no answer.
        case malformed(ParseError)
    }

    @usableFromInline var lastIdentifier: UInt8 = 0
    /// The identifier of our outstanding Connection Parameter Update Request, if any.
    public private(set) var pendingRequest: UInt8?

    public init() {}

    /// A new non-zero identifier for a request of ours (§4: 0 is never used).
    public mutating func nextRequestIdentifier() -> UInt8 {
        lastIdentifier = lastIdentifier == 0xFF ? 1 : lastIdentifier + 1
        pendingRequest = lastIdentifier
        return lastIdentifier
    }

    /// Reads one signaling PDU.
    public mutating func receive(_ pdu: UnsafeRawBufferPointer) -> Outcome {
        var input = ByteCursor(pdu)
        let header: LESignalingHeader
        do throws(ParseError) { header = try LESignalingHeader(parsing: &input) } catch { return .malformed(error) }
        guard header.identifier != 0 else { return .malformed(ParseError(.invalidValue, at: 1, field: "signaling identifier")) }
        guard Int(header.dataLength) == input.remaining else {
            let error = ParseError(Int(header.dataLength) > input.remaining ? .truncated : .trailingBytes, at: 2, field: "signaling data length")
            return Self.isResponse(header.code) ? .malformed(error) : .reject(identifier: header.identifier, reason: L2CAPCommandReject.commandNotUnderstood)
        }
        do throws(ParseError) {
            switch header.code {
            case .connectionParameterUpdateResponse:
                let response = try ConnectionParameterUpdateResponse(parsingAll: input.readRemaining(), baseOffset: 4)
                guard pendingRequest == header.identifier else { return .none }
                pendingRequest = nil
                return .parametersAnswered(accepted: response.accepted)
            case .commandReject:
                let reject = try L2CAPCommandReject(parsingAll: input.readRemaining(), baseOffset: 4)
                guard pendingRequest == header.identifier else { return .none }
                pendingRequest = nil
                return .requestRejected(reason: reject.reason)
            case .leCreditBasedConnectionRequest:
                return .refuseChannel(identifier: header.identifier)
            default:
                return Self.isResponse(header.code) ? .none : .reject(identifier: header.identifier, reason: L2CAPCommandReject.commandNotUnderstood)
            }
        } catch {
            return .malformed(error)
        }
    }

    /// Forgets the outstanding request (the link ended).
    public mutating func reset() { pendingRequest = nil }

    /// Responses are never answered, not even with a Command Reject.
    static func isResponse(_ code: LESignalingCode) -> Bool {
        switch code {
        case .commandReject, .connectionParameterUpdateResponse, .leCreditBasedConnectionResponse: return true
        default: return code.rawValue & 1 == 1 && code.rawValue > 0x01 && code.rawValue < 0x12
        }
    }
}
