import BandWire

/// HCI Command Status event parameters (Core 5.4 Vol 4 Part E §7.7.15).
///
/// | offset | size | field                   |
/// |--------|------|-------------------------|
/// | 0      | 1    | Status (``HCIStatus``)  |
/// | 1      | 1    | Num_HCI_Command_Packets |
/// | 2      | 2    | Command_Opcode, LE      |
public struct HCICommandStatus: Hashable, Sendable, WireCodable {
    public var status: HCIStatus
    public var allowedCommandPackets: UInt8
    public var opcode: HCIOpcode

    public init(status: HCIStatus, allowedCommandPackets: UInt8 = 1, opcode: HCIOpcode) {
        self.status = status
        self.allowedCommandPackets = allowedCommandPackets
        self.opcode = opcode
    }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        status = HCIStatus(rawValue: try input.readUInt8("Status"))
        allowedCommandPackets = try input.readUInt8("Num_HCI_Command_Packets")
        opcode = HCIOpcode(rawValue: try input.readUInt16LE("Command_Opcode"))
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(status.rawValue)
        output.writeUInt8(allowedCommandPackets)
        output.writeUInt16LE(opcode.rawValue)
    }
}
