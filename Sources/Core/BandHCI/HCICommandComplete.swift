import BandWire

/// HCI Command Complete event parameters (Core 5.4 Vol 4 Part E §7.7.14).
///
/// | offset | size | field                                               |
/// |--------|------|-----------------------------------------------------|
/// | 0      | 1    | Num_HCI_Command_Packets                             |
/// | 1      | 2    | Command_Opcode, LE                                  |
/// | 3      | …    | Return_Parameters (Status first for every LE command) |
public struct HCICommandComplete: Hashable, Sendable, WireCodable {
    public var allowedCommandPackets: UInt8
    public var opcode: HCIOpcode
    public var returnParameters: [UInt8]

    public init(allowedCommandPackets: UInt8 = 1, opcode: HCIOpcode, returnParameters: [UInt8]) {
        self.allowedCommandPackets = allowedCommandPackets
        self.opcode = opcode
        self.returnParameters = returnParameters
    }

    /// The first return parameter, which is the status for the commands BandKit sends.
    public var status: HCIStatus? { returnParameters.first.map(HCIStatus.init(rawValue:)) }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        allowedCommandPackets = try input.readUInt8("Num_HCI_Command_Packets")
        opcode = HCIOpcode(rawValue: try input.readUInt16LE("Command_Opcode"))
        returnParameters = Array(input.readRemaining())
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(allowedCommandPackets)
        output.writeUInt16LE(opcode.rawValue)
        output.writeBytes(returnParameters)
    }
}
