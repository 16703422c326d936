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
    private var count = 0
    /// Bytes handed to `write(2)` so far.
    public private(set) var bytesWritten = 0

    /// `capacity` must hold the longest line plus the threshold (default 256 KiB, flushing at 192 KiB).
    public init(fileDescriptor: Int32 = 1, capacity: Int = 256 * 1024) {
        precondition(capacity >= 4096)
        self.fileDescriptor = fileDescriptor
        buffer = .allocate(byteCount: capacity, alignment: 16)
        threshold = capacity * 3 / 4
    }

    deinit {
        try? flush()
        buffer.deallocate()
    }

    /// Makes room for `n` more bytes, flushing if needed. Lines longer than the buffer are written in pieces.
    @inline(__always)
    private func reserve(_ n: Int) {
        if buffer.count - count < n { try? flush() }
    }

    @inlinable
    public func append(_ byte: UInt8) {
        appendByte(byte)
    }

    @usableFromInline
    func appendByte(_ byte: UInt8) {
        reserve(1)
        buffer[count] = byte
        count += 1
    }

    public func append(_ text: StaticString) {
        append(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    public func append(_ bytes: UnsafeRawBufferPointer) {
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

    /// Appends a signed decimal integer.
    public func append(decimal value: Int64) {
        reserve(20)
        var magnitude = value.magnitude
        if value < 0 {
            buffer[count] = UInt8(ascii: "-")
            count += 1
        }
        var digits = 0
        var probe = magnitude
        repeat { digits += 1; probe /= 10 } while probe > 0
        var index = count + digits - 1
        repeat {
            buffer[index] = UInt8(truncatingIfNeeded: magnitude % 10) &+ 48
            magnitude /= 10
            index -= 1
        } while magnitude > 0
        count += digits
    }

    public func append(decimal value: Int) { append(decimal: Int64(value)) }

    /// Appends `numerator / denominator` exactly in decimal (denominator a product of 2s and 5s,
    /// e.g. 10, 100, 256, 1024), without trailing zeros: 896/256 → "3.5".
    public func append(numerator: Int64, denominator: Int64) {
        precondition(denominator > 0)
        if numerator < 0 { appendByte(UInt8(ascii: "-")) }
        let magnitude = numerator.magnitude
        let d = UInt64(denominator)
        append(decimal: Int64(magnitude / d))
        var remainder = magnitude % d
        guard remainder != 0 else { return }
        appendByte(UInt8(ascii: "."))
        var digits = 0
        while remainder != 0 && digits < 18 {
            remainder *= 10
            appendByte(UInt8(truncatingIfNeeded: remainder / d) &+ 48)
            remainder %= d
            digits += 1
        }
    }

    /// Appends lowercase hex of `bytes`.
    public func append(hex bytes: UnsafeRawBufferPointer) {
        let digits: StaticString = "0123456789abcdef"
        let table = digits.utf8Start
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

    /// Appends a fixed number of lowercase hex digits of `value`.
    public func append(hex value: UInt64, digits: Int) {
        reserve(digits)
        let table: StaticString = "0123456789abcdef"
        for i in 0..<digits {
            let nibble = Int((value >> UInt64(4 * (digits - 1 - i))) & 0xF)
            buffer[count + i] = table.utf8Start[nibble]
        }
        count += digits
    }

    /// Ends a line; flushes when the buffer is past its threshold.
    public func endLine() throws(OutputError) {
        appendByte(UInt8(ascii: "\n"))
        if count >= threshold { try flush() }
    }

    /// Writes out everything buffered.
    public func flush() throws(OutputError) {
        var done = 0
        defer { count = 0 }
        while done < count {
            let n = write(fileDescriptor, buffer.baseAddress! + done, count - done)
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
