import BandWire

/// Prepare Write Request (0x16): queue part of a long or reliable write.
///
/// Core 5.4 Vol 3 Part F §3.4.6.1.
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 1 | opcode 0x16 |
/// | 1 | 2 | attribute handle |
/// | 3 | 2 | value offset |
/// | 5 | 0…ATT_MTU−5 | part attribute value |
public struct ATTPrepareWriteRequest: ATTPDUType {
    public static let opcode = ATTOpcode.prepareWriteRequest

    public var handle: UInt16
    public var valueOffset: UInt16
    public var partValue: AttributeBytes

    public init(handle: UInt16, valueOffset: UInt16, partValue: AttributeBytes) {
        self.handle = handle
        self.valueOffset = valueOffset
        self.partValue = partValue
    }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        try input.readOpcode(Self.opcode)
        handle = try input.readUInt16LE("attribute handle")
        valueOffset = try input.readUInt16LE("value offset")
        partValue = try input.readAttributeValue("part attribute value")
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(Self.opcode.rawValue)
        output.writeUInt16LE(handle)
        output.writeUInt16LE(valueOffset)
        partValue.write(to: &output)
    }
}
