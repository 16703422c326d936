import BandWire

/// The 2-byte header of an HCI event packet (Core 5.4 Vol 4 Part E §5.4.4).
///
/// | bytes | field |
/// |---|---|
/// | u8 | event code (``HCIEventCode``) |
/// | u8 | parameter total length |
public struct HCIEventHeader: WireCodable, Hashable, Sendable {
    public static let size = 2

    public var code: HCIEventCode
    public var parameterLength: UInt8

    public init(code: HCIEventCode, parameterLength: UInt8) {
        self.code = code
        self.parameterLength = parameterLength
    }

    @inlinable
    public init(parsing input: inout ByteCursor) throws(ParseError) {
        code = HCIEventCode(rawValue: try input.readUInt8("event code"))
        parameterLength = try input.readUInt8("event parameter length")
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(code.rawValue)
        output.writeUInt8(parameterLength)
    }
}

/// HCI event codes BandKit looks at (Core 5.4 Vol 4 Part E §7.7; BlueZ `lib/hci.h`).
public struct HCIEventCode: RawRepresentable, Hashable, Sendable {
    public var rawValue: UInt8
    @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let disconnectionComplete = HCIEventCode(rawValue: 0x05)
    public static let encryptionChange = HCIEventCode(rawValue: 0x08)
    public static let hardwareError = HCIEventCode(rawValue: 0x10)
    public static let dataBufferOverflow = HCIEventCode(rawValue: 0x1A)
    public static let encryptionKeyRefreshComplete = HCIEventCode(rawValue: 0x30)
    public static let commandComplete = HCIEventCode(rawValue: 0x0E)
    public static let commandStatus = HCIEventCode(rawValue: 0x0F)
    public static let numberOfCompletedPackets = HCIEventCode(rawValue: 0x13)
    public static let leMeta = HCIEventCode(rawValue: 0x3E)
}

/// LE Meta event subevent codes (Core 5.4 Vol 4 Part E §7.7.65; BlueZ `EVT_LE_*`).
public struct LEMetaSubevent: RawRepresentable, Hashable, Sendable {
    public var rawValue: UInt8
    @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let connectionComplete = LEMetaSubevent(rawValue: 0x01)
    public static let advertisingReport = LEMetaSubevent(rawValue: 0x02)
    public static let connectionUpdateComplete = LEMetaSubevent(rawValue: 0x03)
    public static let longTermKeyRequest = LEMetaSubevent(rawValue: 0x05)
    public static let dataLengthChange = LEMetaSubevent(rawValue: 0x07)
    public static let readLocalP256PublicKeyComplete = LEMetaSubevent(rawValue: 0x08)
    public static let generateDHKeyComplete = LEMetaSubevent(rawValue: 0x09)
    public static let enhancedConnectionComplete = LEMetaSubevent(rawValue: 0x0A)
    public static let extendedAdvertisingReport = LEMetaSubevent(rawValue: 0x0D)
}
