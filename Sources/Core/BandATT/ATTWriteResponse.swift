import BandWire

/// Write Response (0x13): the value was written.
///
/// Core 5.4 Vol 3 Part F §3.4.5.2.
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 1 | opcode 0x13 |
public struct ATTWriteResponse: ATTPDUType {
    public static let opcode = ATTOpcode.writeResponse

    public init() {}

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        try input.readOpcode(Self.opcode)
        try input.expectEnd("Write Response")
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(Self.opcode.rawValue)
    }
}
