import BandHCI
/// The opcode in the low 16 bits of a Linux monitor (datalink 2001) record's flags; the
/// high 16 bits are the adapter index.
///
/// BlueZ `src/shared/btsnoop.h` (`BTSNOOP_OPCODE_*`), written by `btsnoop_write_hci`.
/// Records with opcodes BandKit does not use are skipped without being parsed.
///
/// | value | name | data |
/// |---|---|---|
/// | 0 | NEW_INDEX | type u8, bus u8, bdaddr[6], name[8] |
/// | 1 | DEL_INDEX | none: the adapter is gone |
/// | 2 / 3 | COMMAND_PKT / EVENT_PKT | HCI command / event, no H4 byte |
/// | 4 / 5 | ACL_TX_PKT / ACL_RX_PKT | ACL packet, no H4 byte |
/// | 6 / 7 | SCO_TX_PKT / SCO_RX_PKT | SCO packet |
/// | 8 / 9 | OPEN_INDEX / CLOSE_INDEX | none |
/// | 10 | INDEX_INFO | bdaddr[6], manufacturer u16 |
/// | 11 | VENDOR_DIAG | vendor data |
/// | 12 | SYSTEM_NOTE | text |
/// | 13 | USER_LOGGING | priority, ident length, ident, message |
/// | 14–17 | CTRL_OPEN / CTRL_CLOSE / CTRL_COMMAND / CTRL_EVENT | management interface |
/// | 18 / 19 | ISO_TX_PKT / ISO_RX_PKT | ISO packet |
public struct MonitorOpcode: RawRepresentable, Hashable, Sendable {
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let newIndex = MonitorOpcode(rawValue: 0)
    public static let deleteIndex = MonitorOpcode(rawValue: 1)
    public static let commandPacket = MonitorOpcode(rawValue: 2)
    public static let eventPacket = MonitorOpcode(rawValue: 3)
    public static let aclTxPacket = MonitorOpcode(rawValue: 4)
    public static let aclRxPacket = MonitorOpcode(rawValue: 5)
    public static let scoTxPacket = MonitorOpcode(rawValue: 6)
    public static let scoRxPacket = MonitorOpcode(rawValue: 7)
    public static let openIndex = MonitorOpcode(rawValue: 8)
    public static let closeIndex = MonitorOpcode(rawValue: 9)
    public static let indexInfo = MonitorOpcode(rawValue: 10)
    public static let vendorDiagnostic = MonitorOpcode(rawValue: 11)
    public static let systemNote = MonitorOpcode(rawValue: 12)
    public static let userLogging = MonitorOpcode(rawValue: 13)
    public static let isoTxPacket = MonitorOpcode(rawValue: 18)
    public static let isoRxPacket = MonitorOpcode(rawValue: 19)

    /// The HCI packet this opcode carries, if any, and its direction.
    public var packet: (type: HCIPacketType, direction: TraceDirection)? {
        switch self {
        case .commandPacket: return (.command, .tx)
        case .eventPacket: return (.event, .rx)
        case .aclTxPacket: return (.acl, .tx)
        case .aclRxPacket: return (.acl, .rx)
        case .scoTxPacket: return (.sco, .tx)
        case .scoRxPacket: return (.sco, .rx)
        case .isoTxPacket: return (.iso, .tx)
        case .isoRxPacket: return (.iso, .rx)
        default: return nil
        }
    }

    /// The opcode that carries `type` in `direction`, if the monitor format has one
    /// (commands are always sent and events always received).
    public init?(carrying type: HCIPacketType, direction: TraceDirection) {
        switch (type, direction) {
        case (.command, .tx): self = .commandPacket
        case (.event, .rx): self = .eventPacket
        case (.acl, .tx): self = .aclTxPacket
        case (.acl, .rx): self = .aclRxPacket
        case (.sco, .tx): self = .scoTxPacket
        case (.sco, .rx): self = .scoRxPacket
        case (.iso, .tx): self = .isoTxPacket
        case (.iso, .rx): self = .isoRxPacket
        default: return nil
        }
    }
}
