import BandWire

/// Execute Write Response (0x19): the queued writes were executed or cancelled.
///
/// Core 5.4 Vol 3 Part F §3.4.6.4.
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 1 | opcode 0x19 |
public struct ATTExecuteWriteResponse: ATTPDUType {
    public static let opcode = ATTOpcode.executeWriteResponse

    public init() {}

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        try input.readOpcode(Self.opcode)
        try input.expectEnd("Execute Write Response")
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(Self.opcode.rawValue)
    }
}
