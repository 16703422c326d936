#if canImport(Glibc)
import Glibc
#endif
import BandKitSystem

/// Reads a file descriptor line by line through one reused buffer: a year of minute samples
/// (over a gigabyte of NDJSON) streams through in constant memory. A line longer than
/// ``maximumLineLength`` is refused (``LineTooLong``) instead of grown into: one 50 MB field
/// would otherwise be held several times over while it is parsed.
struct LineReader {
    private let descriptor: Int32
    private var buffer: UnsafeMutableRawBufferPointer
    private var start = 0
    private var end = 0
    private var atEOF = false
    private(set) var lineNumber = 0

    /// The longest line read, newline excluded: a sample line is a few hundred bytes; metadata
    /// and names are bounded well below this.
    let maximumLineLength: Int

    init(descriptor: Int32, capacity: Int = 1 << 20, maximumLineLength: Int = 1 << 20) {
        self.descriptor = descriptor
        self.maximumLineLength = maximumLineLength
        buffer = .allocate(byteCount: min(capacity, maximumLineLength + 2), alignment: 16)
    }

    func deallocate() { buffer.deallocate() }

    /// Calls `body` with each line's bytes (without the newline or a trailing CR) and its
    /// 1-based number. Throws a read error as errno.
    mutating func forEachLine(_ body: (UnsafeBufferPointer<UInt8>, Int) throws -> Void) throws {
        while true {
            if let newline = findNewline() {
                var lineEnd = newline
                if lineEnd > start, buffer[lineEnd - 1] == UInt8(ascii: "\r") { lineEnd -= 1 }
                lineNumber += 1
                try body(UnsafeBufferPointer(start: buffer.baseAddress!.assumingMemoryBound(to: UInt8.self) + start,
                                             count: lineEnd - start), lineNumber)
                start = newline + 1
                continue
            }
            if atEOF {
                if end > start {
                    lineNumber += 1
                    try body(UnsafeBufferPointer(start: buffer.baseAddress!.assumingMemoryBound(to: UInt8.self) + start,
                                                 count: end - start), lineNumber)
                }
                return
            }
            try fill()
        }
    }

    private func findNewline() -> Int? {
        guard end > start, let base = buffer.baseAddress else { return nil }
        guard let found = memchr(base + start, 0x0A, end - start) else { return nil }
        return UnsafeRawPointer(base).distance(to: UnsafeRawPointer(found))
    }

    private mutating func fill() throws {
        if start > 0 {
            let pending = end - start
            if pending > 0 { memmove(buffer.baseAddress!, buffer.baseAddress! + start, pending) }
            start = 0
            end = pending
        }
        if end == buffer.count {  // one line longer than the buffer: grow, up to the bound
            // Room for the bound, a CR and the newline: a line of exactly the bound still fits.
            guard buffer.count < maximumLineLength + 2 else { throw LineTooLong(line: lineNumber + 1, limit: maximumLineLength) }
            let bigger = UnsafeMutableRawBufferPointer.allocate(byteCount: min(buffer.count * 2, maximumLineLength + 2), alignment: 16)
            bigger.copyMemory(from: UnsafeRawBufferPointer(buffer))
            buffer.deallocate()
            buffer = bigger
        }
        switch valueOrErrno({ read(descriptor, buffer.baseAddress! + end, buffer.count - end) }) {
        case .success(0): atEOF = true
        case .success(let count): end += count
        case .failure(let error): throw ReadFailure(errno: error.rawValue)
        }
    }

    /// Line `line` runs past `limit` bytes without a newline: bad data (exit 65).
    struct LineTooLong: Error, CustomStringConvertible {
        var line: Int
        var limit: Int
        var description: String { "line \(line): longer than \(limit) bytes, the longest line read (is this an NDJSON file?)" }
    }

    struct ReadFailure: Error, CustomStringConvertible {
        var errno: Int32
        var description: String { String(cString: strerror(errno)) }
    }
}
