import BandKitSystem
import BandWire

/// A pcapng or pcap file that cannot be read further, and exactly where it went wrong.
///
/// Everything before ``offset`` has been delivered when a reader throws this. pcapng blocks
/// carry their length twice, but a broken length still leaves nothing to resynchronise on
/// reliably, so reading stops (as tshark does).
public struct CaptureFileError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Format: String, Hashable, Sendable {
        case pcapng
        case pcap
    }

    public enum Kind: Hashable, Sendable {
        /// The file does not start with a Section Header Block (pcapng) or a pcap magic.
        case badMagic
        /// A Section Header Block whose byte-order magic is neither 0x1A2B3C4D nor its swap.
        case badByteOrderMagic(UInt32)
        /// A format version BandKit does not read (pcapng 1.x and pcap 2.x are read).
        case unsupportedVersion(major: UInt16, minor: UInt16)
        /// A block total length under 12 or not a multiple of 4.
        case invalidBlockLength(UInt32)
        /// A block BandKit must parse (header, interface, packet) longer than the limit.
        case blockTooLong(length: UInt32, limit: Int)
        /// The block total length at the end of a block differs from the one at its start.
        case blockLengthMismatch(leading: UInt32, trailing: UInt32)
        /// A block whose total length leaves no room for its fixed fields.
        case blockTooShort(type: UInt32, length: UInt32)
        /// A packet naming an interface its section has not described.
        case unknownInterface(id: UInt32, described: Int)
        /// More interfaces in one section than the reader keeps.
        case tooManyInterfaces(limit: Int)
        /// A packet whose captured length runs past the end of its block.
        case capturedLengthExceedsBlock(captured: UInt32, available: Int)
        /// A packet longer than any HCI packet could be (and than tshark accepts).
        case packetTooLong(captured: UInt32, limit: Int)
        /// An option whose length runs past the end of its block (offset is the option's).
        case malformedOption(code: UInt16, length: UInt16)
        /// An `if_tsresol` BandKit cannot convert (10^-n with n > 19, 2^-n with n > 63).
        case unsupportedTimestampResolution(UInt8)
        /// The file ends inside the file header (pcap) or the first block's header (pcapng).
        case truncatedFileHeader(available: Int)
        /// The file ends inside a block or record.
        case truncated(expected: Int, available: Int)
        /// The operating system refused (open, read).
        case system(call: String, errno: Int32)
    }

    public var format: Format
    public var kind: Kind
    /// Zero-based index of the block (pcapng, every block counted) or record (pcap) at fault;
    /// nil for the pcap file header and I/O outside blocks.
    public var blockIndex: Int?
    /// Byte offset in the file of the block or field at fault.
    public var offset: Int

    public init(_ format: Format, _ kind: Kind, blockIndex: Int?, offset: Int) {
        self.format = format
        self.kind = kind
        self.blockIndex = blockIndex
        self.offset = offset
    }

    public var isSystemFailure: Bool {
        if case .system = kind { return true }
        return false
    }

    /// Whether the file merely stops early (a capture cut off mid-write).
    public var isTruncation: Bool {
        switch kind {
        case .truncated, .truncatedFileHeader: return true
        default: return false
        }
    }

    public var description: String {
        let unit = format == .pcapng ? "block" : "record"
        let place = blockIndex.map { "\(format.rawValue) \(unit) \($0) at byte offset \(offset)" } ?? "byte offset \(offset)"
        let what: String
        switch kind {
        case .badMagic:
            what = format == .pcapng ? "not a pcapng file (it does not start with a Section Header Block, 0x0A0D0D0A)"
                                     : "not a pcap file (unknown magic number)"
        case .badByteOrderMagic(let m): what = "byte-order magic 0x\(String(m, radix: 16)) is neither 0x1a2b3c4d nor 0x4d3c2b1a"
        case .unsupportedVersion(let major, let minor): what = "\(format.rawValue) version \(major).\(minor) is not supported"
        case .invalidBlockLength(let n): what = "block total length \(n) is under 12 or not a multiple of 4"
        case .blockTooLong(let n, let limit): what = "block total length \(n) exceeds the \(limit)-byte limit"
        case .blockLengthMismatch(let a, let b): what = "block total length \(a) at the start but \(b) at the end"
        case .blockTooShort(let type, let n): what = "block type 0x\(String(type, radix: 16)) of \(n) bytes is too short for its fields"
        case .unknownInterface(let id, let count): what = "packet on interface \(id) but the section describes \(count)"
        case .tooManyInterfaces(let limit): what = "more than \(limit) interfaces in one section"
        case .capturedLengthExceedsBlock(let c, let n): what = "captured length \(c) exceeds the \(n) bytes the block holds"
        case .packetTooLong(let c, let limit): what = "captured length \(c) exceeds the \(limit)-byte limit"
        case .malformedOption(let code, let n): what = "option \(code) of \(n) bytes runs past the end of its block"
        case .unsupportedTimestampResolution(let r): what = "if_tsresol 0x\(String(r, radix: 16)) is not supported"
        case .truncatedFileHeader(let n): what = "file ends inside the \(format.rawValue) header (\(n) bytes present)"
        case .truncated(let expected, let n): what = "file ends inside a \(unit) (\(expected) bytes announced, \(n) present)"
        case .system(let call, let errno): what = "\(call) failed: \(Errno(rawValue: errno))"
        }
        return "\(place): \(what)"
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.format == rhs.format && lhs.blockIndex == rhs.blockIndex && lhs.offset == rhs.offset
            && lhs.description == rhs.description
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(blockIndex)
        hasher.combine(offset)
    }
}
