#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Text output through one fixed buffer: many lines per `write(2)`, nothing allocated per line.
///
/// For commands that print a line per packet or sample (`bandsim decode`, `band stream`).
/// ``endLine()`` flushes once the buffer is past its threshold, so a reader of a pipe sees
/// whole lines; ``flush()`` at the end (also done on deinit, errors ignored there).
public final class BufferedOutput {
    public let fileDescriptor: Int32
    private let buffer: UnsafeMutableRawBufferPointer
    private let threshold: Int
    /// The fill level lives in allocated memory rather than a stored property: appends happen
    /// per byte, and a class's stored `var` would cost a dynamic exclusivity check on each.
    private let fill: UnsafeMutablePointer<Int>
    private var count: Int {
        get { fill.pointee }
        set { fill.pointee = newValue }
    }
    /// Bytes handed to `write(2)` so far.
    public private(set) var bytesWritten = 0

    /// `capacity` must hold the longest line plus the threshold (default 256 KiB, flushing at 192 KiB).
    public init(fileDescriptor: Int32 = 1, capacity: Int = 256 * 1024) {
        precondition(capacity >= 4096)
        self.fileDescriptor = fileDescriptor
        buffer = .allocate(byteCount: capacity, alignment: 16)
        threshold = capacity * 3 / 4
        fill = .allocate(capacity: 1)
        fill.initialize(to: 0)
    }

    deinit {
        try? flush()
        buffer.deallocate()
        fill.deallocate()
    }

    /// Makes room for `n` more bytes (at most the capacity), flushing if needed.
    @inline(__always)
    private func reserve(_ n: Int) {
        if buffer.count - count < n { try? flush() }
    }

    public func append(_ byte: UInt8) {
        reserve(1)
        let at = count
        buffer[at] = byte
        count = at + 1
    }

    public func append(_ text: StaticString) {
        append(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    public func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress else { return }
        let start = count
        if buffer.count - start >= bytes.count {
            // The common case. Keys and punctuation are a few bytes: a loop beats calling memcpy.
            if bytes.count <= 32 {
                let out = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self) + start
                let input = source.assumingMemoryBound(to: UInt8.self)
                for i in 0..<bytes.count { out[i] = input[i] }
            } else {
                (buffer.baseAddress! + start).copyMemory(from: source, byteCount: bytes.count)
            }
            count = start + bytes.count
            return
        }
        var rest = bytes
        while !rest.isEmpty {
            if count == buffer.count { try? flush() }
            let n = min(rest.count, buffer.count - count)
            (buffer.baseAddress! + count).copyMemory(from: rest.baseAddress!, byteCount: n)
            count += n
            rest = UnsafeRawBufferPointer(rebasing: rest[n...])
        }
    }

    /// Appends a String's UTF-8 (allocation-free for native strings).
    public func append(_ text: String) {
        var text = text
        text.withUTF8 { append(UnsafeRawBufferPointer($0)) }
    }

    /// Appends a signed decimal integer: digits are produced right to left, two at a time.
    public func append(decimal value: Int64) {
        reserve(20)
        var magnitude = value.magnitude
        var digits = 1
        var probe = magnitude
        while probe >= 10 { digits += 1; probe /= 10 }
        let negative = value < 0
        let start = count
        let out = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self) + start + (negative ? 1 : 0)
        if negative { out[-1] = UInt8(ascii: "-") }
        var index = digits
        let pairs = Self.digitPairs.utf8Start
        while magnitude >= 100 {
            let pair = Int(magnitude % 100)
            magnitude /= 100
            index -= 2
            out[index] = pairs[2 * pair]
            out[index + 1] = pairs[2 * pair + 1]
        }
        if magnitude >= 10 {
            let pair = Int(magnitude)
            out[index - 2] = pairs[2 * pair]
            out[index - 1] = pairs[2 * pair + 1]
        } else {
            out[index - 1] = UInt8(truncatingIfNeeded: magnitude) &+ 48
        }
        count = start + digits + (negative ? 1 : 0)
    }

    /// "00" "01" … "99", as static bytes (no array to retain).
    private static let digitPairs: StaticString = """
        00010203040506070809101112131415161718192021222324252627282930313233343536373839\
        40414243444546474849505152535455565758596061626364656667686970717273747576777879\
        8081828384858687888990919293949596979899
        """

    public func append(decimal value: Int) { append(decimal: Int64(value)) }

    /// Appends `numerator / denominator` exactly in decimal (denominator a product of 2s and 5s,
    /// e.g. 10, 100, 256, 1024), without trailing zeros: 896/256 → "3.5".
    public func append(numerator: Int64, denominator: Int64) {
        precondition(denominator > 0)
        if numerator < 0 { append(UInt8(ascii: "-")) }
        let magnitude = numerator.magnitude
        let d = UInt64(denominator)
        append(decimal: Int64(magnitude / d))
        var remainder = magnitude % d
        guard remainder != 0 else { return }
        append(UInt8(ascii: "."))
        var digits = 0
        while remainder != 0 && digits < 18 {
            remainder *= 10
            append(UInt8(truncatingIfNeeded: remainder / d) &+ 48)
            remainder %= d
            digits += 1
        }
    }

    /// Appends lowercase hex of `bytes`.
    public func append(hex bytes: UnsafeRawBufferPointer) {
        let table = Self.hexDigits.utf8Start
        var rest = bytes
        while !rest.isEmpty {
            if buffer.count - count < 2 { try? flush() }
            let n = min(rest.count, (buffer.count - count) / 2)
            let out = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self) + count
            for i in 0..<n {
                let byte = rest[i]
                out[2 * i] = table[Int(byte >> 4)]
                out[2 * i + 1] = table[Int(byte & 0x0F)]
            }
            count += 2 * n
            rest = UnsafeRawBufferPointer(rebasing: rest[n...])
        }
    }

    private static let hexDigits: StaticString = "0123456789abcdef"

    /// Appends a fixed number of lowercase hex digits of `value`.
    public func append(hex value: UInt64, digits: Int) {
        reserve(digits)
        let table = Self.hexDigits.utf8Start
        let start = count
        for i in 0..<digits {
            let nibble = Int((value >> UInt64(4 * (digits - 1 - i))) & 0xF)
            buffer[start + i] = table[nibble]
        }
        count = start + digits
    }

    /// Ends a line; flushes when the buffer is past its threshold.
    public func endLine() throws(OutputError) {
        append(UInt8(ascii: "\n"))
        if count >= threshold { try flush() }
    }

    /// Writes out everything buffered.
    public func flush() throws(OutputError) {
        var done = 0
        let total = count
        defer { count = 0 }
        while done < total {
            let n = write(fileDescriptor, buffer.baseAddress! + done, total - done)
            if n > 0 {
                done += n
                bytesWritten += n
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                throw OutputError(errno: n < 0 ? errno : EIO)
            }
        }
    }
}

/// Writing to the output failed (a closed pipe, a full disk).
public struct OutputError: Error, CustomStringConvertible {
    public var errno: Int32
    public var description: String { "write to output failed: \(String(cString: strerror(errno))) (errno \(errno))" }
}
