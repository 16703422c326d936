import BandWire

/// Handle Value Confirmation (0x1E): the client received an indication.
///
/// Core 5.4 Vol 3 Part F §3.4.7.3.
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 1 | opcode 0x1E |
public struct ATTHandleValueConfirmation: ATTPDUType {
    public static let opcode = ATTOpcode.handleValueConfirmation

    public init() {}

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        try input.readOpcode(Self.opcode)
        try input.expectEnd("Handle Value Confirmation")
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(Self.opcode.rawValue)
    }
}
