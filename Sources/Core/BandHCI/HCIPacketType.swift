/// The H4 (UART transport) packet indicator that precedes every HCI packet in a
/// datalink-1002 btsnoop record.
///
/// Core 5.4 Vol 4 Part A §2 (UART transport layer), BlueZ `lib/hci.h` `HCI_*_PKT`,
/// `monitor/bt.h`.
///
/// | value | packet | header after the indicator |
/// |---|---|---|
/// | 0x01 | HCI Command | opcode u16, parameter length u8 |
/// | 0x02 | ACL data | handle + flags u16, data length u16 |
/// | 0x03 | SCO data | handle + flags u16, data length u8 |
/// | 0x04 | HCI Event | event code u8, parameter length u8 |
/// | 0x05 | ISO data | handle + flags u16, data length u16 (14 bits) |
public struct HCIPacketType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let command = HCIPacketType(rawValue: 0x01)
    public static let acl = HCIPacketType(rawValue: 0x02)
    public static let sco = HCIPacketType(rawValue: 0x03)
    public static let event = HCIPacketType(rawValue: 0x04)
    public static let iso = HCIPacketType(rawValue: 0x05)

    public var description: String {
        switch self {
        case .command: return "command"
        case .acl: return "ACL"
        case .sco: return "SCO"
        case .event: return "event"
        case .iso: return "ISO"
        default: return "H4 type 0x\(String(rawValue, radix: 16))"
        }
    }
}
