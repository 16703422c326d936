/// The Section Header Block: starts the file and every further section, and fixes the
/// section's byte order.
///
/// draft-ietf-opsawg-pcapng §4.1. The block type 0x0A0D0D0A is a palindrome, so it reads the
/// same in both orders; the byte-order magic tells which order the rest of the section uses.
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 4 | block type 0x0A0D0D0A |
/// | 4 | 4 | block total length |
/// | 8 | 4 | byte-order magic 0x1A2B3C4D, written in the section's order |
/// | 12 | 2 | major version (1) |
/// | 14 | 2 | minor version (0; 2 in some old writers) |
/// | 16 | 8 | section length, i64, −1 when not given (ignored: BandKit streams) |
/// | 24 | … | options (`shb_hardware`, `shb_os`, `shb_userappl`: skipped) |
/// | n − 4 | 4 | block total length |
public struct PcapngSectionHeader: Hashable, Sendable {
    public static let byteOrderMagic: UInt32 = 0x1A2B_3C4D
    /// Type, length, byte-order magic, versions, section length, trailing length.
    public static let minimumLength = 28

    public var bigEndian: Bool
    public var majorVersion: UInt16
    public var minorVersion: UInt16

    /// The byte order named by the magic at offset 8 (which the caller has checked is there),
    /// or nil when it is neither.
    @inlinable
    static func byteOrder(_ base: UnsafeRawPointer) -> PcapngByteOrder? {
        let magic = UInt32(littleEndian: base.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
        if magic == byteOrderMagic { return PcapngByteOrder(bigEndian: false) }
        if magic == byteOrderMagic.byteSwapped { return PcapngByteOrder(bigEndian: true) }
        return nil
    }

    @inlinable
    init(_ base: UnsafeRawPointer, order: PcapngByteOrder) {
        bigEndian = order.bigEndian
        majorVersion = order.u16(base, 12)
        minorVersion = order.u16(base, 14)
    }
}
