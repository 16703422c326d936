import BandWire

/// Error Response (0x01): a request failed.
///
/// Core 5.4 Vol 3 Part F §3.4.1.1.
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 1 | opcode 0x01 |
/// | 1 | 1 | request opcode in error |
/// | 2 | 2 | attribute handle in error (0x0000 when no handle applies) |
/// | 4 | 1 | error code |
public struct ATTErrorResponse: ATTPDUType {
    public static let opcode = ATTOpcode.errorResponse

    public var requestOpcode: ATTOpcode
    public var handle: UInt16
    public var error: ATTErrorCode

    public init(requestOpcode: ATTOpcode, handle: UInt16, error: ATTErrorCode) {
        self.requestOpcode = requestOpcode
        self.handle = handle
        self.error = error
    }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        try input.readOpcode(Self.opcode)
        requestOpcode = ATTOpcode(rawValue: try input.readUInt8("request opcode in error"))
        handle = try input.readUInt16LE("attribute handle in error")
        error = ATTErrorCode(rawValue: try input.readUInt8("error code"))
        try input.expectEnd("Error Response")
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(Self.opcode.rawValue)
        output.writeUInt8(requestOpcode.rawValue)
        output.writeUInt16LE(handle)
        output.writeUInt8(error.rawValue)
    }
}
