#if canImport(Glibc)
import Glibc
import JSONOutput
#elseif canImport(Darwin)
import Darwin
#endif
import BandKitSystem

/// Text output through one fixed buffer: many lines per `write(2)`, nothing allocated per line.
///
/// For commands that print a line per packet or sample (`bandsim decode`, `band stream`).
/// ``endLine()`` flushes once the buffer is past its threshold, so a reader of a pipe sees
/// whole lines; ``flush()`` at the end (also done on deinit, errors ignored there).
public final class BufferedOutput {
    public let fileDescriptor: Int32
    // Internal but usable from inlinable code: the small appends below are inlined into the
    // callers (a JSON key is a constant-size copy there instead of a call and a memcpy).
    @usableFromInline let buffer: UnsafeMutableRawBufferPointer
    @usableFromInline let threshold: Int
    /// The fill level lives in allocated memory rather than a stored property: appends happen
    /// per byte, and a class's stored `var` would cost a dynamic exclusivity check on each.
    @usableFromInline let fill: UnsafeMutablePointer<Int>
    @usableFromInline var count: Int {
        @inline(__always) get { fill.pointee }
        set { fill.pointee = newValue }
    }
    /// Bytes handed to `write(2)` so far.
    public private(set) var bytesWritten = 0
    /// A write that failed where no error could be thrown (an append that had to make room):
    /// thrown by the next ``endLine()`` or ``flush()``, so a full disk is never silent.
    private var deferredError: OutputError?

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
    @inlinable @inline(__always)
    func reserve(_ n: Int) {
        if buffer.count - count < n { flushMidLine() }
    }

    @inlinable @inline(__always)
    public func append(_ byte: UInt8) {
        reserve(1)
        let at = count
        buffer[at] = byte
        count = at + 1
    }

    @inlinable @inline(__always)
    public func append(_ text: StaticString) {
        guard text.hasPointerRepresentation else {  // a single-scalar StaticString has no utf8Start
            return text.withUTF8Buffer { append(UnsafeRawBufferPointer($0)) }
        }
        append(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    @inlinable @inline(__always)
    public func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress else { return }
        let start = count
        guard buffer.count - start >= bytes.count else { return appendSplitting(bytes) }
        // Inlined, a literal's copy has a constant size and compiles to a few moves.
        (buffer.baseAddress! + start).copyMemory(from: source, byteCount: bytes.count)
        count = start + bytes.count
    }

    /// The rare case of ``append(_:)-(UnsafeRawBufferPointer)``: `bytes` do not fit behind what is buffered.
    @usableFromInline
    func appendSplitting(_ bytes: UnsafeRawBufferPointer) {
        var rest = bytes
        while !rest.isEmpty {
            if count == buffer.count { flushMidLine() }
            let n = min(rest.count, buffer.count - count)
            (buffer.baseAddress! + count).copyMemory(from: rest.baseAddress!, byteCount: n)
            count += n
            rest = UnsafeRawBufferPointer(rebasing: rest[n...])
        }
    }

    /// Appends a String's UTF-8 (allocation-free for native strings).
    ///
    /// Disfavoured so that a string literal picks the `StaticString` overload: the literal's
    /// bytes are then copied straight from the binary, where going through `String.withUTF8`
    /// copied each small literal to the stack first (a sixth of `bandsim decode --json`'s time).
    @_disfavoredOverload
    public func append(_ text: String) {
        var text = text
        text.withUTF8 { append(UnsafeRawBufferPointer($0)) }
    }

    /// Appends through an ``OutputLine`` over the next `maximumLength` bytes of the buffer.
    @inlinable @inline(__always)
    func appendFormatted(maximumLength: Int, _ body: (inout OutputLine) -> Void) {
        reserve(maximumLength)
        var line = OutputLine(start: buffer.baseAddress!.assumingMemoryBound(to: UInt8.self) + count, capacity: maximumLength)
        body(&line)
        count += line.count
    }

    /// Writes one line: `body` appends at most `maximumLength` bytes, then the newline is added
    /// (it need not be counted). Flushes first if the line might not fit, and after it once the
    /// buffer is past its threshold, so a pipe's reader sees whole lines.
    @inlinable
    public func writeLine(maximumLength: Int, _ body: (inout OutputLine) -> Void) throws(OutputError) {
        precondition(maximumLength < buffer.count, "a line must fit in the output buffer")
        if buffer.count - count <= maximumLength { try flush() }
        appendFormatted(maximumLength: maximumLength + 1) { line in
            body(&line)
            line.append(UInt8(ascii: "\n"))
        }
        if count >= threshold { try flush() }
    }

    /// Appends a signed decimal integer.
    public func append(decimal value: Int64) {
        appendFormatted(maximumLength: 20) { $0.append(decimal: value) }
    }

    public func append(decimal value: Int) { append(decimal: Int64(value)) }

    /// Appends `numerator / denominator` exactly in decimal (denominator a product of 2s and 5s,
    /// e.g. 10, 100, 256, 1024), without trailing zeros: 896/256 → "3.5".
    public func append(numerator: Int64, denominator: Int64) {
        appendFormatted(maximumLength: 40) { $0.append(numerator: numerator, denominator: denominator) }
    }

    /// Appends lowercase hex of `bytes`.
    public func append(hex bytes: UnsafeRawBufferPointer) {
        let chunk = buffer.count / 4
        var rest = bytes
        while !rest.isEmpty {
            let piece = UnsafeRawBufferPointer(rebasing: rest.prefix(chunk))
            appendFormatted(maximumLength: 2 * piece.count) { $0.append(hex: piece) }
            rest = UnsafeRawBufferPointer(rebasing: rest.dropFirst(piece.count))
        }
    }

    /// Appends a fixed number of lowercase hex digits of `value`.
    public func append(hex value: UInt64, digits: Int) {
        appendFormatted(maximumLength: digits) { $0.append(hex: value, digits: digits) }
    }

    /// Ends a line; flushes when the buffer is past its threshold.
    public func endLine() throws(OutputError) {
        append(UInt8(ascii: "\n"))
        if count >= threshold { try flush() }
    }

    /// Makes room in the middle of a line, where appends cannot throw; a failure is kept for
    /// the next ``flush()``.
    @usableFromInline
    func flushMidLine() {
        do throws(OutputError) { try flush() } catch { if deferredError == nil { deferredError = error } }
    }

    /// Writes out everything buffered, or throws the error an earlier mid-line flush hit.
    public func flush() throws(OutputError) {
        if let error = deferredError {
            deferredError = nil
            count = 0
            throw error
        }
        var done = 0
        let total = count
        defer { count = 0 }
        while done < total {
            switch valueOrErrno({ write(fileDescriptor, buffer.baseAddress! + done, total - done) }) {
            case .success(0): throw OutputError(errno: EIO)
            case .success(let n):
                done += n
                bytesWritten += n
            case .failure(let error): throw OutputError(errno: error.rawValue)
            }
        }
    }
}

/// Writing to the output failed (a closed pipe, a full disk).
public struct OutputError: Error, CustomStringConvertible {
    public var errno: Int32
    public var description: String { "write to output failed: \(reason)" }
    /// The system's words for the error and its number: "No space left on device (errno 28)".
    public var reason: String { "\(String(cString: strerror(errno))) (errno \(errno))" }
}
