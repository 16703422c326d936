import BandWire

/// Read By Type Request (0x08): read attributes of one type in a range (characteristic
/// discovery with 0x2803, "read using characteristic UUID").
///
/// Core 5.4 Vol 3 Part F §3.4.4.1.
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 1 | opcode 0x08 |
/// | 1 | 2 | starting handle |
/// | 3 | 2 | ending handle |
/// | 5 | 2 or 16 | attribute type (UUID) |
public struct ATTReadByTypeRequest: ATTPDUType {
    public static let opcode = ATTOpcode.readByTypeRequest

    /// As sent; check ``ATTHandleRange/isValid`` before serving it.
    public var range: ATTHandleRange
    public var attributeType: BluetoothUUID

    public init(range: ATTHandleRange, attributeType: BluetoothUUID) {
        self.range = range
        self.attributeType = attributeType
    }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        try input.readOpcode(Self.opcode)
        range = try ATTHandleRange(parsing: &input)
        attributeType = try input.readUUIDFillingRest("attribute type")
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(Self.opcode.rawValue)
        range.encode(into: &output)
        attributeType.encode(into: &output)
    }
}
