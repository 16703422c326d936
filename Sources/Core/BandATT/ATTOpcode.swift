import BandWire

/// An ATT PDU opcode.
///
/// Core 5.4 Vol 3 Part F §3.3.1 (Table 3.1) and §3.4.8 (Table 3.37):
///
/// | bit | meaning |
/// |---|---|
/// | 0–5 | method |
/// | 6 | command flag: no response follows |
/// | 7 | authentication signature flag: a 12-byte signature ends the PDU |
///
/// Open: opcodes this library does not model (or that a later Core adds) keep their raw value
/// so a trace or a server can report them instead of dropping them.
public struct ATTOpcode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let errorResponse = ATTOpcode(rawValue: 0x01)
    public static let exchangeMTURequest = ATTOpcode(rawValue: 0x02)
    public static let exchangeMTUResponse = ATTOpcode(rawValue: 0x03)
    public static let findInformationRequest = ATTOpcode(rawValue: 0x04)
    public static let findInformationResponse = ATTOpcode(rawValue: 0x05)
    public static let findByTypeValueRequest = ATTOpcode(rawValue: 0x06)
    public static let findByTypeValueResponse = ATTOpcode(rawValue: 0x07)
    public static let readByTypeRequest = ATTOpcode(rawValue: 0x08)
    public static let readByTypeResponse = ATTOpcode(rawValue: 0x09)
    public static let readRequest = ATTOpcode(rawValue: 0x0A)
    public static let readResponse = ATTOpcode(rawValue: 0x0B)
    public static let readBlobRequest = ATTOpcode(rawValue: 0x0C)
    public static let readBlobResponse = ATTOpcode(rawValue: 0x0D)
    public static let readMultipleRequest = ATTOpcode(rawValue: 0x0E)
    public static let readMultipleResponse = ATTOpcode(rawValue: 0x0F)
    public static let readByGroupTypeRequest = ATTOpcode(rawValue: 0x10)
    public static let readByGroupTypeResponse = ATTOpcode(rawValue: 0x11)
    public static let writeRequest = ATTOpcode(rawValue: 0x12)
    public static let writeResponse = ATTOpcode(rawValue: 0x13)
    public static let prepareWriteRequest = ATTOpcode(rawValue: 0x16)
    public static let prepareWriteResponse = ATTOpcode(rawValue: 0x17)
    public static let executeWriteRequest = ATTOpcode(rawValue: 0x18)
    public static let executeWriteResponse = ATTOpcode(rawValue: 0x19)
    public static let readMultipleVariableRequest = ATTOpcode(rawValue: 0x20)
    public static let readMultipleVariableResponse = ATTOpcode(rawValue: 0x21)
    public static let multipleHandleValueNotification = ATTOpcode(rawValue: 0x23)
    public static let handleValueNotification = ATTOpcode(rawValue: 0x1B)
    public static let handleValueIndication = ATTOpcode(rawValue: 0x1D)
    public static let handleValueConfirmation = ATTOpcode(rawValue: 0x1E)
    public static let writeCommand = ATTOpcode(rawValue: 0x52)
    public static let signedWriteCommand = ATTOpcode(rawValue: 0xD2)

    /// Bits 0–5.
    public var method: UInt8 { rawValue & 0x3F }
    /// Bit 6: the peer sends nothing back, not even an Error Response (§3.4.9).
    public var isCommand: Bool { rawValue & 0x40 != 0 }
    /// Bit 7: the PDU ends in a 12-byte authentication signature (§3.3.1).
    public var hasAuthenticationSignature: Bool { rawValue & 0x80 != 0 }

    /// This opcode's row of ``ATTPDUTable``; nil for opcodes Core 5.4 Table 3.37 does not define.
    @inlinable public var entry: ATTPDUEntry? { ATTPDUTable.entry(self) }

    /// What the PDU is for; nil for opcodes Core 5.4 Table 3.37 does not define.
    @inlinable public var kind: ATTPDUKind? { ATTPDUTable.kind(self) }

    /// True for the client→server PDUs that expect exactly one response; a request opens a
    /// transaction that its response (or an Error Response naming it) closes (§3.3.2).
    @inlinable public var isRequest: Bool { responseOpcode != nil }

    /// True for the PDUs that answer a request (including Error Response).
    @inlinable
    public var isResponse: Bool {
        switch kind {
        case .response?, .errorResponse?: return true
        default: return false
        }
    }

    /// The opcode of the success response to this request; nil when this is not a request.
    @inlinable
    public var responseOpcode: ATTOpcode? {
        if case .request(let response)? = kind { return response }
        return nil
    }

    /// The request this PDU answers; nil unless this is a success response.
    @inlinable
    public var requestOpcode: ATTOpcode? {
        if case .response(let request)? = kind { return request }
        return nil
    }

    /// The name used in Core 5.4 Table 3.37; nil for opcodes it does not define.
    @inlinable public var name: String? { entry?.name }

    public var description: String {
        let hex = "0x" + Hex.encode([rawValue])
        guard let name else { return "opcode \(hex)" }
        return "\(name) (\(hex))"
    }
}
