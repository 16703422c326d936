/// The type field that starts every pcapng block.
///
/// draft-ietf-opsawg-pcapng §4 (General Block Structure) and §10.1 (Block Type Codes).
/// Every block has the same frame, all fields in the byte order of its section:
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 4 | block type |
/// | 4 | 4 | block total length *n* (multiple of 4, ≥ 12) |
/// | 8 | *n* − 12 | block body (padded to 32 bits) |
/// | *n* − 4 | 4 | block total length again |
///
/// BandKit parses the blocks below marked "parsed" and skips every other block by its length
/// without buffering it (checking the trailing length), so a large Name Resolution, Decryption
/// Secrets or custom block costs only the reading.
///
/// | value | block | handling |
/// |---|---|---|
/// | 0x0A0D0D0A | Section Header (§4.1) | parsed: byte order, version; resets interfaces |
/// | 0x00000001 | Interface Description (§4.2) | parsed: link type, snap length, `if_tsresol`, `if_tsoffset` |
/// | 0x00000002 | Packet (obsolete, Appendix A) | parsed like an Enhanced Packet |
/// | 0x00000003 | Simple Packet (§4.4) | parsed: interface 0, no timestamp |
/// | 0x00000004 | Name Resolution (§4.5) | skipped |
/// | 0x00000005 | Interface Statistics (§4.6) | skipped |
/// | 0x00000006 | Enhanced Packet (§4.3) | parsed |
/// | 0x0000000A | Decryption Secrets (§4.7) | skipped |
/// | 0x00000BAD / 0x40000BAD | Custom (§4.8) | skipped |
/// | anything else | — | skipped |
public struct PcapngBlockType: RawRepresentable, Hashable, Sendable {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let sectionHeader = PcapngBlockType(rawValue: 0x0A0D_0D0A)
    public static let interfaceDescription = PcapngBlockType(rawValue: 1)
    public static let obsoletePacket = PcapngBlockType(rawValue: 2)
    public static let simplePacket = PcapngBlockType(rawValue: 3)
    public static let nameResolution = PcapngBlockType(rawValue: 4)
    public static let interfaceStatistics = PcapngBlockType(rawValue: 5)
    public static let enhancedPacket = PcapngBlockType(rawValue: 6)
    public static let decryptionSecrets = PcapngBlockType(rawValue: 0x0A)
    public static let custom = PcapngBlockType(rawValue: 0x0BAD)
    public static let customNoCopy = PcapngBlockType(rawValue: 0x4000_0BAD)

    /// Blocks whose contents BandKit needs, so they must fit the reader's buffer whole.
    @inlinable public var isParsed: Bool {
        self == .sectionHeader || self == .interfaceDescription || self == .obsoletePacket
            || self == .simplePacket || self == .enhancedPacket
    }
}

/// Loads of section-ordered integers from a block the caller has checked is in memory.
@usableFromInline
struct PcapngByteOrder: Sendable {
    @usableFromInline var bigEndian: Bool

    @inlinable init(bigEndian: Bool) { self.bigEndian = bigEndian }

    @inlinable @inline(__always)
    func u32(_ base: UnsafeRawPointer, _ offset: Int) -> UInt32 {
        let raw = base.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
        return bigEndian ? UInt32(bigEndian: raw) : UInt32(littleEndian: raw)
    }

    @inlinable @inline(__always)
    func u16(_ base: UnsafeRawPointer, _ offset: Int) -> UInt16 {
        let raw = base.loadUnaligned(fromByteOffset: offset, as: UInt16.self)
        return bigEndian ? UInt16(bigEndian: raw) : UInt16(littleEndian: raw)
    }

    @inlinable @inline(__always)
    func u64(_ base: UnsafeRawPointer, _ offset: Int) -> UInt64 {
        let raw = base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
        return bigEndian ? UInt64(bigEndian: raw) : UInt64(littleEndian: raw)
    }
}
