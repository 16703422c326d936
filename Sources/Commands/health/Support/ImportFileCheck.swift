#if canImport(Glibc)
import Glibc
#endif

/// What `health import` says about a file it does not read, before reading it: a SQLite store,
/// a gzip file, a damaged zip, any binary file would otherwise be parsed as NDJSON and refused
/// as "line 1: malformed JSON", which says nothing about what went wrong.
enum ImportFileCheck {
    static let reads = "health import reads NDJSON (one JSON object a line, as 'health export' writes), "
        + "an Apple Health export.zip or its export.xml, a Gadgetbridge database, or FIT files"

    /// Why the file open on `descriptor` (a file, not standard input) cannot be imported as
    /// `kind`, or nil when it may be.
    static func problem(descriptor: Int32, name: String, kind: AppleHealthImport.Kind) -> String? {
        var status = stat()
        let isEmpty = fstat(descriptor, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG && status.st_size == 0
        let lowered = name.lowercased()
        let namedApple = lowered.hasSuffix(".zip") || lowered.hasSuffix(".xml")
        if isEmpty {
            // An empty NDJSON file is an empty backup; an empty export.zip is a failed download.
            return kind != .ndjson || namedApple ? "is empty (0 bytes): an Apple Health export never is; \(reads)" : nil
        }
        guard kind == .ndjson else { return nil }
        var head = [UInt8](repeating: 0, count: 64)
        let count = head.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress!, 64, 0) }
        let bytes = Array(head.prefix(max(0, count)))
        let start = "it starts with " + bytes.prefix(8).map { hex($0) }.joined(separator: " ")
        if bytes.starts(with: [0x1F, 0x8B]) { return "is gzip-compressed (\(start)): decompress it first; \(reads)" }
        if lowered.hasSuffix(".zip") { return "is named .zip but is not a zip archive (\(start)); \(reads)" }
        if bytes.contains(where: { $0 < 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }) {
            return "is not text (\(start)); \(reads)"
        }
        return nil
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }
}
