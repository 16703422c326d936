#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BandKitSystem

/// The central directory of a zip file (APPNOTE.TXT 6.3 §4.3.12–4.3.16, ZIP64 §4.3.14–4.3.15),
/// read with pread: the members' names, methods, sizes, CRCs and where their data starts.
///
/// End of central directory record (at most 64 KiB + 22 bytes before the end of the file):
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 4 | signature 0x06054b50 |
/// | 10 | 2 | entries in the directory (0xFFFF: see ZIP64) |
/// | 12 | 4 | directory size |
/// | 16 | 4 | directory offset (0xFFFFFFFF: see ZIP64) |
///
/// Central directory header (per member): signature 0x02014b50, method at 10, CRC-32 at 16,
/// compressed size at 20, uncompressed size at 24, name length at 28, extra length at 30,
/// comment length at 32, local header offset at 42, name at 46. ZIP64 extra field 0x0001 holds
/// the 8-byte sizes and offset whose 4-byte fields are 0xFFFFFFFF.
public struct ZipDirectory {
    public struct Member: Hashable, Sendable {
        public var name: String
        public var method: UInt16
        public var flags: UInt16
        public var crc32: UInt32
        public var compressedSize: UInt64
        public var uncompressedSize: UInt64
        public var localHeaderOffset: UInt64
    }

    public let members: [Member]
    public let fileSize: UInt64

    /// Bounds: a directory larger than this, or with more members, is refused as damaged.
    static let maximumDirectoryBytes: UInt64 = 64 << 20
    static let maximumMembers = 1_000_000

    /// Reads the directory of the open file `descriptor`; `name` is used in error messages.
    public init(descriptor: Int32, name: String) throws(AppleHealthError) {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw ZipDirectory.ioError(name, "cannot stat") }
        fileSize = UInt64(status.st_size)
        func damaged(_ message: String) -> AppleHealthError { AppleHealthError(.zip, place: name, "not a readable zip: \(message)") }

        // The end record: search backwards for its signature.
        let tailLength = min(fileSize, 65_535 + 22)
        guard tailLength >= 22 else { throw damaged("\(fileSize) bytes is too short for a zip") }
        let tail = try ZipDirectory.read(descriptor, at: fileSize - tailLength, count: Int(tailLength), name: name)
        var endOffset: Int?
        var index = tail.count - 22
        while index >= 0 {
            if tail.u32(index) == 0x0605_4B50 { endOffset = index; break }
            index -= 1
        }
        guard let end = endOffset else { throw damaged("no end-of-central-directory record") }
        var entryCount = UInt64(tail.u16(end + 10))
        var directorySize = UInt64(tail.u32(end + 12))
        var directoryOffset = UInt64(tail.u32(end + 16))
        if entryCount == 0xFFFF || directorySize == 0xFFFF_FFFF || directoryOffset == 0xFFFF_FFFF {
            // ZIP64: the locator sits just before the end record and points at the ZIP64 end record.
            guard end >= 20, tail.u32(end - 20) == 0x0706_4B50 else { throw damaged("ZIP64 sizes without a ZIP64 locator") }
            let recordOffset = tail.u64(end - 20 + 8)
            guard recordOffset + 56 <= fileSize else { throw damaged("ZIP64 end record offset \(recordOffset) is past the end of the file") }
            let record = try ZipDirectory.read(descriptor, at: recordOffset, count: 56, name: name)
            guard record.u32(0) == 0x0606_4B50 else { throw damaged("no ZIP64 end record at byte \(recordOffset)") }
            entryCount = record.u64(32)
            directorySize = record.u64(40)
            directoryOffset = record.u64(48)
        }
        guard directorySize <= ZipDirectory.maximumDirectoryBytes, entryCount <= UInt64(ZipDirectory.maximumMembers) else {
            throw damaged("a central directory of \(entryCount) members and \(directorySize) bytes is beyond the limits")
        }
        guard directoryOffset + directorySize <= fileSize else {
            throw damaged("the central directory (byte \(directoryOffset), \(directorySize) bytes) runs past the end of the \(fileSize)-byte file")
        }
        let directory = try ZipDirectory.read(descriptor, at: directoryOffset, count: Int(directorySize), name: name)
        var members: [Member] = []
        var cursor = 0
        for number in 0..<Int(entryCount) {
            let at = "central directory entry \(number + 1) (byte \(directoryOffset + UInt64(cursor)))"
            guard cursor + 46 <= directory.count, directory.u32(cursor) == 0x0201_4B50 else { throw damaged("\(at) is not a member header") }
            let nameLength = Int(directory.u16(cursor + 28)), extraLength = Int(directory.u16(cursor + 30))
            let commentLength = Int(directory.u16(cursor + 32))
            let next = cursor + 46 + nameLength + extraLength + commentLength
            guard next <= directory.count else { throw damaged("\(at) runs past the directory") }
            var member = Member(
                name: String(decoding: directory[(cursor + 46)..<(cursor + 46 + nameLength)], as: UTF8.self),
                method: directory.u16(cursor + 10), flags: directory.u16(cursor + 8), crc32: directory.u32(cursor + 16),
                compressedSize: UInt64(directory.u32(cursor + 20)), uncompressedSize: UInt64(directory.u32(cursor + 24)),
                localHeaderOffset: UInt64(directory.u32(cursor + 42)))
            // ZIP64 extra field: the 8-byte values, in this order, for the fields that overflowed.
            var extra = cursor + 46 + nameLength
            let extraEnd = extra + extraLength
            while extra + 4 <= extraEnd {
                let id = directory.u16(extra), size = Int(directory.u16(extra + 2))
                guard extra + 4 + size <= extraEnd else { throw damaged("\(at): extra field runs past its header") }
                if id == 0x0001 {
                    var field = extra + 4
                    func next64() throws(AppleHealthError) -> UInt64 {
                        guard field + 8 <= extra + 4 + size else { throw damaged("\(at): ZIP64 extra field too short") }
                        defer { field += 8 }
                        return directory.u64(field)
                    }
                    if member.uncompressedSize == 0xFFFF_FFFF { member.uncompressedSize = try next64() }
                    if member.compressedSize == 0xFFFF_FFFF { member.compressedSize = try next64() }
                    if member.localHeaderOffset == 0xFFFF_FFFF { member.localHeaderOffset = try next64() }
                }
                extra += 4 + size
            }
            members.append(member)
            cursor = next
        }
        self.members = members
    }

    /// The export's XML: `export.xml` or `<folder>/export.xml` (the Health app writes
    /// `apple_health_export/export.xml`); export_cda.xml and the rest are not it.
    public var exportXML: Member? {
        members.first { $0.name == "export.xml" || $0.name.hasSuffix("/export.xml") }
    }

    static func ioError(_ name: String, _ what: String) -> AppleHealthError {
        AppleHealthError(.io, place: name, "\(what): \(String(cString: strerror(errno)))")
    }

    /// Exactly `count` bytes at `offset`; a short read means the file is shorter than its directory says.
    static func read(_ descriptor: Int32, at offset: UInt64, count: Int, name: String) throws(AppleHealthError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let read = valueOrErrno {
                bytes.withUnsafeMutableBytes { buffer in
                    pread(descriptor, buffer.baseAddress! + done, count - done, off_t(offset) + off_t(done))
                }
            }
            guard case .success(let result) = read else { throw ioError(name, "cannot read at byte \(offset + UInt64(done))") }
            if result == 0 { throw AppleHealthError(.zip, place: name, "truncated: \(count - done) bytes missing at byte \(offset + UInt64(done))") }
            done += result
        }
        return bytes
    }
}

extension [UInt8] {
    func u16(_ at: Int) -> UInt16 { UInt16(self[at]) | UInt16(self[at + 1]) << 8 }
    func u32(_ at: Int) -> UInt32 { UInt32(u16(at)) | UInt32(u16(at + 2)) << 16 }
    func u64(_ at: Int) -> UInt64 { UInt64(u32(at)) | UInt64(u32(at + 4)) << 32 }
}
