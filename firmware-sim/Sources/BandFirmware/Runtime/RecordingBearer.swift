import BandLink
import BandTrace
import BandWire

/// An ATT bearer that writes every PDU it carries into a btsnoop trace (`--record`), as the
/// *reader's* host would have captured the session (the usual vantage point of a phone's or
/// BlueZ's HCI log): what the band sends arrives controller → host, what the reader sends goes
/// host → controller, inside an LE Connection Complete (peer: the band) … Disconnection
/// Complete pair.
///
/// Timestamps are the simulation's true time, so a trace of a `--speed 60` session shows
/// band time, the time the data is about.
final class RecordingBearer: ATTBearer {
    private let inner: any ATTBearer
    private let recorder: ATTTraceRecorder
    private let now: () -> Int64
    private let onError: (String) -> Void
    private var closed = false

    init(_ inner: any ATTBearer, recorder: ATTTraceRecorder, peer: LEAddress, now: @escaping () -> Int64, onError: @escaping (String) -> Void) {
        self.inner = inner
        self.recorder = recorder
        self.now = now
        self.onError = onError
        do throws(BtsnoopError) { try recorder.recordConnection(peer: peer, at: now()) } catch { onError("\(error)") }
    }

    var mtu: Int {
        get { inner.mtu }
        set { inner.mtu = newValue }
    }

    var pollDescriptor: Int32? { inner.pollDescriptor }

    func send(_ pdu: UnsafeRawBufferPointer) throws(LinkError) {
        try inner.send(pdu)
        do throws(BtsnoopError) { try recorder.record(pdu: pdu, direction: .rx, at: now()) } catch { onError("\(error)") }
    }

    func receive(into buffer: UnsafeMutableRawBufferPointer, timeout: Duration?) throws(LinkError) -> Int? {
        guard let length = try inner.receive(into: buffer, timeout: timeout) else { return nil }
        do throws(BtsnoopError) {
            try recorder.record(pdu: UnsafeRawBufferPointer(rebasing: buffer[0..<length]), direction: .tx, at: now())
        } catch { onError("\(error)") }
        return length
    }

    func close() {
        inner.close()
        guard !closed else { return }
        closed = true
        do throws(BtsnoopError) {
            try recorder.recordDisconnection(at: now())
            try recorder.writer.flush()
        } catch { onError("\(error)") }
    }
}
