import BandWire

/// The parameters of one HCI command, which know their opcode: the host writes any of them as a
/// whole H4 command packet with ``encodeCommand(into:)`` (generic, no existential, no allocation).
public protocol HCICommandParameters: WireEncodable {
    /// The command these parameters belong to.
    var opcode: HCIOpcode { get }
}

extension HCICommandParameters {
    /// Writes the H4 command packet: indicator 0x01, opcode, parameter length, parameters
    /// (Core 5.4 Vol 4 Part A §2, Part E §5.4.1).
    @inlinable
    public func encodeCommand(into output: inout ByteWriter) {
        output.writeUInt8(HCICommandPacket.packetType)
        output.writeUInt16LE(opcode.rawValue)
        let lengthIndex = output.count
        let before = output.attempted
        output.writeUInt8(0)
        encode(into: &output)
        let length = output.attempted - before - 1
        if !output.overflowed { output.buffer[lengthIndex] = UInt8(truncatingIfNeeded: length) }
    }
}

/// A command without parameters (Reset, Read BD_ADDR, LE Read Buffer Size, LE Rand…).
public struct HCIParameterlessCommand: HCICommandParameters, Hashable, Sendable {
    public var opcode: HCIOpcode
    public init(_ opcode: HCIOpcode) { self.opcode = opcode }
    public func encode(into output: inout ByteWriter) {}
}
