import BandWire

/// One command or event on the BlueZ management socket (`HCI_CHANNEL_CONTROL`).
///
/// BlueZ doc/mgmt-api.txt, "Packet Structures". All fields little-endian.
///
/// | offset | size | field                                                    |
/// |--------|------|----------------------------------------------------------|
/// | 0      | 2    | Command Code (``ManagementOpcode``) or Event Code (``ManagementEventCode``) |
/// | 2      | 2    | Controller Index (0xFFFF: none)                          |
/// | 4      | 2    | Parameter Length *n*                                     |
/// | 6      | *n*  | Parameters                                               |
public struct ManagementPacket: Hashable, Sendable, WireCodable {
    public static let noController: UInt16 = 0xFFFF

    public var code: UInt16
    public var controllerIndex: UInt16
    public var parameters: [UInt8]

    public init(code: UInt16, controllerIndex: UInt16, parameters: [UInt8] = []) {
        self.code = code
        self.controllerIndex = controllerIndex
        self.parameters = parameters
    }

    public init(_ opcode: ManagementOpcode, controllerIndex: UInt16, parameters: [UInt8] = []) {
        self.init(code: opcode.rawValue, controllerIndex: controllerIndex, parameters: parameters)
    }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        code = try input.readUInt16LE("mgmt code")
        controllerIndex = try input.readUInt16LE("mgmt controller index")
        let length = Int(try input.readUInt16LE("mgmt parameter length"))
        parameters = Array(try input.readBytes(length, "mgmt parameters"))
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt16LE(code)
        output.writeUInt16LE(controllerIndex)
        output.writeUInt16LE(UInt16(truncatingIfNeeded: parameters.count))
        output.writeBytes(parameters)
    }

    /// The packet as bytes (commands are small and sent rarely).
    public var bytes: [UInt8] {
        var out = [UInt8](repeating: 0, count: 6 + parameters.count)
        out.withUnsafeMutableBytes { raw in
            var writer = ByteWriter(raw)
            encode(into: &writer)
        }
        return out
    }
}
