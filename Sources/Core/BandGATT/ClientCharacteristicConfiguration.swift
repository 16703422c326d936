import BandWire

/// The Client Characteristic Configuration descriptor (0x2902): what a client subscribed to.
///
/// Core 5.4 Vol 3 Part G §3.3.3.3 (Table 3.11). Write `01 00` to enable notifications.
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 2 | bit 0 notifications, bit 1 indications, bits 2–15 reserved |
///
/// Reserved bits are kept, so a value read back from a peer re-encodes unchanged.
public struct ClientCharacteristicConfiguration: OptionSet, WireCodable, Hashable, Sendable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let notifications = ClientCharacteristicConfiguration(rawValue: 0x0001)
    public static let indications = ClientCharacteristicConfiguration(rawValue: 0x0002)

    public var notificationsEnabled: Bool { contains(.notifications) }
    public var indicationsEnabled: Bool { contains(.indications) }
    /// Bits 2–15, which the spec reserves for future use.
    public var reservedBits: UInt16 { rawValue & ~0x0003 }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        rawValue = try input.readUInt16LE("client characteristic configuration")
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt16LE(rawValue)
    }
}
