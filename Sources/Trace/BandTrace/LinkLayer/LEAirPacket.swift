import BandWire

/// One LE link-layer packet as a sniffer captured it off the air, its pseudo-header read: a
/// view into the reader's buffer.
///
/// Core 5.4 Vol 6 Part B §2.1 (uncoded PHY packet): preamble (not captured), access address
/// (4 bytes, little-endian), PDU (2-byte header, payload), CRC (3 bytes).
public struct LEAirPacket {
    /// Whether the radio's CRC check passed, failed, or was not done.
    public enum CRCStatus: Hashable, Sendable { case valid, invalid, unchecked }

    /// The advertising physical channel's access address (Core Vol 6 Part B §2.1.2).
    public static let advertisingAccessAddress: UInt32 = 0x8E89_BED6

    public var accessAddress: UInt32
    /// The PDU header's first byte: advertising PDU type and address types, or data LLID,
    /// NESN, SN, MD (Core Vol 6 Part B §2.3, §2.4).
    public var header: UInt8
    /// The PDU payload (the header's length byte long; MIC included on encrypted links).
    public var payload: UnsafeRawBufferPointer
    /// File offset of `payload`'s first byte.
    public var payloadOffset: Int
    public var crc: CRCStatus
    /// The direction the sniffer recorded (nil: it did not say).
    public var direction: TraceDirection?
    /// The sniffer says the link is encrypted (nRF Sniffer flag, or a checked MIC).
    public var encrypted: Bool

    public init(accessAddress: UInt32, header: UInt8, payload: UnsafeRawBufferPointer, payloadOffset: Int,
                crc: CRCStatus, direction: TraceDirection?, encrypted: Bool) {
        self.accessAddress = accessAddress
        self.header = header
        self.payload = payload
        self.payloadOffset = payloadOffset
        self.crc = crc
        self.direction = direction
        self.encrypted = encrypted
    }

    /// The LE packet `bytes` (access address onwards, CRC last), at file offset `offset`.
    static func parse(_ bytes: UnsafeRawBufferPointer, offset: Int, crc: CRCStatus, direction: TraceDirection?,
                      encrypted: Bool) throws(ParseError) -> LEAirPacket {
        var cursor = ByteCursor(bytes, baseOffset: offset)
        let accessAddress = try cursor.readUInt32LE("LL access address")
        let header = try cursor.readUInt8("LL PDU header")
        let length = Int(try cursor.readUInt8("LL PDU length"))
        let payloadOffset = cursor.offset
        let payload = try cursor.readBytes(length, "LL PDU payload")
        try cursor.skip(3, "LL CRC")
        return LEAirPacket(accessAddress: accessAddress, header: header, payload: payload, payloadOffset: payloadOffset,
                           crc: crc, direction: direction, encrypted: encrypted)
    }
}

/// LINKTYPE_BLUETOOTH_LE_LL_WITH_PHDR (256): a 10-byte pseudo-header before the LE packet.
///
/// tcpdump's LINKTYPE list (<https://www.tcpdump.org/linktypes/LINKTYPE_BLUETOOTH_LE_LL_WITH_PHDR.html>),
/// Wireshark `packet-btle_rf.c`. All fields little-endian.
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 1 | RF channel (0–39) |
/// | 1 | 1 | signal power (dBm, i8) |
/// | 2 | 1 | noise power (dBm, i8) |
/// | 3 | 1 | access address offenses |
/// | 4 | 4 | reference access address |
/// | 8 | 2 | flags: 0x0001 dewhitened, 0x0008 decrypted, 0x0380 PDU type (2 = central → peripheral, 3 = peripheral → central, 0 = not said), 0x0400 CRC checked, 0x0800 CRC valid, 0x1000 MIC checked, 0x2000 MIC valid |
/// | 10 | … | LE packet: access address, PDU, CRC |
public enum LELinkLayerPseudoHeader {
    public static let size = 10

    static func parse(_ data: UnsafeRawBufferPointer, offset: Int) throws(ParseError) -> LEAirPacket {
        guard data.count >= size else { throw ParseError(.truncated, at: offset + data.count, field: "LE LL pseudo-header") }
        let flags = UInt16(data[8]) | UInt16(data[9]) << 8
        let crc: LEAirPacket.CRCStatus = flags & 0x0400 == 0 ? .unchecked : (flags & 0x0800 != 0 ? .valid : .invalid)
        let direction: TraceDirection?
        switch (flags >> 7) & 0x7 {
        case 2: direction = .tx
        case 3: direction = .rx
        default: direction = nil
        }
        let encrypted = flags & 0x1000 != 0
        return try LEAirPacket.parse(UnsafeRawBufferPointer(rebasing: data[size...]), offset: offset + size,
                                     crc: crc, direction: direction, encrypted: encrypted)
    }
}

/// LINKTYPE_NORDIC_BLE (272): the nRF Sniffer for Bluetooth LE's header before the LE packet,
/// protocol versions 2 and 3 (nRF Sniffer 2.x–4.x).
///
/// Wireshark `epan/dissectors/packet-nordic_ble.c` (Nordic's own dissector), Nordic's nRF
/// Sniffer for Bluetooth LE user guide. Multi-byte fields little-endian.
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 1 | board ID |
/// | 1 | 2 | payload length (bytes after the 6-byte header that follows the board ID) |
/// | 3 | 1 | protocol version (2 or 3; 1 and the 0xBEEF legacy format are refused) |
/// | 4 | 2 | packet counter |
/// | 6 | 1 | packet ID: 0x02 advertising PDU (v3), 0x06 packet (others, e.g. pings, are skipped) |
/// | 7 | 1 | packet header length (10) |
/// | 8 | 1 | flags: bit 0 CRC OK, bit 1 direction (1 = central → peripheral), bit 2 encrypted, bit 3 MIC OK, bits 4–6 PHY |
/// | 9 | 1 | RF channel |
/// | 10 | 1 | RSSI (negated) |
/// | 11 | 2 | event counter |
/// | 13 | 4 | time (µs; delta in v2, timestamp in v3) |
/// | 7 + header length | … | LE packet: access address, PDU, CRC |
public enum NordicSnifferHeader {
    /// Board ID and the 6-byte header.
    public static let fixedSize = 7

    /// The LE packet the record carries, or nil for sniffer messages that carry none.
    static func parse(_ data: UnsafeRawBufferPointer, offset: Int) throws(ParseError) -> LEAirPacket? {
        guard data.count >= fixedSize + 1 else { throw ParseError(.truncated, at: offset + data.count, field: "nRF Sniffer header") }
        let version = data[3]
        guard version == 2 || version == 3 else { throw ParseError(.unsupported, at: offset + 3, field: "nRF Sniffer protocol version") }
        let packetID = data[6]
        guard packetID == 0x06 || packetID == 0x02 else { return nil }
        let headerLength = Int(data[7])
        guard headerLength >= 4 else { throw ParseError(.invalidValue, at: offset + 7, field: "nRF Sniffer packet header length") }
        guard data.count >= fixedSize + headerLength else {
            throw ParseError(.truncated, at: offset + data.count, field: "nRF Sniffer packet header")
        }
        let flags = data[8]
        return try LEAirPacket.parse(UnsafeRawBufferPointer(rebasing: data[(fixedSize + headerLength)...]),
                                     offset: offset + fixedSize + headerLength,
                                     crc: flags & 1 != 0 ? .valid : .invalid,
                                     direction: flags & 2 != 0 ? .tx : .rx,
                                     encrypted: flags & 4 != 0)
    }
}
