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

    /// Disconnect (Vol 4 Part E §7.1.6).
    public static let disconnect = HCIOpcode(group: 0x01, command: 0x0006)
    /// Set Event Mask (Vol 4 Part E §7.3.1).
    public static let setEventMask = HCIOpcode(group: 0x03, command: 0x0001)
    /// Reset (§7.3.2).
    public static let reset = HCIOpcode(group: 0x03, command: 0x0003)
    /// Read Local Version Information (§7.4.1).
    public static let readLocalVersionInformation = HCIOpcode(group: 0x04, command: 0x0001)
    /// Read Local Supported Features (§7.4.3).
    public static let readLocalSupportedFeatures = HCIOpcode(group: 0x04, command: 0x0003)
    /// Read BD_ADDR (§7.4.6).
    public static let readBDADDR = HCIOpcode(group: 0x04, command: 0x0009)
    /// LE Set Event Mask (§7.8.1).
    public static let leSetEventMask = HCIOpcode(group: 0x08, command: 0x0001)
    /// LE Read Buffer Size [v1] (§7.8.2).
    public static let leReadBufferSize = HCIOpcode(group: 0x08, command: 0x0002)
    /// LE Set Advertising Parameters (§7.8.5).
    public static let leSetAdvertisingParameters = HCIOpcode(group: 0x08, command: 0x0006)
    /// LE Set Advertising Data (§7.8.7).
    public static let leSetAdvertisingData = HCIOpcode(group: 0x08, command: 0x0008)
    /// LE Set Scan Response Data (§7.8.8).
    public static let leSetScanResponseData = HCIOpcode(group: 0x08, command: 0x0009)
    /// LE Set Advertising Enable (§7.8.9).
    public static let leSetAdvertisingEnable = HCIOpcode(group: 0x08, command: 0x000A)
    /// LE Encrypt (§7.8.22).
    public static let leEncrypt = HCIOpcode(group: 0x08, command: 0x0017)
    /// LE Rand (§7.8.23).
    public static let leRand = HCIOpcode(group: 0x08, command: 0x0018)
    /// LE Long Term Key Request Reply (§7.8.25).
    public static let leLongTermKeyRequestReply = HCIOpcode(group: 0x08, command: 0x001A)
    /// LE Long Term Key Request Negative Reply (§7.8.26).
    public static let leLongTermKeyRequestNegativeReply = HCIOpcode(group: 0x08, command: 0x001B)
    /// LE Set Data Length (§7.8.33).
    public static let leSetDataLength = HCIOpcode(group: 0x08, command: 0x0022)
    /// LE Read Local P-256 Public Key (§7.8.36).
    public static let leReadLocalP256PublicKey = HCIOpcode(group: 0x08, command: 0x0025)
    /// LE Generate DHKey [v1] (§7.8.37).
    public static let leGenerateDHKey = HCIOpcode(group: 0x08, command: 0x0026)
    /// LE Read Buffer Size [v2] (§7.8.2), which adds the ISO buffers.
    public static let leReadBufferSizeV2 = HCIOpcode(group: 0x08, command: 0x0060)

    public var description: String {
        switch self {
        case .disconnect: return "Disconnect"
        case .setEventMask: return "Set Event Mask"
        case .reset: return "Reset"
        case .readLocalVersionInformation: return "Read Local Version Information"
        case .readLocalSupportedFeatures: return "Read Local Supported Features"
        case .readBDADDR: return "Read BD_ADDR"
        case .leSetEventMask: return "LE Set Event Mask"
        case .leReadBufferSize: return "LE Read Buffer Size"
        case .leReadBufferSizeV2: return "LE Read Buffer Size [v2]"
        case .leSetAdvertisingParameters: return "LE Set Advertising Parameters"
        case .leSetAdvertisingData: return "LE Set Advertising Data"
        case .leSetScanResponseData: return "LE Set Scan Response Data"
        case .leSetAdvertisingEnable: return "LE Set Advertising Enable"
        case .leEncrypt: return "LE Encrypt"
        case .leRand: return "LE Rand"
        case .leLongTermKeyRequestReply: return "LE Long Term Key Request Reply"
        case .leLongTermKeyRequestNegativeReply: return "LE Long Term Key Request Negative Reply"
        case .leSetDataLength: return "LE Set Data Length"
        case .leReadLocalP256PublicKey: return "LE Read Local P-256 Public Key"
        case .leGenerateDHKey: return "LE Generate DHKey"
        case .leSetScanParameters: return "LE Set Scan Parameters"
        case .leSetScanEnable: return "LE Set Scan Enable"
        case .leSetExtendedScanParameters: return "LE Set Extended Scan Parameters"
        case .leSetExtendedScanEnable: return "LE Set Extended Scan Enable"
        default: return "HCI command 0x\(String(rawValue, radix: 16)) (OGF 0x\(String(group, radix: 16)), OCF 0x\(String(command, radix: 16)))"
        }
    }
}
