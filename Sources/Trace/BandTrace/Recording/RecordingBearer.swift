#if canImport(Glibc)
import Glibc
#endif
import BandHCI
import BandLink
import BandWire

/// The one trace recorder: an `ATTBearer` that records everything it carries into a btsnoop
/// file (through an ``ATTTraceRecorder``) as the HCI traffic a controller would have shown the
/// recording host — LE Connection Complete when recording starts, every PDU sent and received as
/// ACL data on L2CAP CID 4, Disconnection Complete when the link closes. Wrap the link and use
/// the wrapper in its place; nothing else changes.
///
/// Used by `band … --record` (the reader), `bandsim serve --record` (the band, recording as its
/// reader's host would have) and `bandsim replay --record` (the replayed band's own host). What
/// a failed trace write does is the caller's decision, never this type's:
/// ``RecordingFailurePolicy``.
///
/// A PDU that failed to send is not recorded (it never reached the air). Timestamps come from
/// `clock` (Unix microseconds), taken when each PDU went out or came in.
public final class RecordingBearer: ATTBearer {
    private let inner: any ATTBearer
    private let recorder: ATTTraceRecorder
    private let vantage: RecordingVantage
    private let clock: () -> Int64
    private let policy: RecordingFailurePolicy
    /// What ``close()`` does with the file: flush it (others record into it later) or close it.
    private let closesWriter: Bool
    private let localCloseReason: UInt8
    /// Where the file is, for error messages (`write PATH`): the writer's path, or "trace" for a
    /// descriptor.
    public var path: String { recorder.writer.path ?? "trace" }
    private var finished = false
    /// PDUs recorded so far (both directions).
    public private(set) var recordedPDUs = 0
    /// The write error that stopped recording (policies that keep the link going), or the error
    /// finishing the file at close (every policy: a close cannot fail a link operation).
    public private(set) var failure: BtsnoopError?

    /// Records `inner` as one connection: writes LE Connection Complete at once.
    ///
    /// - Parameters:
    ///   - inner: the link whose traffic is recorded.
    ///   - recorder: the file and the HCI connection handle this connection is recorded under.
    ///   - vantage: whose host the trace shows (role in LE Connection Complete, direction of sends).
    ///   - peer: the device at the other end, as the controller's event would name it.
    ///   - clock: Unix microseconds now (default: the wall clock).
    ///   - policy: what a failed trace write does.
    ///   - closesWriter: whether ``close()`` closes the file (true) or only flushes it (false).
    ///   - localCloseReason: the Disconnection Complete reason written when this side closes
    ///     (0x16, terminated by local host, unless the caller's traces have always said otherwise).
    /// - Throws: only with ``RecordingFailurePolicy/failLink``: the LE Connection Complete could
    ///   not be written (`LinkError.system("write PATH", errno)`).
    public init(recording inner: any ATTBearer, into recorder: ATTTraceRecorder, vantage: RecordingVantage,
                peer: LEAddress, clock: @escaping () -> Int64 = RecordingBearer.wallClockMicroseconds,
                policy: RecordingFailurePolicy, closesWriter: Bool = false, localCloseReason: UInt8 = 0x16) throws(LinkError) {
        self.inner = inner
        self.recorder = recorder
        self.vantage = vantage
        self.clock = clock
        self.policy = policy
        self.closesWriter = closesWriter
        self.localCloseReason = localCloseReason
        let event = LEConnectionComplete(handle: recorder.connection, role: vantage.role, peer: peer)
        try record { (recorder, now) throws(BtsnoopError) in try recorder.recordEvent(.leMeta, at: now) { event.encode(into: &$0) } }
        recordedPDUs = 0  // the connection event is not a PDU
    }

    public var mtu: Int {
        get { inner.mtu }
        set { inner.mtu = newValue }
    }

    public var pollDescriptor: Int32? { inner.pollDescriptor }

    public func send(_ pdu: UnsafeRawBufferPointer) throws(LinkError) {
        try inner.send(pdu)
        let direction = vantage.sent
        try record { (recorder, now) throws(BtsnoopError) in try recorder.record(pdu: pdu, direction: direction, at: now) }
    }

    public func receive(into buffer: UnsafeMutableRawBufferPointer, timeout: Duration?) throws(LinkError) -> Int? {
        let length: Int?
        do throws(LinkError) {
            length = try inner.receive(into: buffer, timeout: timeout)
        } catch {
            if error == .closed { finish(reason: 0x13) }  // remote user terminated connection
            throw error
        }
        guard let length else { return nil }
        let direction = vantage.received
        try record { (recorder, now) throws(BtsnoopError) in
            try recorder.record(pdu: UnsafeRawBufferPointer(rebasing: buffer[0..<length]), direction: direction, at: now)
        }
        return length
    }

    /// Closes the link and finishes the connection with Disconnection Complete. Idempotent.
    public func close() {
        inner.close()
        finish(reason: localCloseReason)
    }

    /// Writes Disconnection Complete and flushes (or closes) the file once. A close cannot fail a
    /// link operation, so an error here is kept in ``failure`` (and reported under `.report`).
    private func finish(reason: UInt8) {
        guard !finished else { return }
        finished = true
        guard failure == nil || policy.isFailLink else { return }
        let closesWriter = self.closesWriter
        let outcome = attempt { (recorder, now) throws(BtsnoopError) in
            try recorder.recordDisconnection(reason: reason, at: now)
            if closesWriter { try recorder.writer.close() } else { try recorder.writer.flush() }
        }
        if let error = outcome {
            failure = error
            if case .report(let report) = policy { report(Self.describe(error, path: path)) }
        }
    }

    /// Runs one write under the caller's policy.
    private func record(_ body: (ATTTraceRecorder, Int64) throws(BtsnoopError) -> Void) throws(LinkError) {
        guard !finished else { return }  // nothing after Disconnection Complete
        switch policy {
        case .failLink:
            if let error = attempt(body) { throw Self.linkError(error, path: path) }
        case .stopQuietly, .report:
            guard failure == nil else { return }
            if let error = attempt(body) {
                failure = error
                if case .report(let report) = policy { report(Self.describe(error, path: path)) }
                return
            }
        }
        recordedPDUs += 1
    }

    private func attempt(_ body: (ATTTraceRecorder, Int64) throws(BtsnoopError) -> Void) -> BtsnoopError? {
        do throws(BtsnoopError) { try body(recorder, clock()); return nil } catch { return error }
    }

    /// "trace PATH: recording stopped: …", the one line `.report` hands its caller.
    static func describe(_ error: BtsnoopError, path: String) -> String {
        "trace \(path): recording stopped: \(error)"
    }

    /// A trace write failure as the link error `.failLink` throws: the call and the path, errno kept.
    public static func linkError(_ error: BtsnoopError, path: String) -> LinkError {
        if case .system(let call, let errno) = error.kind { return .system(call: "\(call) \(path)", errno: errno) }
        return .system(call: "record \(path): \(error)", errno: EIO)
    }

    /// Unix microseconds from `CLOCK_REALTIME`.
    public static func wallClockMicroseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
    }
}

/// What a ``RecordingBearer`` does when the trace cannot be written (a full disk, a lost mount).
/// The caller chooses: only it knows whether the trace or the link matters more.
public enum RecordingFailurePolicy {
    /// Recording stops; the link goes on and nothing is said (``RecordingBearer/failure`` keeps the
    /// error for a caller that asks).
    case stopQuietly
    /// Recording stops; the link goes on; the error is handed once to `report` (one line naming
    /// the file). `band … --record`, `bandsim serve --record`: the session matters more.
    case report((String) -> Void)
    /// The link operation fails with `LinkError.system("write PATH", errno)`: a recording with
    /// silent holes would be worse than none (`bandsim replay --record`, where the trace is the
    /// product). Every later operation tries again, and fails again while the disk stays full.
    case failLink

    var isFailLink: Bool { if case .failLink = self { return true } else { return false } }
}

/// Whose HCI log a trace is: the role written in LE Connection Complete and the direction of
/// what the wrapped side sends (tx: host → controller) and receives.
public struct RecordingVantage: Sendable, Equatable {
    /// LE Connection Complete's Role: 0x00 central, 0x01 peripheral.
    public var role: UInt8
    public var sent: TraceDirection
    public var received: TraceDirection { sent == .tx ? .rx : .tx }

    public init(role: UInt8, sent: TraceDirection) {
        self.role = role
        self.sent = sent
    }

    /// The reader records its own session (it connected out).
    public static let central = RecordingVantage(role: 0x00, sent: .tx)
    /// The band records its own session (it was connected to).
    public static let peripheral = RecordingVantage(role: 0x01, sent: .tx)
    /// The band records as its reader's host would have captured it (a phone's or BlueZ's HCI
    /// log): what the band sends arrives controller → host.
    public static let centralOfThisPeripheral = RecordingVantage(role: 0x00, sent: .rx)
}
