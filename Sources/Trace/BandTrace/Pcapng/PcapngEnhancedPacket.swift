/// The Enhanced Packet Block (and the obsolete Packet Block, laid out the same but for a
/// 16-bit interface ID followed by a 16-bit drops count): one captured packet.
///
/// draft-ietf-opsawg-pcapng §4.3 (Enhanced Packet), Appendix A (Packet Block, type 2).
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 4 | block type 6 (2 for the obsolete Packet Block) |
/// | 4 | 4 | block total length |
/// | 8 | 4 | interface ID (type 2: u16 interface ID, u16 drops count) |
/// | 12 | 4 | timestamp, upper 32 bits (units of the interface's `if_tsresol`) |
/// | 16 | 4 | timestamp, lower 32 bits |
/// | 20 | 4 | captured packet length |
/// | 24 | 4 | original packet length |
/// | 28 | … | packet data, padded to 32 bits |
/// | … | … | options (`epb_flags`, `epb_dropcount`, comments: skipped) |
/// | n − 4 | 4 | block total length |
///
/// The captured length must fit the block; the original length is informational (tshark
/// accepts captured > original, and so does BandKit).
enum PcapngEnhancedPacket {
    static let minimumLength = 32
    static let dataOffset = 28

    /// The interface ID at offset 8: 32 bits for type 6, the low 16 of the type-2 layout.
    @inline(__always)
    static func interfaceID(_ base: UnsafeRawPointer, obsolete: Bool, order: PcapngByteOrder) -> UInt32 {
        obsolete ? UInt32(order.u16(base, 8)) : order.u32(base, 8)
    }

    @inline(__always)
    static func timestamp(_ base: UnsafeRawPointer, order: PcapngByteOrder) -> UInt64 {
        UInt64(order.u32(base, 12)) << 32 | UInt64(order.u32(base, 16))
    }
}

/// The Simple Packet Block: a packet with neither timestamp nor interface ID (it belongs to
/// interface 0), for writers that want the least overhead.
///
/// draft-ietf-opsawg-pcapng §4.4.
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 4 | block type 3 |
/// | 4 | 4 | block total length |
/// | 8 | 4 | original packet length |
/// | 12 | … | packet data, padded to 32 bits |
/// | n − 4 | 4 | block total length |
///
/// The captured length is not stored: it is the original length, cut to interface 0's snap
/// length and to what the block holds (§4.4). BandKit gives such packets timestamp 0.
enum PcapngSimplePacket {
    static let minimumLength = 16
    static let dataOffset = 12
}
