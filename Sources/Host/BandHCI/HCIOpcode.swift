/// An HCI command opcode: OGF (6 bits) and OCF (10 bits), little-endian on the wire.
///
/// Core 5.4 Vol 4 Part E §5.4.1. Open: unknown opcodes (in Command Complete events for
/// commands someone else sent) are kept as they are.
public struct HCIOpcode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }
    public init(group: UInt16, command: UInt16) { rawValue = group << 10 | command & 0x03FF }

    public var group: UInt16 { rawValue >> 10 }
    public var command: UInt16 { rawValue & 0x03FF }

    /// LE Set Scan Parameters (Vol 4 Part E §7.8.10).
    public static let leSetScanParameters = HCIOpcode(group: 0x08, command: 0x000B)
    /// LE Set Scan Enable (§7.8.11).
    public static let leSetScanEnable = HCIOpcode(group: 0x08, command: 0x000C)
    /// LE Set Extended Scan Parameters (§7.8.64).
    public static let leSetExtendedScanParameters = HCIOpcode(group: 0x08, command: 0x0041)
    /// LE Set Extended Scan Enable (§7.8.65).
    public static let leSetExtendedScanEnable = HCIOpcode(group: 0x08, command: 0x0042)

    public var description: String {
        switch self {
        case .leSetScanParameters: return "LE Set Scan Parameters"
        case .leSetScanEnable: return "LE Set Scan Enable"
        case .leSetExtendedScanParameters: return "LE Set Extended Scan Parameters"
        case .leSetExtendedScanEnable: return "LE Set Extended Scan Enable"
        default: return "HCI command 0x\(String(rawValue, radix: 16)) (OGF 0x\(String(group, radix: 16)), OCF 0x\(String(command, radix: 16)))"
        }
    }
}
