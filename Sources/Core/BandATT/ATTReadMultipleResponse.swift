import BandWire

/// Read Multiple Response (0x0F): the requested values concatenated, without lengths.
///
/// Core 5.4 Vol 3 Part F §3.4.4.8. Only the client, which knows each value's fixed length,
/// can split them.
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 1 | opcode 0x0F |
/// | 1 | 0…ATT_MTU−1 | set of values |
public struct ATTReadMultipleResponse: ATTPDUType {
    public static let opcode = ATTOpcode.readMultipleResponse

    public var values: ATTParameterBytes

    public init(values: ATTParameterBytes) { self.values = values }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        try input.readOpcode(Self.opcode)
        values = try input.readParameters("set of values")
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(Self.opcode.rawValue)
        values.write(to: &output)
    }
}
