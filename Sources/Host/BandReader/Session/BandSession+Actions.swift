import BandGATT
import BandProtocol
import HealthStore

/// One method per ``SessionMachine/Action``: each performs its action on the link, the store or
/// the live stream and returns what the machine decides next.
extension BandSession {
    typealias Action = SessionMachine.Action

    /// Performs `action` (anything but `.finished` and `.fail`, which end ``run(_:)``).
    func perform(_ action: Action) throws(SessionError) -> [Action] {
        // The sync is over once the session goes on to anything else: its turn is the next device's.
        if holdsHistoryTurn, !action.belongsToHistorySync { releaseHistoryTurn() }
        switch action {
        case .report(let event):
            report(event)
            return []
        case .authenticate:
            return try authenticate()
        case .synchronizeClock:
            state.clockObservation = try synchronizeClock()
            return machine.clockSynchronized()
        case .readDeviceInformation:
            let (device, percent) = try connection.readDeviceInformation(report: report)
            state.battery = percent
            return machine.deviceRead(device, batteryPercent: percent)
        case .openWriter(let device):
            return try openWriter(for: device)
        case .syncHistory, .sendHistoryFetch, .awaitHistoryTransfer, .commitHistory, .acknowledgeHistory:
            // Any failure of a history step goes to the machine, which decides what it ends
            // (a commit the store could not take: nothing acknowledged, the sync owed).
            do {
                // The store may have been unreachable when the writer was first wanted.
                var writer = state.writer
                if case .syncHistory = action {
                    guard try awaitHistoryTurn() else { return machine.historyStopped(at: clock.now) }
                    writer = try openedWriter()
                }
                return try performHistoryStep(action, writer: writer)
            } catch { return machine.historyFailed(error, at: clock.now) }
        case .closeLive:
            return try closeLive()
        case .subscribeLive:
            return try subscribeLive()
        case .waitForLink(let wake):
            return waitForLink(until: wake)
        case .writeClosedMinutes:
            return try writeOrReport(live?.takeClosedMinutes() ?? [])
        case .rereadClock:
            var next: [Action] = []
            do { try rereadClock() } catch { next = machine.linkFailed(error) }
            return next.isEmpty ? machine.clockReread(at: clock.now) : next
        case .finishLive:
            // Everything received so far is committed, however the stream ended.
            return try writeOrReport(live?.finish() ?? [])
        case .spoolLive(let source):
            return try spoolLive(source)
        case .replaySpool:
            return try replaySpool()
        case .finished, .fail:
            return [action]
        }
    }

    /// Waits for a turn to sync history (``historyTurns``), handling the link meanwhile: live
    /// readings keep arriving while other devices sync. False when a stop came first.
    private func awaitHistoryTurn() throws(SessionError) -> Bool {
        guard let turns = historyTurns else { return true }
        holdsHistoryTurn = true  // held or queued: given back either way
        while !turns.request(address) {
            guard try connection.pump(until: clock.now.advanced(by: HistorySyncTurns.recheckInterval), during: .history) else { return false }
        }
        return true
    }

    /// Gives back the history turn, or the place in its queue.
    func releaseHistoryTurn() {
        holdsHistoryTurn = false
        historyTurns?.release(address)
    }

    private func authenticate() throws(SessionError) -> [Action] {
        guard let pairing else { throw .notPaired(address: address) }
        guard pairing.key.count == BandKey.capacity else {
            throw .controlPointProtocol("the stored key for \(address) has \(pairing.key.count) bytes, not \(BandKey.capacity); pair again")
        }
        let completed = try BandAuthentication.authenticate(connection, readerID: pairing.readerID, key: BandKey(pairing.key))
        return machine.authenticated(completed)
    }

    /// The device's writer, and what an earlier outage left in the spool: replayed before
    /// anything else is written. The journal and the spool are local files, read first: a store
    /// that cannot be opened yet leaves the session going on them (``SessionMachine/writerUnavailable(_:spooled:at:)``).
    private func openWriter(for device: BandDeviceInfo) throws(SessionError) -> [Action] {
        state.device = device
        var waiting = 0
        try drainJournal()
        if let spool {
            do {
                let contents = try spool.load()
                if !contents.isClean { report(.anomaly(Self.damageReport(contents, path: spool.path))) }
                waiting = contents.entries.count
                state.spooledMinutes = contents.minuteCount
            } catch { throw .store(StoreFailure(.spool, error)) }
        }
        do { _ = try openedWriter() } catch {
            guard spool != nil else { throw error }
            return machine.writerUnavailable(error, spooled: waiting, at: clock.now)
        }
        return machine.writerOpened(spooled: waiting)
    }

    /// The session's store writer, opened now if the store could not be opened before.
    func openedWriter() throws(SessionError) -> SampleWriter {
        if let writer = state.writer { return writer }
        guard let device = state.device else {
            throw .store(StoreFailure(.prepareWriter, HealthStoreError.misuse("no store writer before Device Information was read")))
        }
        let writer = try store.writer(for: device, reusing: reusableWriter)
        state.writer = writer
        reusableWriter = writer
        return writer
    }

    /// Live notifications are no longer routed; what the stream still holds is written.
    private func closeLive() throws(SessionError) -> [Action] {
        let stream = live
        live = nil
        var next: [Action] = []
        do { try write(stream?.finish() ?? [], from: stream) } catch {
            // The store went away during the last sync: these go to the spool too.
            guard machine.storeMayComeBack(error), spool != nil else { throw error }
            let (kept, dropped) = try appendToSpool(state.unwritten)
            state.unwritten = []
            next = machine.lateMinutesSpooled(kept, pending: state.spooledMinutes, dropped: dropped, failure: error, at: clock.now)
        }
        return next + machine.liveClosed(at: clock.now)
    }

    /// Subscribes to the plan's live characteristics, the running step total committed last in
    /// place first, and reads a step count once where the device allows it.
    private func subscribeLive() throws(SessionError) -> [Action] {
        let subscriptions = machine.plan.subscriptions
        var storedSteps: StepCountState?
        if subscriptions.contains(.stepCount) {
            do { storedSteps = try state.writer?.storedStepCount() } catch { throw .store(StoreFailure(.readStepCount, error)) }
        }
        let stream = try openLiveStream(subscriptions, battery: state.battery, storedSteps: storedSteps, clock: state.clockObservation)
        if subscriptions.contains(.stepCount), let count = connection.profile.motionStepCount, count.properties.contains(.read) {
            // Read once: what grew while the reader was away is known at once, not at the wearer's next step.
            let bytes = try connection.read(count, during: .subscribe)
            bytes.withUnsafeBytes { _ = stream.handle(count.valueHandle, $0) }
        }
        return machine.subscribed(at: clock.now)
    }

    /// Handles the link's traffic until `wake`, a stop or a failure; a finish request ends the wait at once.
    private func waitForLink(until wake: ContinuousClock.Instant) -> [Action] {
        if connection.stop.isFinishRequested { return machine.finishRequested(at: clock.now) }
        do {
            let handled = try connection.pump(until: wake, during: .streaming)
            return handled ? machine.woke(at: clock.now) : machine.stopRequested()
        } catch {
            return machine.linkFailed(error)
        }
    }

    private func spoolLive(_ source: SessionMachine.SpoolSource) throws(SessionError) -> [Action] {
        let entries: [SpoolEntry]
        switch source {
        case .unwritten: entries = state.unwritten
        case .closed: entries = liveEntries(live?.takeClosedMinutes() ?? [])
        case .all: entries = liveEntries(live?.finish() ?? [])
        }
        state.unwritten = []
        let (kept, dropped) = try appendToSpool(entries)
        return machine.liveSpooled(kept, pending: state.spooledMinutes, dropped: dropped, at: clock.now)
    }

    private func replaySpool() throws(SessionError) -> [Action] {
        do {
            let replayed = try replay(into: try openedWriter())
            state.spooledMinutes = 0
            return machine.spoolReplayed(replayed, at: clock.now)
        } catch {
            return machine.spoolReplayFailed(error, at: clock.now)
        }
    }
}

extension SessionMachine.Action {
    /// A step of a history sync, or a report it makes.
    var belongsToHistorySync: Bool {
        switch self {
        case .syncHistory, .sendHistoryFetch, .awaitHistoryTransfer, .commitHistory, .acknowledgeHistory, .report: true
        default: false
        }
    }
}
