import BandLink
import BandWire

/// One btsnoop file that ``RecordingBearer``s record connections into, each with the next HCI
/// connection handle (0x0040, 0x0041, …), so a host that reconnects leaves one trace.
///
/// Single-threaded like the links it records. ``close()`` flushes and closes the file; until
/// then every finished connection is flushed, so a crash loses at most the connection in
/// progress.
public final class TraceFile {
    /// LE Data Length Extension's largest ACL payload (Core 5.4 Vol 6 Part B §4.5.10):
    /// PDUs over 247 bytes are fragmented, as a modern controller would.
    public static let defaultACLBufferSize = 251
    /// The first connection handle written.
    public static let defaultConnectionHandle: UInt16 = 0x0040

    public let path: String
    public let writer: BtsnoopWriter
    public let clock: () -> Int64
    private var nextHandle: UInt16

    /// Creates (truncating) `path`. `clock` gives Unix microseconds (default: the wall clock).
    /// An unwritable path fails at once (`LinkError.system("open PATH", errno)`).
    public init(path: String, datalink: BtsnoopDatalink = .h4,
                firstConnectionHandle: UInt16 = TraceFile.defaultConnectionHandle,
                clock: @escaping () -> Int64 = RecordingBearer.wallClockMicroseconds) throws(LinkError) {
        precondition(firstConnectionHandle <= 0x0EFF, "HCI connection handles are 0x0000–0x0EFF")
        self.path = path
        self.clock = clock
        nextHandle = firstConnectionHandle
        do throws(BtsnoopError) {
            writer = try BtsnoopWriter(path: path, datalink: datalink)
        } catch {
            throw RecordingBearer.linkError(error, path: path)
        }
    }

    /// Records `bearer` as the next connection in this file (which the caller closes).
    public func record(_ bearer: any ATTBearer, vantage: RecordingVantage, peer: LEAddress, policy: RecordingFailurePolicy,
                       aclBufferSize: Int = TraceFile.defaultACLBufferSize) throws(LinkError) -> RecordingBearer {
        let recorder = ATTTraceRecorder(writer: writer, connection: allocateConnectionHandle(), aclBufferSize: aclBufferSize)
        return try RecordingBearer(recording: bearer, into: recorder, vantage: vantage, peer: peer, clock: clock,
                                   policy: policy)
    }

    private func allocateConnectionHandle() -> UInt16 {
        defer { nextHandle = nextHandle >= 0x0EFF ? 0x0001 : nextHandle + 1 }
        return nextHandle
    }

    /// Flushes and closes the file. Idempotent.
    public func close() throws(LinkError) {
        do throws(BtsnoopError) { try writer.close() } catch { throw RecordingBearer.linkError(error, path: path) }
    }
}

extension RecordingBearer {
    /// Opens (truncating) `path` and records `bearer` as its only connection; ``close()`` closes
    /// the file.
    ///
    /// ```swift
    /// let link = try RecordingBearer(recording: try SeqPacketLink.connect(path: socket),
    ///                                to: "session.log", vantage: .central, peer: band, policy: .failLink)
    /// // … run the GATT client over `link` …
    /// link.close()   // writes Disconnection Complete and closes the file
    /// ```
    public convenience init(recording bearer: any ATTBearer, to path: String, datalink: BtsnoopDatalink = .h4,
                            vantage: RecordingVantage, peer: LEAddress, policy: RecordingFailurePolicy,
                            connectionHandle: UInt16 = TraceFile.defaultConnectionHandle,
                            aclBufferSize: Int = TraceFile.defaultACLBufferSize,
                            clock: @escaping () -> Int64 = RecordingBearer.wallClockMicroseconds) throws(LinkError) {
        let file = try TraceFile(path: path, datalink: datalink, firstConnectionHandle: connectionHandle, clock: clock)
        let recorder = ATTTraceRecorder(writer: file.writer, connection: connectionHandle, aclBufferSize: aclBufferSize)
        try self.init(recording: bearer, into: recorder, vantage: vantage, peer: peer, clock: clock, policy: policy, closesWriter: true)
    }
}
