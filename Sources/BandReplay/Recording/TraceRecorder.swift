#if canImport(Glibc)
import Glibc
#endif
import BandATT
import BandHCI
import BandLink
import BandTrace
import BandWire

/// An ``ATTBearer`` that records everything it carries into a btsnoop file, as the HCI
/// traffic a controller would have shown the recording host: LE Connection Complete when
/// recording starts, every PDU sent (tx) and received (rx) as ACL data on L2CAP CID 4, and
/// Disconnection Complete when the link closes.
///
/// Wrap the link and use the wrapper in its place; nothing else changes:
///
/// ```swift
/// let link = try TraceRecorder(recording: try SeqPacketLink.connect(path: socket),
///                              to: "session.log", role: .central, peer: bandAddress)
/// // … run the GATT client over `link` …
/// link.close()   // writes Disconnection Complete and closes the file
/// ```
///
/// A reader that reconnects records every connection into one file: open a ``TraceFile``
/// once and wrap each new link with ``init(recording:into:role:peer:aclBufferSize:)``; each
/// connection gets its own HCI handle and its own connect/disconnect events, as a phone's log
/// shows reconnections.
///
/// Timestamps are the wall clock (`CLOCK_REALTIME`) at the moment each PDU went out or came
/// in. A PDU that failed to send is not recorded (it never reached the air). Failing to
/// write the trace fails the link operation (`LinkError.system("write TRACE", errno)`):
/// a recording with silent holes would be worse than none.
public final class TraceRecorder: ATTBearer {
    /// Which end of the LE link the recording host is (LE Connection Complete, Role).
    public enum Role: UInt8, Sendable {
        /// The reader: it connected out (`band stream --record`).
        case central = 0x00
        /// The band: it was connected to (`bandsim serve --record`).
        case peripheral = 0x01
    }

    /// LE Data Length Extension's largest ACL payload (Core 5.4 Vol 6 Part B §4.5.10):
    /// PDUs over 247 bytes are fragmented, as a modern controller would.
    public static let defaultACLBufferSize = 251
    /// The connection handle written into every record.
    public static let defaultConnectionHandle: UInt16 = 0x0040

    public var path: String { file.path }
    private let inner: any ATTBearer
    private let file: TraceFile
    /// Whether closing this recorder closes the file (it opened it).
    private let ownsFile: Bool
    private let recorder: ATTTraceRecorder
    private var clock: () -> Int64 { file.clock }
    private var isClosed = false
    /// PDUs recorded so far (both directions).
    public private(set) var recordedPDUs = 0

    /// Opens (truncating) `path` and records LE Connection Complete at once.
    ///
    /// - Parameters:
    ///   - datalink: `.h4` (1002, as Android writes) or `.linuxMonitor` (2001, as `btmon -w`).
    ///   - peer: the device at the other end as it would appear in the controller's event.
    ///   - clock: Unix microseconds now; the default is the wall clock.
    public convenience init(recording bearer: any ATTBearer, to path: String, datalink: BtsnoopDatalink = .h4, role: Role,
                            peer: LEAddress, connectionHandle: UInt16 = TraceRecorder.defaultConnectionHandle,
                            aclBufferSize: Int = TraceRecorder.defaultACLBufferSize,
                            clock: @escaping () -> Int64 = TraceRecorder.wallClockMicroseconds) throws(LinkError) {
        let file = try TraceFile(path: path, datalink: datalink, firstConnectionHandle: connectionHandle, clock: clock)
        try self.init(recording: bearer, file: file, ownsFile: true, role: role, peer: peer, aclBufferSize: aclBufferSize)
    }

    /// Records `bearer` as the next connection in `file` (which the caller closes).
    public convenience init(recording bearer: any ATTBearer, into file: TraceFile, role: Role, peer: LEAddress,
                            aclBufferSize: Int = TraceRecorder.defaultACLBufferSize) throws(LinkError) {
        try self.init(recording: bearer, file: file, ownsFile: false, role: role, peer: peer, aclBufferSize: aclBufferSize)
    }

    private init(recording bearer: any ATTBearer, file: TraceFile, ownsFile: Bool, role: Role, peer: LEAddress,
                 aclBufferSize: Int) throws(LinkError) {
        inner = bearer
        self.file = file
        self.ownsFile = ownsFile
        let handle = file.allocateConnectionHandle()
        recorder = ATTTraceRecorder(writer: file.writer, connection: handle, aclBufferSize: aclBufferSize)
        let event = LEConnectionComplete(handle: handle, role: role.rawValue, peer: peer)
        do throws(BtsnoopError) {
            try recorder.recordEvent(.leMeta, at: file.clock()) { event.encode(into: &$0) }
        } catch {
            throw TraceFile.linkError(error, path: file.path)
        }
    }

    public var mtu: Int {
        get { inner.mtu }
        set { inner.mtu = newValue }
    }

    public var pollDescriptor: Int32? { inner.pollDescriptor }

    public func send(_ pdu: UnsafeRawBufferPointer) throws(LinkError) {
        try inner.send(pdu)
        try record(pdu, .tx)
    }

    public func receive(into buffer: UnsafeMutableRawBufferPointer, timeout: Duration?) throws(LinkError) -> Int? {
        do throws(LinkError) {
            guard let length = try inner.receive(into: buffer, timeout: timeout) else { return nil }
            try record(UnsafeRawBufferPointer(rebasing: buffer[0..<length]), .rx)
            return length
        } catch {
            if error == .closed { finishRecording(reason: 0x13) }  // remote user terminated connection
            throw error
        }
    }

    /// Closes the link and finishes the file with Disconnection Complete. Idempotent.
    public func close() {
        inner.close()
        finishRecording(reason: 0x16)  // connection terminated by local host
    }

    /// Flushes and closes the file once; later calls do nothing. Errors here can no longer fail
    /// a link operation, so they are kept in ``closeError``.
    private func finishRecording(reason: UInt8) {
        guard !isClosed else { return }
        isClosed = true
        do throws(BtsnoopError) {
            try recorder.recordDisconnection(reason: reason, at: clock())
            if ownsFile { try file.writer.close() } else { try file.writer.flush() }
        } catch {
            closeError = error
        }
    }

    /// A failure to finish the file (disk full at the end), if any.
    public private(set) var closeError: BtsnoopError?

    private func record(_ pdu: UnsafeRawBufferPointer, _ direction: TraceDirection) throws(LinkError) {
        guard !isClosed else { return }
        do throws(BtsnoopError) {
            try recorder.record(pdu: pdu, direction: direction, at: clock())
        } catch {
            throw TraceFile.linkError(error, path: path)
        }
        recordedPDUs += 1
    }

    /// Unix microseconds from `CLOCK_REALTIME`.
    public static func wallClockMicroseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
    }
}
