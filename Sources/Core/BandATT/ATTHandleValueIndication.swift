import BandWire

/// Handle Value Indication (0x1D): a server pushes a value and waits for a Handle Value Confirmation.
///
/// Core 5.4 Vol 3 Part F §3.4.7.2.
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 1 | opcode 0x1D |
/// | 1 | 2 | attribute handle |
/// | 3 | 0…ATT_MTU−3 | attribute value |
public struct ATTHandleValueIndication: ATTPDUType {
    public static let opcode = ATTOpcode.handleValueIndication

    /// Never 0x0000: the reserved handle (§3.2.2) names no attribute.
    public var handle: UInt16
    public var value: AttributeBytes

    public init(handle: UInt16, value: AttributeBytes) {
        self.handle = handle
        self.value = value
    }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        try input.readOpcode(Self.opcode)
        handle = try input.readNonZeroHandle("attribute handle")
        value = try input.readAttributeValue()
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(Self.opcode.rawValue)
        output.writeUInt16LE(handle)
        value.write(to: &output)
    }
}
