import BandWire

/// Encryption Change: the parameters of HCI event 0x08 (Core 5.4 Vol 4 Part E §7.7.8).
///
/// | bytes | field |
/// |---|---|
/// | u8 | status |
/// | u16 LE | connection handle |
/// | u8 | encryption enabled (0 off, 1 AES-CCM on LE) |
public struct EncryptionChange: WireCodable, Hashable, Sendable {
    public static let code = HCIEventCode.encryptionChange

    public var status: HCIStatus
    public var handle: UInt16
    public var enabled: UInt8

    public init(status: HCIStatus = .success, handle: UInt16, enabled: UInt8 = 1) {
        self.status = status
        self.handle = handle
        self.enabled = enabled
    }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        status = HCIStatus(rawValue: try input.readUInt8("status"))
        handle = try input.readUInt16LE("connection handle") & 0x0FFF
        enabled = try input.readUInt8("encryption enabled")
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(status.rawValue)
        output.writeUInt16LE(handle)
        output.writeUInt8(enabled)
    }
}
