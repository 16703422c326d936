import BandWire

/// The 4-byte basic L2CAP header in front of every B-frame.
///
/// Core 5.4 Vol 3 Part A §3.1; Wireshark `packet-btl2cap.c` (`hf_btl2cap_length`,
/// `hf_btl2cap_cid`).
///
/// | bytes | field |
/// |---|---|
/// | u16 LE | length of the information payload (excluding this header) |
/// | u16 LE | channel ID (``L2CAPChannelID``) |
public struct L2CAPBasicHeader: WireCodable, Hashable, Sendable {
    public static let size = 4

    public var payloadLength: UInt16
    public var channel: L2CAPChannelID

    public init(payloadLength: UInt16, channel: L2CAPChannelID) {
        self.payloadLength = payloadLength
        self.channel = channel
    }

    @inlinable
    public init(parsing input: inout ByteCursor) throws(ParseError) {
        payloadLength = try input.readUInt16LE("L2CAP length")
        channel = L2CAPChannelID(rawValue: try input.readUInt16LE("L2CAP channel ID"))
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt16LE(payloadLength)
        output.writeUInt16LE(channel.rawValue)
    }
}

/// L2CAP channel identifiers on LE (Core 5.4 Vol 3 Part A §2.1, Table 2.3; Wireshark `cid_rvals`).
public struct L2CAPChannelID: RawRepresentable, Hashable, Sendable {
    public var rawValue: UInt16
    @inlinable public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// 0x0004: the Attribute Protocol.
    public static let att = L2CAPChannelID(rawValue: 0x0004)
    /// 0x0005: LE signaling.
    public static let leSignaling = L2CAPChannelID(rawValue: 0x0005)
    /// 0x0006: the Security Manager Protocol.
    public static let securityManager = L2CAPChannelID(rawValue: 0x0006)
}
