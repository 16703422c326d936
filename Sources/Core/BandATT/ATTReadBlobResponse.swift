import BandWire

/// Read Blob Response (0x0D): part of a long value.
///
/// Core 5.4 Vol 3 Part F §3.4.4.6.
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 1 | opcode 0x0D |
/// | 1 | 0…ATT_MTU−1 | part attribute value |
public struct ATTReadBlobResponse: ATTPDUType {
    public static let opcode = ATTOpcode.readBlobResponse

    public var partValue: AttributeBytes

    public init(partValue: AttributeBytes) { self.partValue = partValue }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        try input.readOpcode(Self.opcode)
        partValue = try input.readAttributeValue("part attribute value")
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(Self.opcode.rawValue)
        partValue.write(to: &output)
    }
}
