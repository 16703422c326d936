import BandLink
import BandReader
import BandTrace

/// A btsnoop trace of every connection one `band` run makes (`band … --record`), reconnects
/// included, each in its own LE Connection Complete … Disconnection Complete pair on the same
/// connection handle, from the reader host's vantage point like a phone's or BlueZ's HCI log:
/// what the reader sends goes host → controller, what the band sends arrives controller → host.
/// The trace opens in Wireshark and replays with `bandsim replay`.
final class SessionRecording {
    let path: String
    private let writer: BtsnoopWriter
    private let recorder: ATTTraceRecorder

    /// Creates (or truncates) the trace file (a `BtsnoopError` names what failed).
    init(path: String) throws {
        self.path = path
        writer = try BtsnoopWriter(path: path, datalink: .h4)
        recorder = ATTTraceRecorder(writer: writer, connection: 0x0040)
    }

    /// `bearer`, recording into this trace; the peer is ``BandAddress/recordedPeer``.
    ///
    /// A trace that cannot be written must not break the session it records: the first write
    /// error is handed to `onError` once and recording stops (``RecordingFailurePolicy/report(_:)``).
    func wrap(_ bearer: any ATTBearer, address: BandAddress, onError: @escaping (String) -> Void) -> any ATTBearer {
        do throws(LinkError) {
            // 0x13 on close, as these traces have always said; `.report` never throws.
            return try RecordingBearer(recording: bearer, into: recorder, vantage: .central, peer: address.recordedPeer,
                                       policy: .report(onError), localCloseReason: 0x13)
        } catch {
            onError("trace \(path): \(error)")
            return bearer
        }
    }

    /// Flushes and closes the file (a `BtsnoopError` names what failed).
    func close() throws {
        try writer.close()
    }
}
