import BandWire

/// Read Response (0x0B): the value, or its first ATT_MTU − 1 bytes.
///
/// Core 5.4 Vol 3 Part F §3.4.4.4.
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 1 | opcode 0x0B |
/// | 1 | 0…ATT_MTU−1 | attribute value |
public struct ATTReadResponse: ATTPDUType {
    public static let opcode = ATTOpcode.readResponse

    public var value: AttributeBytes

    public init(value: AttributeBytes) { self.value = value }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        try input.readOpcode(Self.opcode)
        value = try input.readAttributeValue()
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(Self.opcode.rawValue)
        value.write(to: &output)
    }
}
