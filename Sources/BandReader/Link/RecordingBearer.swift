import BandLink
import BandTrace
import BandWire
import FoundationEssentials

/// An ATT bearer that writes every PDU of a reader's session into a btsnoop trace
/// (`band stream --record`), from the reader host's vantage point like a phone's or BlueZ's HCI
/// log: what the reader sends goes host → controller, what the band sends arrives controller →
/// host, inside an LE Connection Complete … Disconnection Complete pair per connection. The trace
/// opens in Wireshark and replays with `bandsim replay`.
///
/// A trace that cannot be written must not break the session it records: write errors are
/// reported once through `onError` and recording stops.
public final class RecordingBearer: ATTBearer {
    private let inner: any ATTBearer
    private let recorder: ATTTraceRecorder
    private let onError: (String) -> Void
    private var failed = false
    private var closed = false

    public init(_ inner: any ATTBearer, recorder: ATTTraceRecorder, peer: LEAddress, onError: @escaping (String) -> Void) {
        self.inner = inner
        self.recorder = recorder
        self.onError = onError
        record { (recorder, now) throws(BtsnoopError) in try recorder.recordConnection(peer: peer, at: now) }
    }

    public var mtu: Int {
        get { inner.mtu }
        set { inner.mtu = newValue }
    }

    public var pollDescriptor: Int32? { inner.pollDescriptor }

    public func send(_ pdu: UnsafeRawBufferPointer) throws(LinkError) {
        try inner.send(pdu)
        record { (recorder, now) throws(BtsnoopError) in try recorder.record(pdu: pdu, direction: .tx, at: now) }
    }

    public func receive(into buffer: UnsafeMutableRawBufferPointer, timeout: Duration?) throws(LinkError) -> Int? {
        guard let length = try inner.receive(into: buffer, timeout: timeout) else { return nil }
        record { (recorder, now) throws(BtsnoopError) in
            try recorder.record(pdu: UnsafeRawBufferPointer(rebasing: buffer[0..<length]), direction: .rx, at: now)
        }
        return length
    }

    public func close() {
        inner.close()
        guard !closed else { return }
        closed = true
        record { (recorder, now) throws(BtsnoopError) in
            try recorder.recordDisconnection(at: now)
            try recorder.writer.flush()
        }
    }

    private func record(_ body: (ATTTraceRecorder, Int64) throws(BtsnoopError) -> Void) {
        guard !failed else { return }
        let now = Int64((Date().timeIntervalSince1970 * 1_000_000).rounded())
        do throws(BtsnoopError) { try body(recorder, now) } catch {
            failed = true
            onError("trace recording stopped: \(error)")
        }
    }
}

/// A btsnoop trace of every connection one `band` run makes (reconnects included), each in its
/// own LE Connection Complete … Disconnection Complete pair on the same connection handle.
public final class SessionRecording {
    public let path: String
    private let writer: BtsnoopWriter
    private let recorder: ATTTraceRecorder

    /// Creates (or truncates) the trace file (a `BtsnoopError` names what failed).
    public init(path: String) throws {
        self.path = path
        writer = try BtsnoopWriter(path: path, datalink: .h4)
        recorder = ATTTraceRecorder(writer: writer, connection: 0x0040)
    }

    /// `bearer`, recording into this trace; the peer is ``BandAddress/recordedPeer``.
    public func wrap(_ bearer: any ATTBearer, address: BandAddress, onError: @escaping (String) -> Void) -> any ATTBearer {
        RecordingBearer(bearer, recorder: recorder, peer: address.recordedPeer, onError: onError)
    }

    /// Flushes and closes the file (a `BtsnoopError` names what failed).
    public func close() throws {
        try writer.close()
    }
}
