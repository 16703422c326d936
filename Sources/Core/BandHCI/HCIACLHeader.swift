import BandWire

/// The 4-byte header of an HCI ACL data packet.
///
/// Core 5.4 Vol 4 Part E §5.4.2; Wireshark `packet-bthci_acl.c` (`hf_bthci_acl_chandle`
/// 0x0FFF, `hf_bthci_acl_pb_flag` 0x3000, `hf_bthci_acl_bc_flag` 0xC000).
///
/// | bits / bytes | field |
/// |---|---|
/// | u16 LE bits 0–11 | connection handle |
/// | bits 12–13 | packet boundary flag (``ACLPacketBoundary``) |
/// | bits 14–15 | broadcast flag |
/// | u16 LE | data total length |
public struct HCIACLHeader: WireCodable, Hashable, Sendable {
    public static let size = 4
    public static let maximumHandle: UInt16 = 0x0EFF

    public var handle: UInt16
    public var boundary: ACLPacketBoundary
    public var broadcast: UInt8
    public var dataLength: UInt16

    public init(handle: UInt16, boundary: ACLPacketBoundary, broadcast: UInt8 = 0, dataLength: UInt16) {
        self.handle = handle & 0x0FFF
        self.boundary = boundary
        self.broadcast = broadcast & 0x3
        self.dataLength = dataLength
    }

    @inlinable
    public init(parsing input: inout ByteCursor) throws(ParseError) {
        let word = try input.readUInt16LE("ACL handle and flags")
        handle = word & 0x0FFF
        boundary = ACLPacketBoundary(rawValue: UInt8(truncatingIfNeeded: word >> 12) & 0x3)
        broadcast = UInt8(truncatingIfNeeded: word >> 14)
        dataLength = try input.readUInt16LE("ACL data length")
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt16LE(handle & 0x0FFF | UInt16(boundary.rawValue & 0x3) << 12 | UInt16(broadcast & 0x3) << 14)
        output.writeUInt16LE(dataLength)
    }
}

/// The ACL packet boundary flag (Core 5.4 Vol 4 Part E §5.4.2; Wireshark `pb_flag_vals`).
///
/// On LE the host sends 0b00 and controllers report 0b10, but real traces have host
/// packets with 0b10 too, so both mean "first fragment of an L2CAP PDU" here.
public struct ACLPacketBoundary: RawRepresentable, Hashable, Sendable {
    public var rawValue: UInt8
    @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// 0b00: first fragment, not automatically flushable.
    public static let firstNonFlushable = ACLPacketBoundary(rawValue: 0b00)
    /// 0b01: continuing fragment.
    public static let continuing = ACLPacketBoundary(rawValue: 0b01)
    /// 0b10: first fragment, automatically flushable.
    public static let firstFlushable = ACLPacketBoundary(rawValue: 0b10)
    /// 0b11: a complete L2CAP PDU, automatically flushable (BR/EDR only; treated as a start).
    public static let complete = ACLPacketBoundary(rawValue: 0b11)

    @inlinable public var startsPDU: Bool { rawValue != Self.continuing.rawValue }
}
