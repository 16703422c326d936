import BandWire

/// The 3-byte header of an HCI command packet (Core 5.4 Vol 4 Part E §5.4.1).
///
/// | bytes | field |
/// |---|---|
/// | u16 LE | opcode: OCF bits 0–9, OGF bits 10–15 |
/// | u8 | parameter total length |
public struct HCICommandHeader: WireCodable, Hashable, Sendable {
    public static let size = 3

    public var opcode: UInt16
    public var parameterLength: UInt8

    public init(opcode: UInt16, parameterLength: UInt8) {
        self.opcode = opcode
        self.parameterLength = parameterLength
    }

    public init(ogf: UInt8, ocf: UInt16, parameterLength: UInt8) {
        self.init(opcode: UInt16(ogf) << 10 | ocf & 0x03FF, parameterLength: parameterLength)
    }

    public var ogf: UInt8 { UInt8(truncatingIfNeeded: opcode >> 10) }
    public var ocf: UInt16 { opcode & 0x03FF }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        opcode = try input.readUInt16LE("command opcode")
        parameterLength = try input.readUInt8("command parameter length")
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt16LE(opcode)
        output.writeUInt8(parameterLength)
    }
}
