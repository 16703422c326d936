import BandWire

/// Find By Type Value Request (0x06): find attributes of a 16-bit type with a given value
/// (discover a primary service by its UUID).
///
/// Core 5.4 Vol 3 Part F §3.4.3.3.
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 1 | opcode 0x06 |
/// | 1 | 2 | starting handle |
/// | 3 | 2 | ending handle |
/// | 5 | 2 | attribute type (16-bit UUID only) |
/// | 7 | 0…ATT_MTU−7 | attribute value |
public struct ATTFindByTypeValueRequest: ATTPDUType {
    public static let opcode = ATTOpcode.findByTypeValueRequest

    /// As sent; check ``ATTHandleRange/isValid`` before serving it.
    public var range: ATTHandleRange
    /// The 16-bit alias of the type: this PDU has no room for a 128-bit one.
    public var attributeType: UInt16
    public var value: AttributeBytes

    public init(range: ATTHandleRange, attributeType: UInt16, value: AttributeBytes) {
        self.range = range
        self.attributeType = attributeType
        self.value = value
    }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        try input.readOpcode(Self.opcode)
        range = try ATTHandleRange(parsing: &input)
        attributeType = try input.readUInt16LE("attribute type")
        value = try input.readAttributeValue()
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(Self.opcode.rawValue)
        range.encode(into: &output)
        output.writeUInt16LE(attributeType)
        value.write(to: &output)
    }
}
