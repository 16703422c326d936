import BandWire

/// Read Blob Request (0x0C): read a long value from an offset.
///
/// Core 5.4 Vol 3 Part F §3.4.4.5.
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 1 | opcode 0x0C |
/// | 1 | 2 | attribute handle |
/// | 3 | 2 | value offset |
public struct ATTReadBlobRequest: ATTPDUType {
    public static let opcode = ATTOpcode.readBlobRequest

    public var handle: UInt16
    /// As sent; a server answers an offset past the value's end with Invalid Offset.
    public var valueOffset: UInt16

    public init(handle: UInt16, valueOffset: UInt16) {
        self.handle = handle
        self.valueOffset = valueOffset
    }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        try input.readOpcode(Self.opcode)
        handle = try input.readUInt16LE("attribute handle")
        valueOffset = try input.readUInt16LE("value offset")
        try input.expectEnd("Read Blob Request")
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(Self.opcode.rawValue)
        output.writeUInt16LE(handle)
        output.writeUInt16LE(valueOffset)
    }
}
