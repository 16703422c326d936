import BandWire

/// Write Request (0x12): write a value and wait for the Write Response.
///
/// Core 5.4 Vol 3 Part F §3.4.5.1.
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 1 | opcode 0x12 |
/// | 1 | 2 | attribute handle |
/// | 3 | 0…ATT_MTU−3 | attribute value |
public struct ATTWriteRequest: ATTPDUType {
    public static let opcode = ATTOpcode.writeRequest

    /// As sent; a server answers 0x0000 with Invalid Handle.
    public var handle: UInt16
    public var value: AttributeBytes

    public init(handle: UInt16, value: AttributeBytes) {
        self.handle = handle
        self.value = value
    }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        try input.readOpcode(Self.opcode)
        handle = try input.readUInt16LE("attribute handle")
        value = try input.readAttributeValue()
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(Self.opcode.rawValue)
        output.writeUInt16LE(handle)
        value.write(to: &output)
    }
}
