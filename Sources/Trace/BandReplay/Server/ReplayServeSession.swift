import BandATT
import BandGATT
import BandGATTServer
import BandLink
import BandWire

/// One live client served by a replay: answers its requests from the recorded database and
/// pushes the recorded notifications on the recorded schedule, over any `ATTBearer`.
///
/// Single-threaded, one `poll()` per turn: the wait until the next push is due is the
/// `poll()` timeout on the link (and the stop-signal pipe). `poll()` counts whole
/// milliseconds, so the wait covers the whole milliseconds and the sub-millisecond rest is
/// met by re-checking the monotonic clock with zero-timeout polls — 0.4 ms gaps between
/// recorded notifications come out as 0.4 ms, not 1 ms. No sleeps anywhere.
public final class ReplayServeSession {
    /// What a session did, for the summary.
    public struct Summary: Hashable, Sendable {
        public var requestsAnswered = 0
        public var errorsSent: [ATTErrorCode: Int] = [:]
        public var notificationsSent = 0
        public var indicationsSent = 0
        /// Pushes per value handle that went out.
        public var sentPerHandle: [UInt16: Int] = [:]
        /// Pushes dropped because the live client never enabled their CCCD.
        public var skippedUnsubscribed = 0
        /// Values longer than the live ATT_MTU allowed, sent cut to ATT_MTU − 3 (§3.4.7.1).
        public var truncatedToMTU = 0
        public var gatesTimedOut = 0
        /// Authentications answered live (``ReplayAuthResponder``).
        public var authenticationsAnswered = 0
        /// True when the client hung up before the recorded end.
        public var clientHungUp = false
        /// True when a stop signal ended the session.
        public var stopped = false
        /// Largest lateness of a push behind its due time.
        public var worstLateness: Duration = .zero
    }

    /// The ATT state of the live connection (MTU), answering from ``attributes``.
    private var server: GATTServer
    /// The recorded database and what the live client configured.
    public private(set) var attributes: ReplayAttributeSource
    private var scheduler: NotificationScheduler
    private let timeline: NotificationTimeline
    private let authResponder: ReplayAuthResponder?
    /// Called after every push with (pushes done, pushes total).
    public var progress: ((Int, Int) -> Void)?

    /// `authResponder` answers a BandKit band's Auth Control Point live (the
    ///   recorded answers to it are then dropped from the timeline); nil replays them as recorded.
    public init(database: RecordedGATTDatabase, timeline: NotificationTimeline, speed: ReplaySpeed,
                serverMTU: Int? = nil, gateTimeout: Duration = .seconds(2), authResponder: ReplayAuthResponder? = nil) {
        let mtu = serverMTU ?? database.serverMTU ?? ATT.maximumMTU
        server = GATTServer(serverMTU: mtu)
        attributes = ReplayAttributeSource(database: database)
        let timeline = authResponder.map { timeline.removingPushes(on: $0.controlPointHandle) } ?? timeline
        self.timeline = timeline
        self.authResponder = authResponder
        scheduler = NotificationScheduler(timeline: timeline, speed: speed)
        scheduler.gateTimeout = gateTimeout
    }

    /// Serves `bearer` until the recorded connection ends (then closes it), the client hangs
    /// up, or `stop` fires. Link failures other than a hang-up are thrown.
    public func run(on bearer: any ATTBearer, stop: StopSignals? = nil) throws(LinkError) -> Summary {
        var summary = Summary()
        var poller = Poller()
        let linkDescriptor = bearer.pollDescriptor
        if let linkDescriptor { poller.watch(linkDescriptor) }
        if let stop { poller.watch(stop.pollDescriptor) }
        let input = UnsafeMutableRawBufferPointer.allocate(byteCount: ATT.maximumMTU, alignment: 8)
        let output = UnsafeMutableRawBufferPointer.allocate(byteCount: ATT.maximumMTU, alignment: 8)
        defer {
            input.deallocate()
            output.deallocate()
        }
        let subscription: NotificationScheduler.SubscriptionState = { [unowned self] handle, isIndication in
            guard let configuration = self.attributes.configuration(forValueHandle: handle) else { return nil }
            return isIndication ? configuration.indicationsEnabled : configuration.notificationsEnabled
        }
        scheduler.start(at: .now)

        sessionLoop: while true {
            let now = ContinuousClock.now
            switch scheduler.decide(at: now, subscription: subscription) {
            case .send(let index):
                let push = timeline.pushes[index]
                let lateness = now - scheduler.dueTime(push.unixMicroseconds)
                if lateness > summary.worstLateness, case .factor = scheduler.speed { summary.worstLateness = lateness }
                do {
                    try send(push, bearer: bearer, buffer: output, summary: &summary)
                } catch .closed {
                    summary.clientHungUp = true
                    break sessionLoop
                }
                scheduler.sent(index, at: .now)
                progress?(scheduler.nextIndex, timeline.count)
                continue
            case .skip(let index):
                summary.skippedUnsubscribed += 1
                scheduler.skipped(index)
                progress?(scheduler.nextIndex, timeline.count)
                continue
            case .finished:
                break sessionLoop
            case .wait(let deadline):
                // Whole milliseconds in poll(); the sub-millisecond rest by re-checking the clock.
                var timeout: Duration? = deadline.map { max(.zero, $0 - now) }
                if let remaining = timeout { timeout = .milliseconds(remaining / .milliseconds(1)) }
                var readable = true
                if linkDescriptor != nil || stop != nil {
                    try poller.wait(timeout: timeout)
                    if let stop, poller.isReady(stop.pollDescriptor) {
                        _ = stop.received()
                        summary.stopped = true
                        break sessionLoop
                    }
                    readable = linkDescriptor.map { poller.isReady($0) } ?? true
                    if readable { timeout = .zero }
                }
                guard readable else { continue }
                do {
                    guard let length = try bearer.receive(into: input, timeout: timeout) else { continue }
                    try answer(UnsafeRawBufferPointer(rebasing: input[0..<length]), bearer: bearer, output: output, summary: &summary)
                } catch .closed {
                    summary.clientHungUp = true
                    break sessionLoop
                }
            }
        }
        summary.gatesTimedOut = scheduler.gatesTimedOut
        summary.authenticationsAnswered = authResponder?.authenticated ?? 0
        bearer.close()
        return summary
    }

    private func answer(_ pdu: UnsafeRawBufferPointer, bearer: any ATTBearer, output: UnsafeMutableRawBufferPointer,
                        summary: inout Summary) throws(LinkError) {
        let result = server.handle(pdu, source: &attributes, into: output)
        let length = result.responseLength
        if let error = result.error { summary.errorsSent[error, default: 0] += 1 }
        switch result.event {
        case .exchangedMTU(let mtu):
            // The response goes out at the old MTU; both sides switch after it (§3.4.2).
            if length > 0 { try bearer.send(UnsafeRawBufferPointer(rebasing: output[0..<length])) }
            bearer.mtu = mtu
            summary.requestsAnswered += 1
            return
        case .wrote(let handle, let effect):
            scheduler.clientWrote(handle: handle, at: .now)
            if effect == .accepted, let authResponder, handle == authResponder.controlPointHandle,
               let answer = authResponder.respond(to: UnsafeRawBufferPointer(rebasing: pdu[3...])) {
                if length > 0 {
                    try bearer.send(UnsafeRawBufferPointer(rebasing: output[0..<length]))
                    summary.requestsAnswered += 1
                }
                try indicate(answer, on: handle, bearer: bearer, buffer: output)
                return
            }
        case .writeRefused(let handle, _):
            scheduler.clientWrote(handle: handle, at: .now)
        case .confirmedIndication:
            scheduler.clientConfirmed()
        case .none, .unexpected:
            break
        }
        if length > 0 {
            try bearer.send(UnsafeRawBufferPointer(rebasing: output[0..<length]))
            summary.requestsAnswered += 1
        }
    }

    /// A live indication (the auth responder's answer), if the client enabled indications.
    private func indicate(_ value: [UInt8], on handle: UInt16, bearer: any ATTBearer, buffer: UnsafeMutableRawBufferPointer) throws(LinkError) {
        guard attributes.configuration(forValueHandle: handle)?.indicationsEnabled ?? true else { return }
        var writer = ByteWriter(buffer)
        writer.writeUInt8(ATTOpcode.handleValueIndication.rawValue)
        writer.writeUInt16LE(handle)
        writer.writeBytes(value.prefix(bearer.mtu - 3))
        try bearer.send(writer.written)
    }

    private func send(_ push: NotificationTimeline.Push, bearer: any ATTBearer, buffer: UnsafeMutableRawBufferPointer,
                      summary: inout Summary) throws(LinkError) {
        var writer = ByteWriter(buffer)
        writer.writeUInt8(push.isIndication ? ATTOpcode.handleValueIndication.rawValue : ATTOpcode.handleValueNotification.rawValue)
        writer.writeUInt16LE(push.handle)
        let room = bearer.mtu - 3
        timeline.withValue(of: push) { value in
            if value.count > room { summary.truncatedToMTU += 1 }
            writer.writeBytes(UnsafeRawBufferPointer(rebasing: value[0..<min(value.count, room)]))
        }
        try bearer.send(writer.written)
        if push.isIndication { summary.indicationsSent += 1 } else { summary.notificationsSent += 1 }
        summary.sentPerHandle[push.handle, default: 0] += 1
    }
}
