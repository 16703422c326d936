import BandKitSystem
import BandWire

/// A btsnoop file that cannot be read further, and exactly where it went wrong.
///
/// Everything before ``offset`` has been delivered when a reader throws this; nothing after
/// it can be trusted, because btsnoop has no sync marker to resynchronise on.
public struct BtsnoopError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: Hashable, Sendable {
        /// The first 8 bytes are not `"btsnoop\0"`.
        case badMagic
        /// Version other than 1.
        case unsupportedVersion(UInt32)
        /// A datalink BandKit does not decode (BCSP, H5, simulator, or unknown).
        case unsupportedDatalink(BtsnoopDatalink)
        /// The file ends inside the 16-byte file header.
        case truncatedFileHeader(available: Int)
        /// The file ends inside a 24-byte record header.
        case truncatedRecordHeader(available: Int)
        /// The file ends inside a record's data.
        case truncatedRecordData(expected: Int, available: Int)
        /// A record claims to store more bytes than the packet had.
        case includedLengthExceedsOriginal(included: UInt32, original: UInt32)
        /// A record longer than any HCI packet could be (and than tshark accepts).
        case recordTooLong(included: UInt32, limit: Int)
        /// The operating system refused (open, read, write).
        case system(call: StaticString, errno: Int32)
    }

    public var kind: Kind
    /// Zero-based index of the record at fault; nil for the file header and for I/O outside records.
    public var recordIndex: Int?
    /// Byte offset in the file of the header or record at fault.
    public var offset: Int

    public init(_ kind: Kind, recordIndex: Int?, offset: Int) {
        self.kind = kind
        self.recordIndex = recordIndex
        self.offset = offset
    }

    public var description: String {
        let place = recordIndex.map { "record \($0) at byte offset \(offset)" } ?? "byte offset \(offset)"
        let what: String
        switch kind {
        case .badMagic: what = "not a btsnoop file (the first 8 bytes are not \"btsnoop\\0\")"
        case .unsupportedVersion(let v): what = "btsnoop version \(v) is not supported (only 1 exists)"
        case .unsupportedDatalink(let d): what = "btsnoop datalink \(d) is not supported (1001 H1, 1002 H4 and 2001 Linux monitor are)"
        case .truncatedFileHeader(let n): what = "file ends inside the 16-byte btsnoop header (\(n) bytes present)"
        case .truncatedRecordHeader(let n): what = "file ends inside a 24-byte record header (\(n) bytes present)"
        case .truncatedRecordData(let expected, let n): what = "file ends inside record data (header announces \(expected) bytes, \(n) present)"
        case .includedLengthExceedsOriginal(let inc, let orig): what = "included length \(inc) exceeds original length \(orig)"
        case .recordTooLong(let inc, let limit): what = "included length \(inc) exceeds the \(limit)-byte limit"
        case .system(let call, let errno): what = "\(call) failed: \(Errno(rawValue: errno))"
        }
        return "\(place): \(what)"
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.recordIndex == rhs.recordIndex && lhs.offset == rhs.offset && lhs.kind == rhs.kind
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(recordIndex)
        hasher.combine(offset)
    }
}

extension BtsnoopError.Kind {
    public static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case (.badMagic, .badMagic): return true
        case (.unsupportedVersion(let a), .unsupportedVersion(let b)): return a == b
        case (.unsupportedDatalink(let a), .unsupportedDatalink(let b)): return a == b
        case (.truncatedFileHeader(let a), .truncatedFileHeader(let b)): return a == b
        case (.truncatedRecordHeader(let a), .truncatedRecordHeader(let b)): return a == b
        case (.truncatedRecordData(let a, let b), .truncatedRecordData(let c, let d)): return a == c && b == d
        case (.includedLengthExceedsOriginal(let a, let b), .includedLengthExceedsOriginal(let c, let d)): return a == c && b == d
        case (.recordTooLong(let a, let b), .recordTooLong(let c, let d)): return a == c && b == d
        case (.system(let a, let b), .system(let c, let d)): return a.description == c.description && b == d
        default: return false
        }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(String(describing: self))
    }
}
