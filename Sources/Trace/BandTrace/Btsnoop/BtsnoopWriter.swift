#if canImport(Glibc)
import Glibc
#endif
import BandHCI
import BandKitSystem
import BandWire

/// Writes a btsnoop file (datalink 1002 H4, 2001 Linux monitor, or 1001 H1) through a fixed
/// buffer: one `write(2)` per buffer-full, nothing allocated per record.
///
/// Timestamps are given as Unix microseconds and stored on the btsnoop epoch
/// (``BtsnoopTimestamp``). Direction and packet type become flags the way Android's snoop
/// logger (1002) and BlueZ's `btsnoop_write_hci` (2001) write them, so tshark and btmon
/// read the result.
///
/// ```swift
/// let writer = try BtsnoopWriter(path: "session.log", datalink: .h4)
/// try writer.writePacket(.acl, direction: .rx, unixMicroseconds: now, payload: aclBytes)
/// try writer.close()
/// ```
public final class BtsnoopWriter {
    public static let defaultBufferSize = 1 << 16

    public let datalink: BtsnoopDatalink
    private let calls: SystemCalls
    private let fd: Int32
    private let ownsDescriptor: Bool
    private let buffer: UnsafeMutableRawBufferPointer
    private var pending = 0
    private var closed = false
    /// Records written so far (buffered ones included).
    public private(set) var recordCount = 0
    /// Bytes written so far (buffered ones included).
    public private(set) var byteCount = 0
    /// The file's path when this writer opened it (nil for a descriptor it was handed), for
    /// error messages.
    public private(set) var path: String?

    /// Creates (or truncates) `path` and writes the file header.
    public convenience init(path: String, datalink: BtsnoopDatalink, bufferSize: Int = BtsnoopWriter.defaultBufferSize) throws(BtsnoopError) {
        try self.init(path: path, datalink: datalink, bufferSize: bufferSize, calls: .live)
    }

    /// Writes to an open descriptor (closed by ``close()`` if `ownsDescriptor`).
    public convenience init(fileDescriptor: Int32, ownsDescriptor: Bool = false, datalink: BtsnoopDatalink,
                            bufferSize: Int = BtsnoopWriter.defaultBufferSize) throws(BtsnoopError) {
        try self.init(fileDescriptor: fileDescriptor, ownsDescriptor: ownsDescriptor, datalink: datalink, bufferSize: bufferSize, calls: .live)
    }

    convenience init(path: String, datalink: BtsnoopDatalink, bufferSize: Int, calls: SystemCalls) throws(BtsnoopError) {
        let fd: Int32
        switch calls.open(path: path, flags: O_WRONLY | O_CREAT | O_TRUNC, mode: 0o644) {
        case .success(let opened): fd = opened
        case .failure(let errno): throw BtsnoopError(.system(call: "open", errno: errno.rawValue), recordIndex: nil, offset: 0)
        }
        try self.init(fileDescriptor: fd, ownsDescriptor: true, datalink: datalink, bufferSize: bufferSize, calls: calls)
        self.path = path
    }

    init(fileDescriptor: Int32, ownsDescriptor: Bool, datalink: BtsnoopDatalink, bufferSize: Int, calls: SystemCalls) throws(BtsnoopError) {
        precondition(datalink.isSupported, "BtsnoopWriter writes datalinks 1001, 1002 and 2001, not \(datalink)")
        precondition(bufferSize >= BtsnoopFileHeader.size + BtsnoopRecordHeader.size, "buffer too small")
        self.datalink = datalink
        self.calls = calls
        self.fd = fileDescriptor
        self.ownsDescriptor = ownsDescriptor
        self.buffer = .allocate(byteCount: bufferSize, alignment: 16)
        var writer = ByteWriter(buffer)
        BtsnoopFileHeader(datalink: datalink).encode(into: &writer)
        pending = writer.count
        byteCount = pending
    }

    deinit {
        if !closed { try? close() }
        buffer.deallocate()
    }

    /// Appends one record with raw `flags` (the caller composed them for this datalink).
    /// `originalLength` larger than `data.count` marks a record cut to a snap length.
    public func writeRecord(flags: UInt32, unixMicroseconds: Int64, data: UnsafeRawBufferPointer,
                            originalLength: Int? = nil, cumulativeDrops: UInt32 = 0) throws(BtsnoopError) {
        try writeRecord(flags: flags, unixMicroseconds: unixMicroseconds, prefix: nil, data: data,
                        originalLength: originalLength, cumulativeDrops: cumulativeDrops)
    }

    /// Appends one HCI packet (`payload` without any H4 byte), framed for this file's datalink.
    /// `adapter` is kept only by Linux monitor files. Traps if the datalink cannot express the
    /// packet (SCO or ISO in an H1 file, a received command): that is a caller bug.
    public func writePacket(_ type: HCIPacketType, direction: TraceDirection, adapter: UInt16 = 0,
                            unixMicroseconds: Int64, payload: UnsafeRawBufferPointer) throws(BtsnoopError) {
        guard let framing = TraceHCIPacket.recordFraming(type: type, direction: direction, adapter: adapter, datalink: datalink) else {
            preconditionFailure("datalink \(datalink) cannot carry a \(direction) \(type) packet")
        }
        try writeRecord(flags: framing.flags, unixMicroseconds: unixMicroseconds, prefix: framing.h4Byte, data: payload,
                        originalLength: nil, cumulativeDrops: 0)
    }

    /// Appends a Linux monitor record that is not an HCI packet (NEW_INDEX, SYSTEM_NOTE, …).
    public func writeMonitorRecord(_ opcode: MonitorOpcode, adapter: UInt16 = 0, unixMicroseconds: Int64,
                                   data: UnsafeRawBufferPointer) throws(BtsnoopError) {
        precondition(datalink == .linuxMonitor, "monitor records exist only in datalink 2001")
        try writeRecord(flags: UInt32(adapter) << 16 | UInt32(opcode.rawValue), unixMicroseconds: unixMicroseconds,
                        prefix: nil, data: data, originalLength: nil, cumulativeDrops: 0)
    }

    private func writeRecord(flags: UInt32, unixMicroseconds: Int64, prefix: UInt8?, data: UnsafeRawBufferPointer,
                             originalLength: Int?, cumulativeDrops: UInt32) throws(BtsnoopError) {
        precondition(!closed, "write after close")
        let included = data.count + (prefix == nil ? 0 : 1)
        precondition(included <= BtsnoopRecordParser.maximumRecordLength, "record of \(included) bytes is longer than any reader accepts")
        let original = max(originalLength ?? included, included)
        let header = BtsnoopRecordHeader(originalLength: UInt32(original), includedLength: UInt32(included), flags: flags,
                                         cumulativeDrops: cumulativeDrops,
                                         timestamp: BtsnoopTimestamp.btsnoop(unixMicroseconds: unixMicroseconds))
        let total = BtsnoopRecordHeader.size + included
        if buffer.count - pending < total { try flush() }
        if total <= buffer.count {
            var writer = ByteWriter(UnsafeMutableRawBufferPointer(rebasing: buffer[pending...]))
            header.encode(into: &writer)
            if let prefix { writer.writeUInt8(prefix) }
            writer.writeBytes(data)
            pending += writer.count
        } else {
            // Larger than the whole buffer: header (and H4 byte) through the buffer, data directly.
            var writer = ByteWriter(buffer)
            header.encode(into: &writer)
            if let prefix { writer.writeUInt8(prefix) }
            pending = writer.count
            try flush()
            try send(data)
        }
        recordCount += 1
        byteCount += total
    }

    /// Writes out everything buffered.
    public func flush() throws(BtsnoopError) {
        guard pending > 0 else { return }
        let bytes = UnsafeRawBufferPointer(rebasing: buffer[0..<pending])
        pending = 0
        try send(bytes)
    }

    private func send(_ bytes: UnsafeRawBufferPointer) throws(BtsnoopError) {
        if case .failure(let errno) = calls.writeAll(fd, bytes) {
            throw BtsnoopError(.system(call: "write", errno: errno.rawValue), recordIndex: recordCount, offset: byteCount)
        }
    }

    /// Flushes and, if the writer owns the descriptor, closes it. Idempotent.
    public func close() throws(BtsnoopError) {
        guard !closed else { return }
        closed = true
        var flushError: BtsnoopError?
        do { try flush() } catch { flushError = error }
        if ownsDescriptor, case .failure(let errno) = calls.close(descriptor: fd), flushError == nil {
            throw BtsnoopError(.system(call: "close", errno: errno.rawValue), recordIndex: nil, offset: byteCount)
        }
        if let flushError { throw flushError }
    }
}
