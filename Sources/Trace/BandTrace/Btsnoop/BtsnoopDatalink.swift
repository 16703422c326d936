/// The link type of a btsnoop file: what each record's bytes are.
///
/// Values from Wireshark `wiretap/btsnoop.c` (`KHciLoggerDatalinkType*`) and BlueZ
/// `src/shared/btsnoop.h` (`BTSNOOP_FORMAT_*`). BandKit reads and writes H1, H4 and
/// Linux monitor; the others are named so errors can say what a file is.
///
/// | value | name | record data |
/// |---|---|---|
/// | 1001 | H1 | HCI packet without a type byte; the type is in the record flags |
/// | 1002 | H4 (UART) | H4 type byte, then the HCI packet (Android `btsnoop_hci.log`) |
/// | 1003 | BCSP | unsupported |
/// | 1004 | H5 (3-wire) | unsupported |
/// | 2001 | Linux monitor | HCI packet without a type byte; flags = adapter << 16 \| opcode (`btmon -w`) |
/// | 2002 | BlueZ simulator | unsupported |
public struct BtsnoopDatalink: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let h1 = BtsnoopDatalink(rawValue: 1001)
    public static let h4 = BtsnoopDatalink(rawValue: 1002)
    public static let bcsp = BtsnoopDatalink(rawValue: 1003)
    public static let h5 = BtsnoopDatalink(rawValue: 1004)
    public static let linuxMonitor = BtsnoopDatalink(rawValue: 2001)
    public static let simulator = BtsnoopDatalink(rawValue: 2002)

    /// Whether BandKit can read and write records of this link type.
    public var isSupported: Bool { self == .h1 || self == .h4 || self == .linuxMonitor }

    public var description: String {
        switch self {
        case .h1: return "1001 (H1)"
        case .h4: return "1002 (H4)"
        case .bcsp: return "1003 (BCSP)"
        case .h5: return "1004 (H5)"
        case .linuxMonitor: return "2001 (Linux monitor)"
        case .simulator: return "2002 (BlueZ simulator)"
        default: return "\(rawValue)"
        }
    }
}
