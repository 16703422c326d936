import BandProtocol

/// The order and timing of one connection's work, with no I/O: what happened goes in (link up,
/// authenticated, clock and device read, the band's history answers, a commit finished, live
/// minutes written, the wait for the link returned, the link failed, a stop), what to do next
/// comes out (authenticate, set the clock, read the device, open the writer, begin a history
/// sync, send a fetch, await a transfer, commit, acknowledge, subscribe, wait until an instant,
/// write or finish live minutes, report, finished, fail). ``BandSession`` performs the actions on
/// a link and the store handle it was given; the steps themselves are their own machines
/// (``HistorySyncMachine``, driven from inside this one; ``ClockObservation``) or pure types
/// (``LiveStream``, ``MinuteAggregator``).
///
/// Every notification the link delivers goes through ``routeNotification(handle:_:)``: History
/// Data reaches the history sync in progress, anything else the live stream. The route never
/// changes hands, so no step installs or restores a handler of its own.
///
/// | after | next |
/// |---|---|
/// | link up | the plan (``SessionPlan``, from the discovered kind) authenticates: authenticate; else, streaming: set the clock; else (a sync of a device with no history): fail, naming the kind |
/// | authenticated | refused by a stop: finished (stopped); else set the clock |
/// | clock set | read Device Information and battery |
/// | device read | open the store writer for it |
/// | writer open | the plan syncs history (a BandKit band): sync history; then, streaming: subscribe to the plan's subscriptions |
/// | woke from waiting | a write due (every ``liveWriteInterval``): write closed minutes; then a Current Time read due (every ``clockRereadInterval``, devices whose readings carry no time): read it; then a sync due (every ``historySyncInterval``, band only): write closed minutes, then sync |
/// | subscribed, or nothing (more) due | the deadline passed: finish; else wait until the earliest of deadline, write and sync |
/// | stop, or the link failed while streaming | finish the live minutes (everything received is committed), then stopped / fail |
/// | finish requested (while waiting) | the deadline is now: as "the deadline passed" |
/// | finished at the deadline | band: one more history sync, so records replace the provisional minutes |
/// | history sync begun (subscribed, stored cursor read) | ``HistorySyncMachine`` from that cursor: its fetches, transfers, commits and acknowledgements become this machine's actions, its reports are reported |
/// | history commit finished | the sync's acknowledgement of that slice (only after the commit: durable before acknowledged) |
/// | history finished, stopped or failed | as "history synced" above; a failure while streaming ends the stream like a lost link (a transient store failure instead leaves the sync owed, below); at the deadline with live readings routed, first close the live stream (its last part is written, or spooled), then finished / fail |
///
/// **The store unreachable** (a transient ``StoreFailure``: PostgreSQL down, restarting, the
/// connection lost; a lock held too long; while streaming, a full disk) does not end the session:
///
/// | after | next |
/// |---|---|
/// | writer open, the spool holds entries from an earlier outage | replay the spool first, then go on |
/// | a history sync failed on the store (`historyEnded`: its commit failed, so its acknowledgement was never sent) | nothing was acknowledged (the band keeps the records): report, retry the store at the next backoff instant; streaming goes on, a sync (`band sync`) waits on the link |
/// | a live write failed on the store | spool the minutes it held; report "store unreachable, N minutes spooled" |
/// | live minutes due while the store is down | spool them (no store round trip) |
/// | the retry instant came | replay the spool through the store's write path: it worked → the store is back, the owed history sync runs; it failed → the next, doubled delay (``storeRetry``, 1 s … 60 s) |
/// | a sync's store retries exhausted (``maximumStoreRetries``) | fail: ``SessionError/storeGaveUp(_:retries:)`` with the store's error |
///
/// Times are `ContinuousClock.Instant`s carried by the events, so tests script them.
public struct SessionMachine {
    public enum Action {
        case report(ReaderEvent)
        case authenticate
        case synchronizeClock
        case readDeviceInformation
        case openWriter(BandDeviceInfo)
        /// Begin a history sync: subscribe to the History Control Point and History Data, read the
        /// store's cursor, then send ``SessionMachine/historyCursorRead(_:at:)``.
        case syncHistory(HistorySyncReason)
        /// Write this fetch to the History Control Point; feed the answer to
        /// ``SessionMachine/historyFetchAnswered(_:at:)``.
        case sendHistoryFetch(HistoryFetchRequest)
        /// Wait for the History Control Point's Transfer Complete (data packets arrive through
        /// ``SessionMachine/routeNotification(handle:_:)``); feed it to
        /// ``SessionMachine/historyTransferCompleted(_:at:)``.
        case awaitHistoryTransfer
        /// Commit these records and the cursor after them in one durable transaction, then send
        /// ``SessionMachine/historyCommitFinished(at:)``.
        case commitHistory(records: [MinuteRecord], cursor: HistoryCursor, previous: HistoryCursor?, firstSequence: UInt32)
        /// Write this acknowledgement; feed the band's answer to ``SessionMachine/historyAcknowledged(_:at:)``.
        case acknowledgeHistory(HistoryAcknowledgeRequest)
        /// Stop routing live notifications and write what the live stream still holds (after the
        /// deadline's history sync), then send ``SessionMachine/liveClosed(at:)``.
        case closeLive
        case subscribeLive
        /// Handle link traffic until this instant (or a stop), then send ``SessionMachine/woke(at:)``.
        case waitForLink(until: ContinuousClock.Instant)
        /// Write the live minutes closed so far, then send ``SessionMachine/liveWritten(_:at:)``.
        case writeClosedMinutes
        /// Read the device's Current Time again: its clock is the only time its readings have,
        /// and it need not run at the reader's pace (see ``clockRereadInterval``).
        case rereadClock
        /// Close the open minute and write everything unwritten, then send ``SessionMachine/liveWritten(_:at:)``.
        case finishLive
        /// Append live minutes to the spool, then send ``SessionMachine/liveSpooled(_:pending:dropped:at:)``.
        case spoolLive(SpoolSource)
        /// Replay the spool into the store (or, when it is empty, try the store), then send
        /// ``SessionMachine/spoolReplayed(_:at:)`` or ``SessionMachine/spoolReplayFailed(_:at:)``.
        case replaySpool
        case finished
        case fail(SessionError)
    }

    /// Which live minutes go to the spool.
    public enum SpoolSource: Sendable, Equatable {
        /// Those of the write that just failed.
        case unwritten
        /// The minutes closed so far (as ``Action/writeClosedMinutes``).
        case closed
        /// Everything, the open minute closed (as ``Action/finishLive``).
        case all
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
    /// How often a device whose live readings carry no time of their own (InfiniTime: heart
    /// rate, a daily step total) has its Current Time read again while streaming. Its clock may
    /// run away from the reader's estimate (a simulator at 60×, a watch set by hand, a zone
    /// change): readings stamped by extrapolation alone would land in the wrong minute, or on
    /// the wrong side of the watch's midnight.
    public var clockRereadInterval: Duration? = .seconds(60)
    /// The History Data characteristic's value handle: its notifications belong to the history sync.
    public var historyDataHandle: UInt16?
    public private(set) var outcome = BandSession.Outcome()
    /// Delays between tries of an unreachable store (no jitter: one gateway's retries do not
    /// synchronise with anything).
    public var storeRetry = StoreRetrySchedule.standard.backoff
    /// Store retries in a row before `band sync` gives up (1 + 2 + 4 + … + 60 s: about 4 minutes);
    /// a stream keeps trying.
    public var maximumStoreRetries = StoreRetrySchedule.standard.retries

    /// Retries the store on `schedule` (``StoreRetrySchedule``).
    public mutating func retryStore(on schedule: StoreRetrySchedule) {
        storeRetry = schedule.backoff
        maximumStoreRetries = schedule.retries
    }

    /// Set while the store is unreachable: the failure that said so.
    private var storeDown: SessionError?
    private var nextStoreRetry: ContinuousClock.Instant?
    private var storeRetries = 0
    /// A history sync the store's outage put off, run once it is back.
    private var historyOwed: HistorySyncReason?
    /// The spool is being replayed before the connection's first history sync.
    private var replayingAtConnect = false
    /// Minutes waiting in the spool, as last reported by the session.
    private var spoolPending = 0

    /// Where a notification goes (``routeNotification(handle:_:)``).
    public enum Route {
        /// History Data taken by the sync in progress, with a progress report now and then.
        case history(ReaderEvent?)
        /// Anything else: the live stream's, once it exists.
        case live
    }

    /// The history sync in progress and why it runs (set from ``Action/syncHistory(_:)`` on).
    private var history: HistorySyncMachine?
    private var syncReason: HistorySyncReason?
    /// Live notifications are subscribed and routed to the stream.
    private var liveSubscribed = false
    /// The deadline's sync ended while live readings were routed: how, for after ``liveClosed(at:)``.
    private var endedBeforeClose: (minutes: Int?, error: SessionError?)?

    private var nextWrite: ContinuousClock.Instant?
    private var nextHistorySync: ContinuousClock.Instant?
    private var nextClockRead: ContinuousClock.Instant?
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

    /// When the stream ends: the goal's deadline, or the instant a finish was requested if earlier.
    private var deadline: ContinuousClock.Instant? {
        guard case .stream(let deadline) = goal else { return nil }
        guard let finishRequestedAt else { return deadline }
        return deadline.map { min($0, finishRequestedAt) } ?? finishRequestedAt
    }

    /// Set by ``finishRequested(at:)``.
    private var finishRequestedAt: ContinuousClock.Instant?

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

    /// The store writer is open; `spooled` entries wait in the spool from an earlier outage.
    public mutating func writerOpened(spooled: Int = 0) -> [Action] {
        if spooled > 0 {
            spoolPending = spooled
            replayingAtConnect = true
            return [.replaySpool]
        }
        return afterWriterOpen()
    }

    /// The store could not be opened (or the device's writer prepared) at connect; `spooled`
    /// entries wait in the spool from an earlier outage. A store a stream outlives is down from
    /// the start: the session goes on without it, as when the spool's replay at connect fails.
    public mutating func writerUnavailable(_ error: SessionError, spooled: Int, at now: ContinuousClock.Instant) -> [Action] {
        spoolPending = spooled
        replayingAtConnect = true
        return spoolReplayFailed(error, at: now)
    }

    private mutating func afterWriterOpen() -> [Action] {
        if isBand { return [beginSync(.atConnect)] }
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
        case .atConnect where liveSubscribed:
            // The sync owed since a store outage at connect: the stream is already running.
            if let interval = historySyncInterval { nextHistorySync = now.advanced(by: interval) }
            return waitOrEnd(at: now)
        case .atConnect: return afterInitialSync()
        case .atDeadline: return [.finished]
        case .whileStreaming:
            if let interval = historySyncInterval { nextHistorySync = now.advanced(by: interval) }
            return waitOrEnd(at: now)
        }
    }

    /// Live notifications are subscribed: the stream begins.
    public mutating func subscribed(at now: ContinuousClock.Instant) -> [Action] {
        liveSubscribed = true
        nextWrite = now.advanced(by: liveWriteInterval)
        if isBand, let interval = historySyncInterval { nextHistorySync = now.advanced(by: interval) }
        if rereadsClock, let interval = clockRereadInterval { nextClockRead = now.advanced(by: interval) }
        return [.report(.streaming)] + waitOrEnd(at: now)
    }

    /// The wait for the link returned (traffic handled or the instant reached).
    public mutating func woke(at now: ContinuousClock.Instant) -> [Action] {
        if let nextWrite, now >= nextWrite { return [storeClosedMinutes] }
        if storeDown != nil, let retry = nextStoreRetry, now >= retry { return [.replaySpool] }
        if let due = nextClockRead, now >= due { return [.rereadClock] }
        return syncIfDue(at: now)
    }

    /// The Current Time was read again (or the read failed softly): the next read is due one
    /// interval from now.
    public mutating func clockReread(at now: ContinuousClock.Instant) -> [Action] {
        if let interval = clockRereadInterval { nextClockRead = now.advanced(by: interval) }
        return syncIfDue(at: now)
    }

    /// Live readings without a time of their own are stamped from the device's clock, which the
    /// plan reads: the clock is read again while streaming. A BandKit band's snapshots carry it.
    private var rereadsClock: Bool { plan.setsClock && !plan.subscriptions.contains(.liveActivity) }

    /// `count` live minutes were written (possibly none).
    public mutating func liveWritten(_ count: Int, at now: ContinuousClock.Instant) -> [Action] {
        var actions: [Action] = []
        if count > 0 {
            outcome.liveMinutes += count
            actions.append(.report(.liveMinutesStored(count: count)))
        }
        return actions + afterLive(at: now)
    }

    // MARK: Events: the store unreachable

    /// A live write failed. A transient store failure spools the minutes and keeps the session
    /// going; anything else ends it.
    public mutating func liveWriteFailed(_ error: SessionError, at now: ContinuousClock.Instant) -> [Action] {
        guard storeMayComeBack(error) else { return [.fail(error)] }
        storeWentDown(error, at: now)
        return [.spoolLive(.unwritten)]
    }

    /// `count` live minutes went to the spool, which now holds `pending` minutes; `dropped`
    /// did not fit (the spool is full).
    public mutating func liveSpooled(_ count: Int, pending: Int, dropped: Int, at now: ContinuousClock.Instant) -> [Action] {
        outcome.spooledMinutes += count
        outcome.droppedMinutes += dropped
        spoolPending = pending
        let next = afterLive(at: now)   // first: it may owe a history sync, which the report says
        return [outageReport(at: now, dropped: dropped)] + next
    }

    /// Live minutes written after the last history sync went to the spool instead (the store
    /// failed during that sync): reported; what comes next is the sync's outcome.
    public mutating func lateMinutesSpooled(_ count: Int, pending: Int, dropped: Int, failure: SessionError,
                                            at now: ContinuousClock.Instant) -> [Action] {
        if storeDown == nil { storeWentDown(failure, at: now) }
        outcome.spooledMinutes += count
        outcome.droppedMinutes += dropped
        spoolPending = pending
        return [outageReport(at: now, dropped: dropped)]
    }

    /// The spool was replayed into the store: `count` minutes (possibly none). The store is back.
    public mutating func spoolReplayed(_ count: Int, at now: ContinuousClock.Instant) -> [Action] {
        let wasDown = storeDown != nil
        storeDown = nil
        nextStoreRetry = nil
        storeRetries = 0
        storeRetry.succeeded()
        spoolPending = 0
        outcome.storeUnavailable = nil
        outcome.replayedMinutes += count
        var actions: [Action] = []
        if count > 0 { outcome.liveMinutes += count }
        if wasDown || count > 0 { actions.append(.report(.storeAvailable(replayedMinutes: count))) }
        if replayingAtConnect {
            replayingAtConnect = false
            return actions + afterWriterOpen()
        }
        if let owed = historyOwed {
            historyOwed = nil
            return actions + [beginSync(owed)]
        }
        return actions + waitOrEnd(at: now)
    }

    /// The spool's replay failed: a transient store failure waits for the next retry; anything
    /// else ends the session.
    public mutating func spoolReplayFailed(_ error: SessionError, at now: ContinuousClock.Instant) -> [Action] {
        guard storeMayComeBack(error) else { return [.fail(error)] }
        storeWentDown(error, at: now)
        if let exhausted = giveUpIfExhausted() { return exhausted }
        if replayingAtConnect {
            // The store is down from the start: the session goes on without it.
            replayingAtConnect = false
            if isBand { historyOwed = .atConnect }
            return [outageReport(at: now)] + (isStreaming ? afterInitialSync() : waitOrEnd(at: now))
        }
        return [outageReport(at: now)] + waitOrEnd(at: now)
    }

    // MARK: Steps after live minutes

    private mutating func afterLive(at now: ContinuousClock.Instant) -> [Action] {
        if ending {
            ending = false
            if let streamError { return [.fail(streamError)] }
            // The band's last sync is tried even while the store is down: it may be back.
            if !outcome.stopped, isBand { return [beginSync(.atDeadline)] }
            return [.finished]
        }
        if syncAfterWrite {
            // Live minutes first, so the records synced now replace them.
            syncAfterWrite = false
            guard storeDown != nil else { return [beginSync(.whileStreaming)] }
            historyOwed = .whileStreaming
            if let interval = historySyncInterval { nextHistorySync = now.advanced(by: interval) }
        }
        nextWrite = now.advanced(by: liveWriteInterval)
        return syncIfDue(at: now)
    }

    /// The status line of an outage.
    private func outageReport(at now: ContinuousClock.Instant, dropped: Int = 0) -> Action {
        .report(.storeUnavailable(StoreOutage(reason: storeDown?.description ?? "", spooledMinutes: spoolPending, droppedMinutes: dropped,
                                              retryIn: nextStoreRetry.map { now.duration(to: $0) } ?? .zero,
                                              historyDeferred: historyOwed != nil)))
    }

    /// A stop was requested while streaming.
    public mutating func stopRequested() -> [Action] {
        outcome.stopped = true
        return endStream()
    }

    /// Asked, while waiting for the link, to end the stream as its deadline would
    /// (``StopRequest/requestFinish()``): the deadline becomes `now`, so the live minutes are
    /// finished and a band's history synced once more, exactly as when the deadline comes.
    public mutating func finishRequested(at now: ContinuousClock.Instant) -> [Action] {
        if finishRequestedAt == nil { finishRequestedAt = now }
        return waitOrEnd(at: now)
    }

    /// The link failed while streaming (or during a sync while streaming): everything received
    /// is still committed, then the session fails.
    public mutating func linkFailed(_ error: SessionError) -> [Action] {
        streamError = error
        return endStream()
    }

    // MARK: Events: the history sync

    /// The history subscriptions are in place and the store's cursor was read: the sync begins
    /// from it.
    public mutating func historyCursorRead(_ cursor: HistoryCursor?, at now: ContinuousClock.Instant) -> [Action] {
        history = HistorySyncMachine(cursor: cursor, mode: .driving)
        return historyActions(history!.start(), at: now)
    }

    public mutating func historyFetchAnswered(_ announced: HistoryFetchResponse, at now: ContinuousClock.Instant) -> [Action] {
        historyEvent(at: now) { $0.fetchAnswered(announced) }
    }

    public mutating func historyTransferCompleted(_ complete: HistoryTransferComplete, at now: ContinuousClock.Instant) -> [Action] {
        historyEvent(at: now) { $0.transferCompleted(complete) }
    }

    /// The commit asked for by ``Action/commitHistory(records:cursor:previous:firstSequence:)`` is durable.
    public mutating func historyCommitFinished(at now: ContinuousClock.Instant) -> [Action] {
        historyEvent(at: now) { $0.commitFinished() }
    }

    public mutating func historyAcknowledged(_ response: HistoryAcknowledgeResponse, at now: ContinuousClock.Instant) -> [Action] {
        historyEvent(at: now) { $0.acknowledged(response) }
    }

    /// A stop was requested while the sync waited for the band: what is committed stays committed.
    public mutating func historyStopped(at now: ContinuousClock.Instant) -> [Action] {
        historyEnded(minutes: nil, error: nil, at: now)
    }

    /// A step of the sync failed (link, band or store).
    public mutating func historyFailed(_ error: SessionError, at now: ContinuousClock.Instant) -> [Action] {
        historyEnded(minutes: nil, error: error, at: now)
    }

    /// The live stream asked for by ``Action/closeLive`` is closed and written.
    public mutating func liveClosed(at now: ContinuousClock.Instant) -> [Action] {
        liveSubscribed = false
        guard let (minutes, error) = endedBeforeClose else { return [] }
        endedBeforeClose = nil
        if let error { return historySyncFailed(error, reason: .atDeadline, at: now) }
        return historySynced(minutes, reason: .atDeadline, at: now)
    }

    /// The one routing path for what the device pushes (besides control point responses): History
    /// Data while a sync runs goes to it, everything else to the live stream.
    public mutating func routeNotification(handle: UInt16, _ value: UnsafeRawBufferPointer) -> Route {
        // The handle first: one integer comparison for every live reading (the hot path).
        guard handle == historyDataHandle, history != nil else { return .live }
        return .history(history!.dataReceived(value))
    }

    // MARK: Steps

    /// Feeds an event to the sync in progress (none: nothing to do) and translates what it decides.
    private mutating func historyEvent(at now: ContinuousClock.Instant,
                                       _ event: (inout HistorySyncMachine) -> [HistorySyncMachine.Action]) -> [Action] {
        guard history != nil else { return [] }
        let actions = event(&history!)
        return historyActions(actions, at: now)
    }

    private mutating func beginSync(_ reason: HistorySyncReason) -> Action {
        syncReason = reason
        return .syncHistory(reason)
    }

    /// The history machine's actions as this machine's: its reports reported, its link and store
    /// steps passed on, its end turned into the session's next step.
    private mutating func historyActions(_ actions: [HistorySyncMachine.Action], at now: ContinuousClock.Instant) -> [Action] {
        guard !actions.isEmpty else {
            return historyEnded(minutes: nil, error: .controlPointProtocol("the history sync stopped without finishing"), at: now)
        }
        var out: [Action] = []
        for action in actions {
            switch action {
            case .report(let event): out.append(.report(event))
            case .sendFetch(let request): out.append(.sendHistoryFetch(request))
            case .awaitTransfer: out.append(.awaitHistoryTransfer)
            case .commit(let records, let cursor, let previous, let first):
                out.append(.commitHistory(records: records, cursor: cursor, previous: previous, firstSequence: first))
            case .sendAcknowledge(let request): out.append(.acknowledgeHistory(request))
            case .finished(let minutes): return out + historyEnded(minutes: minutes, error: nil, at: now)
            case .fail(let error): return out + historyEnded(minutes: nil, error: error, at: now)
            }
        }
        return out
    }

    /// The sync is over: finished with `minutes`, stopped (both nil) or failed with `error`.
    private mutating func historyEnded(minutes: Int?, error: SessionError?, at now: ContinuousClock.Instant) -> [Action] {
        let reason = syncReason ?? .atConnect
        history = nil
        syncReason = nil
        if reason == .atDeadline, liveSubscribed {
            // Notifications that arrived during the last sync are still readings received: they
            // flowed into the stream and are written now (a second part of the minute in
            // progress, see `LiveMinuteParts`) instead of being dropped: every reading received is stored.
            endedBeforeClose = (minutes, error)
            return [.closeLive]
        }
        if let error { return historySyncFailed(error, reason: reason, at: now) }
        return historySynced(minutes, reason: reason, at: now)
    }

    /// How a failed history sync ends (from ``historyEnded(minutes:error:at:)``, or
    /// ``liveClosed(at:)`` at the deadline). On a transient store failure nothing was
    /// acknowledged — the commit failed before its acknowledgement — so the band keeps the
    /// records, and the sync is owed until the store is back; anything else ends the session
    /// (after the live minutes, while streaming).
    private mutating func historySyncFailed(_ error: SessionError, reason: HistorySyncReason, at now: ContinuousClock.Instant) -> [Action] {
        guard storeMayComeBack(error) else {
            return reason == .whileStreaming ? linkFailed(error) : [.fail(error)]
        }
        storeWentDown(error, at: now)
        switch reason {
        case .atDeadline:
            historyOwed = .atDeadline
            return [outageReport(at: now), .finished]
        case .atConnect:
            historyOwed = .atConnect
            if isStreaming { return [outageReport(at: now)] + (liveSubscribed ? waitOrEnd(at: now) : afterInitialSync()) }
            if let exhausted = giveUpIfExhausted() { return exhausted }
            return [outageReport(at: now)] + waitOrEnd(at: now)
        case .whileStreaming:
            historyOwed = .whileStreaming
            return [outageReport(at: now)] + waitOrEnd(at: now)
        }
    }

    private func afterInitialSync() -> [Action] {
        isStreaming ? [.subscribeLive] : [.finished]
    }

    /// After a wait and any write it made due: a history sync, if one is due.
    private mutating func syncIfDue(at now: ContinuousClock.Instant) -> [Action] {
        if let due = nextHistorySync, now >= due {
            syncAfterWrite = true
            return [storeClosedMinutes]
        }
        return waitOrEnd(at: now)
    }

    /// Closed live minutes go to the store, or to the spool while the store is down.
    private var storeClosedMinutes: Action { storeDown == nil ? .writeClosedMinutes : .spoolLive(.closed) }

    private mutating func storeWentDown(_ error: SessionError, at now: ContinuousClock.Instant) {
        storeDown = error
        outcome.storeUnavailable = error.description
        storeRetries += 1
        nextStoreRetry = now.advanced(by: storeRetry.nextDelay())
    }

    /// Whether the session goes on without the store after `error`, spooling and retrying: a
    /// transient failure; while streaming, a full disk too (freeing space fixes it, and a
    /// strap's or a watch's live minutes exist nowhere else).
    public func storeMayComeBack(_ error: SessionError) -> Bool {
        isStreaming ? error.isStoreFailureAStreamOutlives : error.isTransientStoreFailure
    }

    /// A sync (no stream to keep) stops trying after ``maximumStoreRetries``.
    private func giveUpIfExhausted() -> [Action]? {
        guard !isStreaming, storeRetries > maximumStoreRetries, let storeDown else { return nil }
        guard case .store(let failure) = storeDown else { return [.fail(storeDown)] }
        return [.fail(.storeGaveUp(failure, retries: storeRetries - 1))]
    }

    /// The top of the streaming loop: the deadline ends it, else wait for the earliest due time.
    private mutating func waitOrEnd(at now: ContinuousClock.Instant) -> [Action] {
        if let deadline, now >= deadline { return endStream() }
        let candidates = [nextWrite, deadline, nextHistorySync, nextClockRead, storeDown == nil ? nil : nextStoreRetry].compactMap { $0 }
        return [.waitForLink(until: candidates.min() ?? now)]
    }

    private mutating func endStream() -> [Action] {
        ending = true
        return [storeDown == nil ? .finishLive : .spoolLive(.all)]
    }
}
