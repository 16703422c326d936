/// The link type of a pcap file or a pcapng interface: what each packet's bytes are.
///
/// Values from tcpdump's LINKTYPE list (<https://www.tcpdump.org/linktypes.html>, the
/// registry draft-ietf-opsawg-pcaplinktype) and Wireshark `wiretap/pcap-common.c`. BandKit
/// decodes the three HCI link types and follows one connection through the two air-capture
/// ones (``LLConnectionFollower``); the others are named so messages can say what a capture
/// holds. Open: any value can appear in a file.
///
/// | value | name | packet data |
/// |---|---|---|
/// | 187 | BLUETOOTH_HCI_H4 | H4 type byte, HCI packet; no direction |
/// | 201 | BLUETOOTH_HCI_H4_WITH_PHDR | direction u32 BE (0 sent, 1 received), H4 type byte, HCI packet |
/// | 254 | BLUETOOTH_LINUX_MONITOR | adapter index u16 BE, opcode u16 BE (``MonitorOpcode``), data |
/// | 251 | BLUETOOTH_LE_LL | LE link-layer packet (air capture; not decoded) |
/// | 256 | BLUETOOTH_LE_LL_WITH_PHDR | 10-byte radio pseudo-header (``LELinkLayerPseudoHeader``), LL packet |
/// | 272 | NORDIC_BLE | nRF Sniffer header (``NordicSnifferHeader``), LL packet |
public struct CaptureLinkType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let bluetoothH4 = CaptureLinkType(rawValue: 187)
    public static let bluetoothH4WithPseudoHeader = CaptureLinkType(rawValue: 201)
    public static let bluetoothLinuxMonitor = CaptureLinkType(rawValue: 254)
    public static let bluetoothLELinkLayer = CaptureLinkType(rawValue: 251)
    public static let bluetoothLELinkLayerWithPseudoHeader = CaptureLinkType(rawValue: 256)
    public static let nordicBLE = CaptureLinkType(rawValue: 272)

    /// Whether BandKit turns this link type's packets into HCI packets.
    @inlinable public var isHCI: Bool {
        rawValue == 187 || rawValue == 201 || rawValue == 254
    }

    public var description: String {
        switch rawValue {
        case 1: return "1 (ETHERNET)"
        case 187: return "187 (BLUETOOTH_HCI_H4)"
        case 201: return "201 (BLUETOOTH_HCI_H4_WITH_PHDR)"
        case 251: return "251 (BLUETOOTH_LE_LL)"
        case 254: return "254 (BLUETOOTH_LINUX_MONITOR)"
        case 256: return "256 (BLUETOOTH_LE_LL_WITH_PHDR)"
        case 272: return "272 (NORDIC_BLE, nRF Sniffer)"
        default: return "\(rawValue)"
        }
    }
}
