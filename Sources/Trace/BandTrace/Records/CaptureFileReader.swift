#if canImport(Glibc)
import Glibc
#endif
import BandKitSystem
import BandWire

/// Streams a trace file (btsnoop, pcapng, pcap: its ``CapturePacketFramer``) through one fixed
/// buffer: memory stays the same whatever the file's size, packets are views into the buffer
/// (no copy, no allocation per packet).
///
/// The buffer (1 MiB by default) is allocated once and refilled with `read(2)`, the tail of
/// a record or block cut by the refill moved to the front first. Anything the framer needs
/// whole fits, because the framer refuses longer ones before reading them; pcapng blocks it
/// skips stream past.
///
/// ```swift
/// let reader = try PcapngFileReader(path: "capture.pcapng")
/// while let record = try reader.nextTraceRecord() { … }
/// ```
public final class CaptureFileReader<Framer: CapturePacketFramer>: TraceRecordSource {
    public typealias Failure = Framer.Failure
    public static var defaultBufferSize: Int { 1 << 20 }

    private let calls: SystemCalls
    private let fd: Int32
    private let ownsDescriptor: Bool
    private let buffer: UnsafeMutableRawBufferPointer
    /// Everything that changes per packet, in one struct so the per-packet path makes a single
    /// access to the class's state instead of one per field.
    // Unchecked: see "Exclusivity" in docs/performance.md (one thread, no callback during an access).
    @exclusivity(unchecked) private var stream: Stream

    /// Bytes read from the file so far.
    public var bytesRead: Int { stream.bytesRead }
    /// The framer's state (datalink, interfaces, sections, indexes).
    public var framer: Framer { stream.framer }
    /// What turns the packets into records (HCI unwrapping, air-capture following).
    public var unwrapper: Framer.Unwrapper { stream.unwrapper }

    /// Opens `path` and checks it starts as its format must.
    public convenience init(path: String, bufferSize: Int = CaptureFileReader.defaultBufferSize) throws(Framer.Failure) {
        try self.init(path: path, bufferSize: bufferSize, calls: .live)
    }

    /// Reads from an open descriptor (a pipe works too), closed on deinit if `ownsDescriptor`.
    public convenience init(fileDescriptor: Int32, ownsDescriptor: Bool = false,
                            bufferSize: Int = CaptureFileReader.defaultBufferSize) throws(Framer.Failure) {
        try self.init(fileDescriptor: fileDescriptor, ownsDescriptor: ownsDescriptor, bufferSize: bufferSize, calls: .live)
    }

    convenience init(path: String, bufferSize: Int, calls: SystemCalls) throws(Framer.Failure) {
        let fd: Int32
        switch calls.open(path: path, flags: O_RDONLY) {
        case .success(let opened): fd = opened
        case .failure(let errno): throw Framer.systemError("open", errno: errno.rawValue, during: nil)
        }
        try self.init(fileDescriptor: fd, ownsDescriptor: true, bufferSize: bufferSize, calls: calls)
    }

    init(fileDescriptor: Int32, ownsDescriptor: Bool, bufferSize: Int, calls: SystemCalls) throws(Framer.Failure) {
        precondition(bufferSize >= Framer.maximumBufferedLength, "buffer must hold the largest record or block")
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
        self.stream = stream
    }

    deinit {
        buffer.deallocate()
        if ownsDescriptor { _ = calls.close(descriptor: fd) }
    }

    /// The next packet as the container framed it; its data is valid until the next call.
    public func nextPacket() throws(Framer.Failure) -> Framer.Packet? {
        try stream.nextPacket(buffer: buffer, fd: fd, owner: self)
    }

    /// The next packet as a trace record (HCI link types unwrapped).
    @inlinable
    public func nextTraceRecord() throws(Framer.Failure) -> TraceRecord? {
        // Through the framer's own witness, so that even an unspecialised caller reaches code
        // specialised for the framer (``CapturePacketFramer/nextTraceRecord(of:)``).
        try Framer.nextTraceRecord(of: self)
    }

    /// What ``nextTraceRecord()`` does, for ``CapturePacketFramer/nextTraceRecord(of:)``.
    @usableFromInline
    func readNextTraceRecord() throws(Framer.Failure) -> TraceRecord? {
        try stream.nextTraceRecord(buffer: buffer, fd: fd, owner: self)
    }

    private struct Stream {
        var framer = Framer()
        var unwrapper = Framer.Unwrapper()
        /// The buffer's unconsumed window (``ReadWindow``), under the names the framing loops use.
        var window = ReadWindow()
        var start: Int { get { window.start } set { window.start = newValue } }
        var end: Int { get { window.end } set { window.end = newValue } }
        var reachedEnd: Bool { window.reachedEnd }
        var bytesRead: Int { window.bytesRead }

        mutating func readFileHeader(buffer: UnsafeMutableRawBufferPointer, fd: Int32, calls: SystemCalls) throws(Framer.Failure) {
            while true {
                var cursor = ByteCursor(UnsafeRawBufferPointer(rebasing: buffer[start..<end]))
                if try framer.parseFileHeader(&cursor) {
                    start += cursor.position
                    return
                }
                start += cursor.position
                if reachedEnd {
                    try framer.finish(unconsumed: cursor)
                    return
                }
                try fill(buffer, fd: fd, calls: calls)
            }
        }

        // The per-packet calls take the reader, not its ~400-byte `SystemCalls`, which would be
        // copied at every packet although only a refill needs it.
        mutating func nextTraceRecord(buffer: UnsafeMutableRawBufferPointer, fd: Int32, owner: CaptureFileReader) throws(Framer.Failure) -> TraceRecord? {
            if let deferred = unwrapper.takeDeferredRecord() { return deferred }
            return framer.traceRecord(of: try nextPacket(buffer: buffer, fd: fd, owner: owner), unwrapper: &unwrapper)
        }

        mutating func nextPacket(buffer: UnsafeMutableRawBufferPointer, fd: Int32, owner: CaptureFileReader) throws(Framer.Failure) -> Framer.Packet? {
            while true {
                var cursor = ByteCursor(UnsafeRawBufferPointer(rebasing: buffer[start..<end]))
                let packet = try framer.nextPacket(&cursor)
                // Skipped blocks are consumed even when no packet comes out.
                start += cursor.position
                if let packet { return packet }
                if reachedEnd {
                    try framer.finish(unconsumed: cursor)
                    return nil
                }
                try fill(buffer, fd: fd, calls: owner.calls)
            }
        }

        /// Refills the window; a read failure is named at the place reading had reached.
        mutating func fill(_ buffer: UnsafeMutableRawBufferPointer, fd: Int32, calls: SystemCalls) throws(Framer.Failure) {
            guard let errno = window.refill(buffer, fd: fd, calls: calls) else { return }
            throw Framer.systemError("read", errno: errno, during: framer)
        }
    }
}

/// Reads a trace's packets from bytes already in memory (a fuzzer's input, a test
/// vector). Packets are views into those bytes, which must outlive the reader.
public struct CaptureMemoryReader<Framer: CapturePacketFramer>: TraceRecordSource {
    public typealias Failure = Framer.Failure
    public private(set) var framer = Framer()
    public private(set) var unwrapper = Framer.Unwrapper()
    private var cursor: ByteCursor

    /// Checks that `bytes` start as the format must.
    public init(bytes: UnsafeRawBufferPointer) throws(Framer.Failure) {
        cursor = ByteCursor(bytes)
        guard try framer.parseFileHeader(&cursor) else {
            try framer.finish(unconsumed: cursor)
            throw Framer.truncatedFileHeader(available: bytes.count)
        }
    }

    public mutating func nextPacket() throws(Framer.Failure) -> Framer.Packet? {
        if let packet = try framer.nextPacket(&cursor) { return packet }
        try framer.finish(unconsumed: cursor)
        return nil
    }

    public mutating func nextTraceRecord() throws(Framer.Failure) -> TraceRecord? {
        if let deferred = unwrapper.takeDeferredRecord() { return deferred }
        return framer.traceRecord(of: try nextPacket(), unwrapper: &unwrapper)
    }
}

extension CaptureFileReader where Framer.Unwrapper == CaptureHCIUnwrapper {
    /// Packets on link types BandKit does not decode (skipped), and the first such link type.
    public var otherLinkTypePackets: Int { unwrapper.otherLinkTypePackets }
    public var firstOtherLinkType: CaptureLinkType? { unwrapper.firstOtherLinkType }
    /// The air-capture connection follower (link types 256, 272), if any packet needed it.
    public var follower: LLConnectionFollower? { unwrapper.sawAirPackets ? unwrapper.follower : nil }
}

extension CaptureMemoryReader where Framer.Unwrapper == CaptureHCIUnwrapper {
    public var otherLinkTypePackets: Int { unwrapper.otherLinkTypePackets }
    public var follower: LLConnectionFollower? { unwrapper.sawAirPackets ? unwrapper.follower : nil }
}

public typealias PcapngFileReader = CaptureFileReader<PcapngBlockParser>
public typealias PcapFileReader = CaptureFileReader<PcapRecordParser>
public typealias PcapngMemoryReader = CaptureMemoryReader<PcapngBlockParser>
public typealias PcapMemoryReader = CaptureMemoryReader<PcapRecordParser>
