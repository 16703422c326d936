/// The 24-byte header of a classic pcap file (libpcap's format, before pcapng).
///
/// draft-ietf-opsawg-pcap §4 (File Header); tcpdump `pcap-savefile(5)`. The magic number,
/// written in the writer's byte order, gives both the order and the timestamp unit:
///
/// | magic as written | order | fraction unit |
/// |---|---|---|
/// | A1 B2 C3 D4 | big-endian | microseconds |
/// | D4 C3 B2 A1 | little-endian | microseconds |
/// | A1 B2 3C 4D | big-endian | nanoseconds |
/// | 4D 3C B2 A1 | little-endian | nanoseconds |
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 4 | magic number |
/// | 4 | 2 | major version (2) |
/// | 6 | 2 | minor version (4) |
/// | 8 | 4 | reserved (was thiszone) |
/// | 12 | 4 | reserved (was sigfigs) |
/// | 16 | 4 | snap length |
/// | 20 | 4 | link type in bits 0–15 (bits 26–31: FCS length, ignored) |
public struct PcapFileHeader: Hashable, Sendable {
    public static let size = 24
    static let microsecondMagic: UInt32 = 0xA1B2_C3D4
    static let nanosecondMagic: UInt32 = 0xA1B2_3C4D

    public var bigEndian: Bool
    public var nanoseconds: Bool
    public var majorVersion: UInt16
    public var minorVersion: UInt16
    public var snapLength: UInt32
    public var linkType: CaptureLinkType

    /// The order and unit named by the magic at `base`, or nil when it is not a pcap magic.
    static func magic(_ base: UnsafeRawPointer) -> (order: PcapngByteOrder, nanoseconds: Bool)? {
        let big = UInt32(bigEndian: base.loadUnaligned(as: UInt32.self))
        switch big {
        case microsecondMagic: return (PcapngByteOrder(bigEndian: true), false)
        case nanosecondMagic: return (PcapngByteOrder(bigEndian: true), true)
        case microsecondMagic.byteSwapped: return (PcapngByteOrder(bigEndian: false), false)
        case nanosecondMagic.byteSwapped: return (PcapngByteOrder(bigEndian: false), true)
        default: return nil
        }
    }

    init(_ base: UnsafeRawPointer, order: PcapngByteOrder, nanoseconds: Bool) {
        bigEndian = order.bigEndian
        self.nanoseconds = nanoseconds
        majorVersion = order.u16(base, 4)
        minorVersion = order.u16(base, 6)
        snapLength = order.u32(base, 16)
        linkType = CaptureLinkType(rawValue: order.u32(base, 20) & 0xFFFF)
    }
}

/// The 16-byte header in front of every pcap record.
///
/// draft-ietf-opsawg-pcap §5 (Packet Record), in the file's byte order.
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 4 | timestamp, seconds since 1970-01-01 UTC |
/// | 4 | 4 | microseconds or nanoseconds within the second (per the magic) |
/// | 8 | 4 | captured packet length |
/// | 12 | 4 | original packet length |
/// | 16 | … | packet data (captured length bytes, no padding) |
enum PcapRecordHeader {
    static let size = 16
}
