import BandWire

/// Read Request (0x0A).
///
/// Core 5.4 Vol 3 Part F §3.4.4.3.
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 1 | opcode 0x0A |
/// | 1 | 2 | attribute handle |
public struct ATTReadRequest: ATTPDUType {
    public static let opcode = ATTOpcode.readRequest

    /// As sent; a server answers 0x0000 with Invalid Handle.
    public var handle: UInt16

    public init(handle: UInt16) { self.handle = handle }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        try input.readOpcode(Self.opcode)
        handle = try input.readUInt16LE("attribute handle")
        try input.expectEnd("Read Request")
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(Self.opcode.rawValue)
        output.writeUInt16LE(handle)
    }
}
