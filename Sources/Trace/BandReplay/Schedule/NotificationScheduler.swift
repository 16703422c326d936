/// Decides, from a monotonic clock reading, which recorded push is due next: pure logic,
/// no I/O, so its timing rules are tested without sockets or sleeps.
///
/// Recorded time maps to live time through an anchor pair (live instant, recorded µs):
/// `due = anchor.live + (t − anchor.recorded) / speed`. The anchor starts at the live
/// connection ↔ the recorded connection start, and moves:
/// - to (live write, recorded write) when the push's ``NotificationTimeline/WriteGate`` is
///   met, so a push that followed a client write in the trace follows the live one by the
///   same (scaled) gap, whatever the client's own pace;
/// - to (now, t) when a push had to wait longer than its due time (for a gate, a
///   subscription or an indication's confirmation), so later gaps stay as recorded.
///
/// Holding rules, each bounded by ``gateTimeout`` of live time:
/// - a push waits for its write gate; after the timeout it goes anyway (the recorded
///   device sent it);
/// - a push for a characteristic whose CCCD the live client has not enabled waits; after
///   the timeout it and every later push for that handle are skipped while unsubscribed;
/// - an indication waits for the previous one's confirmation (§3.4.7.2), at most
///   ``confirmationTimeout`` (ATT's 30 s transaction timeout).
public struct NotificationScheduler {
    public enum Decision: Equatable {
        /// Send push `index` now.
        case send(Int)
        /// Drop push `index`: the client never subscribed to it.
        case skip(Int)
        /// Nothing is due before `deadline` (nil: only client input can change that).
        case wait(until: ContinuousClock.Instant?)
        /// Every push is done and the recorded end has come: hang up.
        case finished
    }

    /// Whether the live client subscribed to a handle's pushes: nil when the database knows
    /// no CCCD for it (the recorded device pushed regardless, so the replay does too).
    public typealias SubscriptionState = (_ handle: UInt16, _ isIndication: Bool) -> Bool?

    public let timeline: NotificationTimeline
    public let speed: ReplaySpeed
    public var gateTimeout: Duration = .seconds(2)
    public var confirmationTimeout: Duration = .seconds(30)

    public private(set) var nextIndex = 0
    private var anchorLive: ContinuousClock.Instant?
    private var anchorRecorded: Int64 = 0
    private var anchoredGate: NotificationTimeline.WriteGate?
    /// When the current head started waiting on something other than its due time.
    private var holdingSince: ContinuousClock.Instant?
    private var liveWrites: [UInt16: [ContinuousClock.Instant]] = [:]
    private var declined: Set<UInt16> = []
    private var unconfirmedSince: ContinuousClock.Instant?
    public private(set) var gatesTimedOut = 0
    public private(set) var confirmationsTimedOut = 0

    public init(timeline: NotificationTimeline, speed: ReplaySpeed) {
        self.timeline = timeline
        self.speed = speed
    }

    /// The live connection began at `now`.
    public mutating func start(at now: ContinuousClock.Instant) {
        anchorLive = now
        anchorRecorded = timeline.startMicroseconds ?? timeline.pushes.first?.unixMicroseconds ?? 0
    }

    /// The live client wrote `handle` at `now`.
    public mutating func clientWrote(handle: UInt16, at now: ContinuousClock.Instant) {
        liveWrites[handle, default: []].append(now)
    }

    /// The live client confirmed the outstanding indication.
    public mutating func clientConfirmed() { unconfirmedSince = nil }

    /// Records that push `index` went out at `now` (indications then await confirmation).
    public mutating func sent(_ index: Int, at now: ContinuousClock.Instant) {
        precondition(index == nextIndex, "pushes go out in order")
        if timeline.pushes[index].isIndication { unconfirmedSince = now }
        advance()
    }

    public mutating func skipped(_ index: Int) {
        precondition(index == nextIndex, "pushes are skipped in order")
        advance()
    }

    private mutating func advance() {
        nextIndex += 1
        holdingSince = nil
    }

    public func isDeclined(_ handle: UInt16) -> Bool { declined.contains(handle) }

    /// What to do at `now`.
    public mutating func decide(at now: ContinuousClock.Instant, subscription: SubscriptionState) -> Decision {
        if anchorLive == nil { start(at: now) }
        let pushes = timeline.pushes
        guard nextIndex < pushes.count else { return decideEnd(at: now) }
        let push = pushes[nextIndex]

        if let since = unconfirmedSince, push.isIndication {
            if now - since < confirmationTimeout { return .wait(until: since + confirmationTimeout) }
            unconfirmedSince = nil
            confirmationsTimedOut += 1
        }
        if let deadline = holdForGate(push.gate, recorded: push.unixMicroseconds, at: now) { return .wait(until: deadline) }

        switch subscription(push.handle, push.isIndication) {
        case false?:
            if declined.contains(push.handle) { return .skip(nextIndex) }
            let since = holdingSince ?? now
            holdingSince = since
            if now - since < gateTimeout { return .wait(until: since + gateTimeout) }
            declined.insert(push.handle)
            return .skip(nextIndex)
        default:
            declined.remove(push.handle)
        }

        let due = dueTime(push.unixMicroseconds)
        if now < due { return .wait(until: due) }
        if let since = holdingSince, since > due {
            // It waited on the client beyond its slot: later gaps count from now.
            anchorLive = now
            anchorRecorded = push.unixMicroseconds
        }
        return .send(nextIndex)
    }

    private mutating func decideEnd(at now: ContinuousClock.Instant) -> Decision {
        if let since = unconfirmedSince {
            if now - since < confirmationTimeout { return .wait(until: since + confirmationTimeout) }
            unconfirmedSince = nil
            confirmationsTimedOut += 1
        }
        let end = timeline.endMicroseconds ?? timeline.pushes.last?.unixMicroseconds ?? anchorRecorded
        if let deadline = holdForGate(timeline.endGate, recorded: end, at: now) { return .wait(until: deadline) }
        let due = dueTime(end)
        return now < due ? .wait(until: due) : .finished
    }

    /// The deadline to wait for while `gate` is unmet and its timeout runs; nil once it is
    /// met (re-anchoring on the live write) or given up on.
    private mutating func holdForGate(_ gate: NotificationTimeline.WriteGate?, recorded: Int64,
                                      at now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        guard let gate, gate != anchoredGate else { return nil }
        if let writes = liveWrites[gate.handle], writes.count >= gate.ordinal {
            anchoredGate = gate
            anchorLive = writes[gate.ordinal - 1]
            anchorRecorded = gate.unixMicroseconds
            return nil
        }
        let since = holdingSince ?? now
        holdingSince = since
        if now - since < gateTimeout { return since + gateTimeout }
        // The client never did what the recorded one did; the device pushed anyway.
        gatesTimedOut += 1
        anchoredGate = gate
        anchorLive = now
        anchorRecorded = recorded
        return nil
    }

    /// The live instant at which recorded time `t` falls due.
    public func dueTime(_ t: Int64) -> ContinuousClock.Instant {
        guard let anchorLive else { return .now }
        if case .max = speed { return anchorLive }
        // Timestamps come from the file: any two Int64s, whose difference may not fit.
        let (gap, overflowed) = t.subtractingReportingOverflow(anchorRecorded)
        return anchorLive + speed.liveDuration(ofRecorded: overflowed ? (t > anchorRecorded ? .max : .min) : gap)
    }
}
