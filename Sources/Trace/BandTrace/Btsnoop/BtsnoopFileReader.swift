#if canImport(Glibc)
import Glibc
#endif
import BandKitSystem
import BandWire

/// Streams a btsnoop file through one fixed buffer: memory stays the same whatever the
/// file's size, and records are views into the buffer (no copy, no allocation per record).
///
/// The buffer (1 MiB by default) is allocated once; it is refilled with `read(2)`, and the
/// tail of a record cut by the refill boundary is moved to the front first. Any record
/// fits, because ``BtsnoopRecordParser`` refuses records longer than its limit before
/// reading them.
///
/// ```swift
/// let reader = try BtsnoopFileReader(path: "btsnoop_hci.log")
/// while let record = try reader.next() { … record.data … }
/// ```
public final class BtsnoopFileReader: BtsnoopRecordSource {
    public static let defaultBufferSize = 1 << 20

    public let datalink: BtsnoopDatalink
    private let calls: SystemCalls
    private let fd: Int32
    private let ownsDescriptor: Bool
    private let buffer: UnsafeMutableRawBufferPointer
    /// Everything that changes per record, in one struct so the per-record path makes a
    /// single (dynamically checked) access to the class's state instead of one per field.
    // Unchecked: see "Exclusivity" in docs/performance.md (one thread, no callback during an access).
    @exclusivity(unchecked) private var stream: Stream

    /// Bytes read from the file so far.
    public var bytesRead: Int { stream.bytesRead }

    /// Opens `path` and reads its header.
    public convenience init(path: String, bufferSize: Int = BtsnoopFileReader.defaultBufferSize) throws(BtsnoopError) {
        try self.init(path: path, bufferSize: bufferSize, calls: .live)
    }

    /// Reads from an open descriptor (a pipe works too), which is closed on deinit if `ownsDescriptor`.
    public convenience init(fileDescriptor: Int32, ownsDescriptor: Bool = false,
                            bufferSize: Int = BtsnoopFileReader.defaultBufferSize) throws(BtsnoopError) {
        try self.init(fileDescriptor: fileDescriptor, ownsDescriptor: ownsDescriptor, bufferSize: bufferSize, calls: .live)
    }

    convenience init(path: String, bufferSize: Int, calls: SystemCalls) throws(BtsnoopError) {
        let fd: Int32
        switch calls.open(path: path, flags: O_RDONLY) {
        case .success(let opened): fd = opened
        case .failure(let errno): throw BtsnoopError(.system(call: "open", errno: errno.rawValue), recordIndex: nil, offset: 0)
        }
        try self.init(fileDescriptor: fd, ownsDescriptor: true, bufferSize: bufferSize, calls: calls)
    }

    init(fileDescriptor: Int32, ownsDescriptor: Bool, bufferSize: Int, calls: SystemCalls) throws(BtsnoopError) {
        precondition(bufferSize >= BtsnoopRecordHeader.size + BtsnoopRecordParser.maximumRecordLength,
                     "buffer must hold the largest record")
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bufferSize, alignment: 16)
        var stream = Stream()
        do {
            try stream.readFileHeader(buffer: buffer, fd: fileDescriptor, calls: calls)
        } catch {
            buffer.deallocate()
            if ownsDescriptor { _ = calls.close(descriptor: fileDescriptor) }
            throw error
        }
        self.calls = calls
        self.fd = fileDescriptor
        self.ownsDescriptor = ownsDescriptor
        self.buffer = buffer
        self.datalink = stream.parser.datalink!
        self.stream = stream
    }

    deinit {
        buffer.deallocate()
        if ownsDescriptor { _ = calls.close(descriptor: fd) }
    }

    /// The next record; its data is valid until the next call.
    public func next() throws(BtsnoopError) -> BtsnoopRecord? {
        try stream.nextRecord(buffer: buffer, fd: fd, calls: calls)
    }

    /// The parser and the window of the buffer that holds unconsumed bytes.
    private struct Stream {
        var parser = BtsnoopRecordParser()
        /// The buffer's unconsumed window (``ReadWindow``), under the names the framing loops use.
        var window = ReadWindow()
        var start: Int { get { window.start } set { window.start = newValue } }
        var end: Int { get { window.end } set { window.end = newValue } }
        var reachedEnd: Bool { window.reachedEnd }
        var bytesRead: Int { window.bytesRead }

        mutating func readFileHeader(buffer: UnsafeMutableRawBufferPointer, fd: Int32, calls: SystemCalls) throws(BtsnoopError) {
            while true {
                var cursor = ByteCursor(UnsafeRawBufferPointer(rebasing: buffer[start..<end]))
                if try parser.parseFileHeader(&cursor) {
                    start += cursor.position
                    return
                }
                if reachedEnd { try parser.finish(unconsumed: cursor) }
                try fill(buffer, fd: fd, calls: calls)
            }
        }

        mutating func nextRecord(buffer: UnsafeMutableRawBufferPointer, fd: Int32, calls: SystemCalls) throws(BtsnoopError) -> BtsnoopRecord? {
            while true {
                var cursor = ByteCursor(UnsafeRawBufferPointer(rebasing: buffer[start..<end]))
                if let record = try parser.nextRecord(&cursor) {
                    start += cursor.position
                    return record
                }
                if reachedEnd {
                    try parser.finish(unconsumed: cursor)
                    return nil
                }
                try fill(buffer, fd: fd, calls: calls)
            }
        }

        /// Refills the window; a read failure is named at the place reading had reached.
        mutating func fill(_ buffer: UnsafeMutableRawBufferPointer, fd: Int32, calls: SystemCalls) throws(BtsnoopError) {
            guard let errno = window.refill(buffer, fd: fd, calls: calls) else { return }
            throw BtsnoopError(.system(call: "read", errno: errno), recordIndex: parser.recordIndex, offset: parser.offset)
        }
    }
}
