import BandWire

/// An HCI command as written to a raw HCI socket, with its packet-type indicator.
///
/// Core 5.4 Vol 4 Part E §5.4.1 (command packet) and Part A §2 (UART/H4 indicator 0x01,
/// which the Linux raw HCI socket also expects).
///
/// | offset | size | field                           |
/// |--------|------|---------------------------------|
/// | 0      | 1    | packet type 0x01 (command)      |
/// | 1      | 2    | opcode (``HCIOpcode``), LE      |
/// | 3      | 1    | parameter length *n*            |
/// | 4      | *n*  | parameters                      |
public struct HCICommandPacket: Hashable, Sendable, WireCodable {
    public static let packetType: UInt8 = 0x01

    public var opcode: HCIOpcode
    public var parameters: [UInt8]

    public init(_ opcode: HCIOpcode, parameters: [UInt8] = []) {
        self.opcode = opcode
        self.parameters = parameters
    }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        let type = try input.readUInt8("HCI packet type")
        guard type == Self.packetType else { throw ParseError(.invalidValue, at: input.offset - 1, field: "HCI packet type") }
        opcode = HCIOpcode(rawValue: try input.readUInt16LE("HCI opcode"))
        let length = Int(try input.readUInt8("HCI parameter length"))
        parameters = Array(try input.readBytes(length, "HCI command parameters"))
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(Self.packetType)
        output.writeUInt16LE(opcode.rawValue)
        output.writeUInt8(UInt8(truncatingIfNeeded: parameters.count))
        output.writeBytes(parameters)
    }

    /// LE Set Scan Parameters (Vol 4 Part E §7.8.10): type, interval, window (0.625 ms units),
    /// own address type, filter policy.
    public static func leSetScanParameters(active: Bool, interval: UInt16, window: UInt16, ownAddressType: UInt8 = 0) -> HCICommandPacket {
        HCICommandPacket(.leSetScanParameters, parameters: [
            active ? 0x01 : 0x00,
            UInt8(interval & 0xFF), UInt8(interval >> 8),
            UInt8(window & 0xFF), UInt8(window >> 8),
            ownAddressType,
            0x00,  // accept all advertising packets
        ])
    }

    /// LE Set Scan Enable (§7.8.11).
    public static func leSetScanEnable(_ enable: Bool, filterDuplicates: Bool) -> HCICommandPacket {
        HCICommandPacket(.leSetScanEnable, parameters: [enable ? 1 : 0, filterDuplicates ? 1 : 0])
    }

    /// LE Set Extended Scan Parameters (§7.8.64) on the LE 1M PHY only.
    public static func leSetExtendedScanParameters(active: Bool, interval: UInt16, window: UInt16, ownAddressType: UInt8 = 0) -> HCICommandPacket {
        HCICommandPacket(.leSetExtendedScanParameters, parameters: [
            ownAddressType,
            0x00,  // filter policy: accept all
            0x01,  // Scanning_PHYs: LE 1M
            active ? 0x01 : 0x00,
            UInt8(interval & 0xFF), UInt8(interval >> 8),
            UInt8(window & 0xFF), UInt8(window >> 8),
        ])
    }

    /// LE Set Extended Scan Enable (§7.8.65), no duration, no period.
    public static func leSetExtendedScanEnable(_ enable: Bool, filterDuplicates: Bool) -> HCICommandPacket {
        HCICommandPacket(.leSetExtendedScanEnable, parameters: [enable ? 1 : 0, filterDuplicates ? 1 : 0, 0, 0, 0, 0])
    }
}
