/// The order and timing of one connection's work, with no I/O: what happened goes in (link up,
/// authenticated, clock and device read, history synced, live minutes written, the wait for the
/// link returned, the link failed, a stop), what to do next comes out (authenticate, set the
/// clock, read the device, open the writer, sync history, subscribe, wait until an instant,
/// write or finish live minutes, report, finished, fail). ``BandSession`` performs the actions on
/// a link; the steps themselves are their own machines (``HistorySyncMachine``,
/// ``ClockObservation``) or pure types (``LiveStream``, ``MinuteAggregator``).
///
/// | after | next |
/// |---|---|
/// | link up | the plan (``SessionPlan``, from the discovered kind) authenticates: authenticate; else, streaming: set the clock; else (a sync of a device with no history): fail, naming the kind |
/// | authenticated | refused by a stop: finished (stopped); else set the clock |
/// | clock set | read Device Information and battery |
/// | device read | open the store writer for it |
/// | writer open | the plan syncs history (a BandKit band): sync history; then, streaming: subscribe to the plan's subscriptions |
/// | woke from waiting | a write due (every ``liveWriteInterval``): write closed minutes; then a sync due (every ``historySyncInterval``, band only): write closed minutes, then sync |
/// | subscribed, or nothing (more) due | the deadline passed: finish; else wait until the earliest of deadline, write and sync |
/// | stop, or the link failed while streaming | finish the live minutes (everything received is committed), then stopped / fail |
/// | finished at the deadline | band: one more history sync, so records replace the provisional minutes |
///
/// Times are `ContinuousClock.Instant`s carried by the events, so tests script them.
public struct SessionMachine {
    public enum Action {
        case report(ReaderEvent)
        case authenticate
        case synchronizeClock
        case readDeviceInformation
        case openWriter(BandDeviceInfo)
        case syncHistory(HistorySyncReason)
        case subscribeLive
        /// Handle link traffic until this instant (or a stop), then send ``SessionMachine/woke(at:)``.
        case waitForLink(until: ContinuousClock.Instant)
        /// Write the live minutes closed so far, then send ``SessionMachine/liveWritten(_:at:)``.
        case writeClosedMinutes
        /// Close the open minute and write everything unwritten, then send ``SessionMachine/liveWritten(_:at:)``.
        case finishLive
        case finished
        case fail(SessionError)
    }

    public enum HistorySyncReason: Sendable, Equatable {
        /// Right after connecting (and authenticating).
        case atConnect
        /// Periodically while streaming; live notifications keep flowing.
        case whileStreaming
        /// After the stream's deadline; live notifications are no longer routed.
        case atDeadline
    }

    /// What the device is and what the session does with it, decided from discovery.
    public let plan: SessionPlan
    public let goal: BandSession.Goal
    public var liveWriteInterval: Duration = .seconds(5)
    public var historySyncInterval: Duration? = .seconds(600)
    public private(set) var outcome = BandSession.Outcome()

    private var nextWrite: ContinuousClock.Instant?
    private var nextHistorySync: ContinuousClock.Instant?
    /// Closed minutes are being written before a sync while streaming.
    private var syncAfterWrite = false
    /// The stream is ending: the final write is in progress.
    private var ending = false
    private var streamError: SessionError?

    public init(plan: SessionPlan, goal: BandSession.Goal) {
        self.plan = plan
        self.goal = goal
    }

    /// Whether the device keeps history the session syncs (a BandKit band).
    private var isBand: Bool { plan.syncsHistory }

    private var deadline: ContinuousClock.Instant? {
        if case .stream(let deadline) = goal { return deadline }
        return nil
    }

    private var isStreaming: Bool {
        if case .stream = goal { return true }
        return false
    }

    // MARK: Events

    /// The link is up and discovery is done.
    public func linkUp(mtu: Int) -> [Action] {
        var actions: [Action] = [.report(.connected(mtu: mtu, kind: plan.kind))]
        if plan.authenticates {
            actions.append(.authenticate)
        } else if !isStreaming {
            actions.append(.fail(.notABand("found \(plan.kind.description), which keeps no history to sync; use band stream")))
        } else if plan.subscriptions.isEmpty {
            actions.append(.fail(.notABand("found \(plan.kind.description): nothing to stream")))
        } else {
            actions.append(.synchronizeClock)
        }
        return actions
    }

    /// Authentication finished: `completed` false when a stop interrupted it.
    public mutating func authenticated(_ completed: Bool) -> [Action] {
        guard completed else {
            outcome.stopped = true
            return [.finished]
        }
        return [.report(.authenticated), .synchronizeClock]
    }

    public func clockSynchronized() -> [Action] { [.readDeviceInformation] }

    public mutating func deviceRead(_ device: BandDeviceInfo, batteryPercent: Int?) -> [Action] {
        outcome.device = device
        return [.report(.device(device, batteryPercent: batteryPercent)), .openWriter(device)]
    }

    public func writerOpened() -> [Action] {
        if isBand { return [.syncHistory(.atConnect)] }
        return afterInitialSync()
    }

    /// A history sync finished: `minutes` stored, or nil when a stop interrupted it.
    public mutating func historySynced(_ minutes: Int?, reason: HistorySyncReason, at now: ContinuousClock.Instant) -> [Action] {
        guard let minutes else {
            outcome.stopped = true
            return reason == .whileStreaming ? endStream() : [.finished]
        }
        outcome.historyMinutes += minutes
        switch reason {
        case .atConnect: return afterInitialSync()
        case .atDeadline: return [.finished]
        case .whileStreaming:
            if let interval = historySyncInterval { nextHistorySync = now.advanced(by: interval) }
            return waitOrEnd(at: now)
        }
    }

    /// Live notifications are subscribed: the stream begins.
    public mutating func subscribed(at now: ContinuousClock.Instant) -> [Action] {
        nextWrite = now.advanced(by: liveWriteInterval)
        if isBand, let interval = historySyncInterval { nextHistorySync = now.advanced(by: interval) }
        return [.report(.streaming)] + waitOrEnd(at: now)
    }

    /// The wait for the link returned (traffic handled or the instant reached).
    public mutating func woke(at now: ContinuousClock.Instant) -> [Action] {
        if let nextWrite, now >= nextWrite { return [.writeClosedMinutes] }
        return syncIfDue(at: now)
    }

    /// `count` live minutes were written (possibly none).
    public mutating func liveWritten(_ count: Int, at now: ContinuousClock.Instant) -> [Action] {
        var actions: [Action] = []
        if count > 0 {
            outcome.liveMinutes += count
            actions.append(.report(.liveMinutesStored(count: count)))
        }
        if ending {
            ending = false
            if let streamError { return actions + [.fail(streamError)] }
            if !outcome.stopped, isBand { return actions + [.syncHistory(.atDeadline)] }
            return actions + [.finished]
        }
        if syncAfterWrite {
            // Live minutes first, so the records synced now replace them.
            syncAfterWrite = false
            return actions + [.syncHistory(.whileStreaming)]
        }
        nextWrite = now.advanced(by: liveWriteInterval)
        return actions + syncIfDue(at: now)
    }

    /// A stop was requested while streaming.
    public mutating func stopRequested() -> [Action] {
        outcome.stopped = true
        return endStream()
    }

    /// The link failed while streaming (or during a sync while streaming): everything received
    /// is still committed, then the session fails.
    public mutating func linkFailed(_ error: SessionError) -> [Action] {
        streamError = error
        return endStream()
    }

    // MARK: Steps

    private func afterInitialSync() -> [Action] {
        isStreaming ? [.subscribeLive] : [.finished]
    }

    /// After a wait and any write it made due: a history sync, if one is due.
    private mutating func syncIfDue(at now: ContinuousClock.Instant) -> [Action] {
        if let due = nextHistorySync, now >= due {
            syncAfterWrite = true
            return [.writeClosedMinutes]
        }
        return waitOrEnd(at: now)
    }

    /// The top of the streaming loop: the deadline ends it, else wait for the earliest due time.
    private mutating func waitOrEnd(at now: ContinuousClock.Instant) -> [Action] {
        if let deadline, now >= deadline { return endStream() }
        var wake = nextWrite ?? now
        if let deadline { wake = min(wake, deadline) }
        if let due = nextHistorySync { wake = min(wake, due) }
        return [.waitForLink(until: wake)]
    }

    private mutating func endStream() -> [Action] {
        ending = true
        return [.finishLive]
    }
}
