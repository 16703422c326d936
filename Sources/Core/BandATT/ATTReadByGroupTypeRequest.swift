import BandWire

/// Read By Group Type Request (0x10): read grouping attributes (primary service discovery with 0x2800).
///
/// Core 5.4 Vol 3 Part F §3.4.4.9.
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 1 | opcode 0x10 |
/// | 1 | 2 | starting handle |
/// | 3 | 2 | ending handle |
/// | 5 | 2 or 16 | attribute group type (UUID) |
public struct ATTReadByGroupTypeRequest: ATTPDUType {
    public static let opcode = ATTOpcode.readByGroupTypeRequest

    /// As sent; check ``ATTHandleRange/isValid`` before serving it.
    public var range: ATTHandleRange
    /// GATT groups by 0x2800 or 0x2801 only; a server answers other types with Unsupported Group Type.
    public var groupType: BluetoothUUID

    public init(range: ATTHandleRange, groupType: BluetoothUUID) {
        self.range = range
        self.groupType = groupType
    }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        try input.readOpcode(Self.opcode)
        range = try ATTHandleRange(parsing: &input)
        groupType = try input.readUUIDFillingRest("attribute group type")
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(Self.opcode.rawValue)
        range.encode(into: &output)
        groupType.encode(into: &output)
    }
}
