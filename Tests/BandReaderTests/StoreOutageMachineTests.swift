import BandReader
import HealthStore
import Testing

/// The session's decisions while the store is unreachable, as scripted conversations: the
/// store's failures go in, what the gateway does comes out — spool, keep streaming, leave
/// history on the band, try the store again at doubling intervals, replay, sync what was owed.
@Suite struct StoreOutageMachineTests {
    static let t0 = SessionMachineTests.t0
    static func at(_ seconds: Int) -> ContinuousClock.Instant { SessionMachineTests.at(seconds) }

    /// PostgreSQL went away mid-transaction (class 08): transient.
    static let unreachable = SessionError.store(unreachableFailure)
    static let unreachableFailure = StoreFailure(.writeLive, HealthStoreError.database(
        DatabaseError(engine: .postgresql, sqlState: "08006", message: "server closed the connection unexpectedly", sql: "COMMIT")))
    static let shuttingDown = SessionError.store(StoreFailure(.commitHistory, HealthStoreError.database(
        DatabaseError(engine: .postgresql, sqlState: "57P01", message: "terminating connection due to administrator command", sql: "INSERT …"))))
    static let diskFull = SessionError.store(StoreFailure(.writeLive, HealthStoreError.database(
        DatabaseError(engine: .sqlite, code: 13, message: "database or disk is full", sql: "INSERT …"))))
    static let corrupt = SessionError.store(StoreFailure(.writeLive, HealthStoreError.database(
        DatabaseError(engine: .sqlite, code: 11, message: "database disk image is malformed", sql: "INSERT …"))))

    enum Event {
        case writerOpen(spooled: Int)
        case synced(Int, SessionMachine.HistorySyncReason, at: Int)
        /// A step of the sync in progress failed (the machine knows why the sync runs).
        case syncFailed(SessionError, at: Int)
        case liveClosed(at: Int)
        case subscribed(at: Int)
        case woke(at: Int)
        case written(Int, at: Int)
        case writeFailed(SessionError, at: Int)
        case spooled(Int, pending: Int, dropped: Int, at: Int)
        case replayed(Int, at: Int)
        case replayFailed(SessionError, at: Int)
        /// Live minutes the deadline's close could not write went to the spool (``SessionMachine/lateMinutesSpooled(_:pending:dropped:failure:at:)``).
        case lateSpooled(Int, pending: Int, dropped: Int, failure: SessionError, at: Int)
        case stop
        case linkLost(SessionError)
    }

    static func line(_ action: SessionMachine.Action) -> String {
        switch action {
        case .report(.storeUnavailable(let outage)):
            return "report store unavailable, \(outage.spooledMinutes) spooled, \(outage.droppedMinutes) dropped, retry in \(outage.retryIn.components.seconds)"
                + (outage.historyDeferred ? ", history deferred" : "")
        case .report(.storeAvailable(let replayed)): return "report store back, \(replayed) replayed"
        default: return SessionMachineTests.line(action)
        }
    }

    func converse(_ machine: inout SessionMachine, _ script: [(Event, [String])], sourceLocation: SourceLocation = #_sourceLocation) {
        for (index, (event, expected)) in script.enumerated() {
            let actions: [SessionMachine.Action]
            switch event {
            case .writerOpen(let spooled): actions = machine.writerOpened(spooled: spooled)
            case .synced(let minutes, let reason, let t): actions = machine.historySynced(minutes, reason: reason, at: Self.at(t))
            case .syncFailed(let error, let t): actions = machine.historyFailed(error, at: Self.at(t))
            case .liveClosed(let t): actions = machine.liveClosed(at: Self.at(t))
            case .subscribed(let t): actions = machine.subscribed(at: Self.at(t))
            case .woke(let t): actions = machine.woke(at: Self.at(t))
            case .written(let count, let t): actions = machine.liveWritten(count, at: Self.at(t))
            case .writeFailed(let error, let t): actions = machine.liveWriteFailed(error, at: Self.at(t))
            case .spooled(let count, let pending, let dropped, let t): actions = machine.liveSpooled(count, pending: pending, dropped: dropped, at: Self.at(t))
            case .replayed(let count, let t): actions = machine.spoolReplayed(count, at: Self.at(t))
            case .replayFailed(let error, let t): actions = machine.spoolReplayFailed(error, at: Self.at(t))
            case .lateSpooled(let count, let pending, let dropped, let failure, let t):
                actions = machine.lateMinutesSpooled(count, pending: pending, dropped: dropped, failure: failure, at: Self.at(t))
            case .stop: actions = machine.stopRequested()
            case .linkLost(let error): actions = machine.linkFailed(error)
            }
            #expect(actions.map(Self.line) == expected, "step \(index)", sourceLocation: sourceLocation)
        }
    }

    func connected(_ goal: BandSession.Goal) -> SessionMachine {
        var machine = SessionMachine(plan: SessionMachineTests.band, goal: goal)
        _ = machine.linkUp(mtu: 247)
        _ = machine.authenticated(true)
        _ = machine.clockSynchronized()
        _ = machine.deviceRead(BandDeviceInfo(), batteryPercent: 80)
        return machine
    }

    /// A stream's first live write fails (the server restarts): its minute is spooled, and the
    /// first retry is due at 6 s, before the next write.
    static let downAtTheFirstWrite = down(atTheFirstWrite: unreachable)

    static func down(atTheFirstWrite failure: SessionError) -> [(Event, [String])] { [
        (.writerOpen(spooled: 0), ["sync history atConnect"]),
        (.synced(0, .atConnect, at: 0), ["subscribe"]),
        (.subscribed(at: 0), ["report streaming", "wait until 5"]),
        (.woke(at: 5), ["write closed minutes"]),
        (.writeFailed(failure, at: 5), ["spool unwritten"]),
        (.spooled(1, pending: 1, dropped: 0, at: 5), ["report store unavailable, 1 spooled, 0 dropped, retry in 1", "wait until 6"]),
    ] }

    @Test func aStreamSpoolsWhileTheServerIsDownThenReplaysAndSyncsTheOwedHistory() {
        var machine = connected(.stream(until: Self.at(700)))
        converse(&machine, [
            (.writerOpen(spooled: 0), ["sync history atConnect"]),
            (.synced(10, .atConnect, at: 0), ["subscribe"]),
            (.subscribed(at: 0), ["report streaming", "wait until 5"]),
            (.woke(at: 5), ["write closed minutes"]),
            // The server restarts: the write's minutes go to the spool, the stream goes on.
            (.writeFailed(Self.unreachable, at: 5), ["spool unwritten"]),
            (.spooled(1, pending: 1, dropped: 0, at: 5), ["report store unavailable, 1 spooled, 0 dropped, retry in 1", "wait until 6"]),
            // The first retry comes before the next write: the store is still down.
            (.woke(at: 6), ["replay spool"]),
            (.replayFailed(Self.unreachable, at: 6), ["report store unavailable, 1 spooled, 0 dropped, retry in 2", "wait until 8"]),
            (.woke(at: 8), ["replay spool"]),
            (.replayFailed(Self.unreachable, at: 8), ["report store unavailable, 1 spooled, 0 dropped, retry in 4", "wait until 10"]),
            // Minutes due while it is down go straight to the spool, with no store round trip.
            (.woke(at: 10), ["spool closed"]),
            (.spooled(2, pending: 3, dropped: 0, at: 10), ["report store unavailable, 3 spooled, 0 dropped, retry in 2", "wait until 12"]),
            (.woke(at: 12), ["replay spool"]),
            // Back: the three minutes are written, the stream carries on.
            (.replayed(3, at: 12), ["report store back, 3 replayed", "wait until 15"]),
            (.woke(at: 15), ["write closed minutes"]),
            (.written(1, at: 15), ["report 1 live minutes", "wait until 20"]),
        ])
        #expect(machine.outcome.spooledMinutes == 3)
        #expect(machine.outcome.replayedMinutes == 3)
        #expect(machine.outcome.liveMinutes == 4)
        #expect(machine.outcome.storeUnavailable == nil)
    }

    @Test func historyTheStoreCouldNotTakeStaysOnTheBandAndIsSyncedWhenTheStoreIsBack() {
        var machine = connected(.stream(until: Self.at(700)))
        converse(&machine, [
            (.writerOpen(spooled: 0), ["sync history atConnect"]),
            // The commit failed: nothing was acknowledged. The stream begins anyway.
            (.syncFailed(Self.shuttingDown, at: 0), ["report store unavailable, 0 spooled, 0 dropped, retry in 1, history deferred", "subscribe"]),
            (.subscribed(at: 0), ["report streaming", "wait until 1"]),
            (.woke(at: 1), ["replay spool"]),
            (.replayed(0, at: 1), ["report store back, 0 replayed", "sync history atConnect"]),
            // The stream is already running: no second subscription (a new live stream would
            // have dropped the readings the first one held).
            (.synced(10, .atConnect, at: 2), ["wait until 5"]),
        ])
        #expect(machine.outcome.historyMinutes == 10)
    }

    @Test func aPeriodicSyncDueWhileTheStoreIsDownIsOwedNotAttempted() {
        var machine = connected(.stream(until: Self.at(2000)))
        converse(&machine, [
            (.writerOpen(spooled: 0), ["sync history atConnect"]),
            (.synced(0, .atConnect, at: 0), ["subscribe"]),
            (.subscribed(at: 0), ["report streaming", "wait until 5"]),
            (.woke(at: 599), ["write closed minutes"]),
            (.writeFailed(Self.unreachable, at: 599), ["spool unwritten"]),
            (.spooled(1, pending: 1, dropped: 0, at: 599), ["report store unavailable, 1 spooled, 0 dropped, retry in 1", "wait until 600"]),
            (.woke(at: 600), ["replay spool"]),   // the retry and the periodic sync are due: the retry first
            (.replayFailed(Self.unreachable, at: 600), ["report store unavailable, 1 spooled, 0 dropped, retry in 2", "wait until 600"]),
            // The sync is due: its write goes to the spool, and the sync is owed, not attempted.
            (.woke(at: 600), ["spool closed"]),
            (.spooled(0, pending: 1, dropped: 0, at: 600), ["report store unavailable, 1 spooled, 0 dropped, retry in 2, history deferred", "wait until 602"]),
            (.woke(at: 602), ["replay spool"]),
            (.replayed(1, at: 602), ["report store back, 1 replayed", "sync history whileStreaming"]),
            (.synced(5, .whileStreaming, at: 603), ["wait until 605"]),
        ])
    }

    @Test func aSyncWaitsOnTheLinkRetriesWithDoublingDelaysAndGivesUpAfterItsLimit() {
        var machine = connected(.sync)
        machine.maximumStoreRetries = 3
        converse(&machine, [
            (.writerOpen(spooled: 0), ["sync history atConnect"]),
            (.syncFailed(Self.unreachable, at: 0), ["report store unavailable, 0 spooled, 0 dropped, retry in 1, history deferred", "wait until 1"]),
            (.woke(at: 1), ["replay spool"]),
            (.replayFailed(Self.unreachable, at: 1), ["report store unavailable, 0 spooled, 0 dropped, retry in 2, history deferred", "wait until 3"]),
            (.woke(at: 2), ["wait until 3"]),   // link traffic before the instant
            (.woke(at: 3), ["replay spool"]),
            (.replayFailed(Self.unreachable, at: 3), ["report store unavailable, 0 spooled, 0 dropped, retry in 4, history deferred", "wait until 7"]),
            (.woke(at: 7), ["replay spool"]),
            (.replayFailed(Self.unreachable, at: 7), ["fail: \(SessionError.storeGaveUp(Self.unreachableFailure, retries: 3))"]),
        ])
    }

    @Test func aScheduleFromTheEnvironmentSetsTheDelaysAndTheRetriesBeforeGivingUp() throws {
        var machine = connected(.sync)
        machine.retryStore(on: try StoreRetrySchedule.parse("2000,3000,2").get())
        converse(&machine, [
            (.writerOpen(spooled: 0), ["sync history atConnect"]),
            (.syncFailed(Self.unreachable, at: 0), ["report store unavailable, 0 spooled, 0 dropped, retry in 2, history deferred", "wait until 2"]),
            (.woke(at: 2), ["replay spool"]),
            (.replayFailed(Self.unreachable, at: 2), ["report store unavailable, 0 spooled, 0 dropped, retry in 3, history deferred", "wait until 5"]),
            (.woke(at: 5), ["replay spool"]),
            (.replayFailed(Self.unreachable, at: 5), ["fail: \(SessionError.storeGaveUp(Self.unreachableFailure, retries: 2))"]),
        ])
        #expect(StoreRetrySchedule.parse("1000,60000,9") == .success(.standard))
        for bad in ["", "1,2", "1,2,3,4", "a,2,3", "0,10,1", "10,5,1", "1,600001,1", "1,2,-1", "1,2,1001", " 1,2,3"] {
            #expect(throws: StoreRetrySchedule.ScheduleProblem.self, "\(bad.debugDescription)") { try StoreRetrySchedule.parse(bad).get() }
        }
        #expect(!SessionError.storeGaveUp(Self.unreachableFailure, retries: 2).isTransient)
    }

    @Test func aSyncWhoseStoreComesBackSyncsAndFinishes() {
        var machine = connected(.sync)
        converse(&machine, [
            (.writerOpen(spooled: 0), ["sync history atConnect"]),
            (.syncFailed(Self.unreachable, at: 0), ["report store unavailable, 0 spooled, 0 dropped, retry in 1, history deferred", "wait until 1"]),
            (.woke(at: 1), ["replay spool"]),
            (.replayed(0, at: 1), ["report store back, 0 replayed", "sync history atConnect"]),
            (.synced(1440, .atConnect, at: 2), ["finished"]),
        ])
        #expect(machine.outcome.historyMinutes == 1440)
    }

    @Test func whatAnEarlierOutageSpooledIsReplayedBeforeTheFirstSync() {
        var machine = connected(.stream(until: Self.at(700)))
        converse(&machine, [
            (.writerOpen(spooled: 42), ["replay spool"]),
            (.replayed(42, at: 0), ["report store back, 42 replayed", "sync history atConnect"]),
        ])
        var down = connected(.stream(until: Self.at(700)))
        converse(&down, [
            (.writerOpen(spooled: 42), ["replay spool"]),
            (.replayFailed(Self.unreachable, at: 0), ["report store unavailable, 42 spooled, 0 dropped, retry in 1, history deferred", "subscribe"]),
        ])
    }

    @Test func aFullSpoolIsReportedWithWhatItCouldNotKeep() {
        var machine = connected(.stream(until: Self.at(700)))
        converse(&machine, [
            (.writerOpen(spooled: 0), ["sync history atConnect"]),
            (.synced(0, .atConnect, at: 0), ["subscribe"]),
            (.subscribed(at: 0), ["report streaming", "wait until 5"]),
            (.woke(at: 5), ["write closed minutes"]),
            (.writeFailed(Self.unreachable, at: 5), ["spool unwritten"]),
            (.spooled(1, pending: 900, dropped: 2, at: 5), ["report store unavailable, 900 spooled, 2 dropped, retry in 1", "wait until 6"]),
        ])
        #expect(machine.outcome.droppedMinutes == 2)
    }

    @Test func aStoreThatCannotRecoverStillEndsTheSession() {
        var machine = connected(.stream(until: Self.at(700)))
        converse(&machine, [
            (.writerOpen(spooled: 0), ["sync history atConnect"]),
            (.synced(0, .atConnect, at: 0), ["subscribe"]),
            (.subscribed(at: 0), ["report streaming", "wait until 5"]),
            (.woke(at: 5), ["write closed minutes"]),
            (.writeFailed(Self.corrupt, at: 5), ["fail: \(Self.corrupt)"]),
        ])
        var sync = connected(.sync)
        converse(&sync, [
            (.writerOpen(spooled: 0), ["sync history atConnect"]),
            (.syncFailed(Self.diskFull, at: 0), ["fail: \(Self.diskFull)"]),
        ])
    }

    /// A strap or a watch has no history: its live minutes exist nowhere but in the stream, so
    /// a full disk under the store (freeing space fixes it) is outlived like an unreachable
    /// store — spooled, retried, replayed. A `band sync` still ends at once: the band keeps its
    /// records, and retrying for minutes would not free the disk.
    @Test func aFullDiskSpoolsAStreamsMinutesAndRetriesButEndsASync() {
        var machine = connected(.stream(until: Self.at(700)))
        converse(&machine, Self.down(atTheFirstWrite: Self.diskFull) + [
            (.woke(at: 6), ["replay spool"]),
            (.replayFailed(Self.diskFull, at: 6), ["report store unavailable, 1 spooled, 0 dropped, retry in 2", "wait until 8"]),
        ])
        #expect(machine.outcome.storeUnavailable?.contains("disk is full") == true)
        var sync = connected(.sync)
        converse(&sync, [
            (.writerOpen(spooled: 0), ["sync history atConnect"]),
            (.syncFailed(Self.diskFull, at: 0), ["fail: \(Self.diskFull)"]),
        ])
    }

    @Test func theDeadlineWithTheStoreDownEndsTheRunSayingSo() {
        var machine = connected(.stream(until: Self.at(8)))
        converse(&machine, Self.downAtTheFirstWrite + [
            (.woke(at: 6), ["replay spool"]),
            (.replayFailed(Self.unreachable, at: 6), ["report store unavailable, 1 spooled, 0 dropped, retry in 2", "wait until 8"]),
            (.woke(at: 8), ["replay spool"]),
            // The deadline: what is left goes to the spool; the band's last sync is still tried.
            (.replayFailed(Self.unreachable, at: 8), ["report store unavailable, 1 spooled, 0 dropped, retry in 4", "spool all"]),
            (.spooled(1, pending: 2, dropped: 0, at: 8), ["report store unavailable, 2 spooled, 0 dropped, retry in 4", "sync history atDeadline"]),
            // The sync failed on the store: the live stream is closed first (nothing left in it),
            // then the run ends with the history owed.
            (.syncFailed(Self.unreachable, at: 8), ["close live"]),
            (.liveClosed(at: 8), ["report store unavailable, 2 spooled, 0 dropped, retry in 8, history deferred", "finished"]),
        ])
        #expect(machine.outcome.storeUnavailable == Self.unreachable.description)
        #expect(machine.outcome.spooledMinutes == 2)
    }

    /// Streams to the deadline at 5 s, writes the last live minute, and runs the deadline's history
    /// sync of nothing up to its commit (the history steps scripted as in ``SessionMachineTests``).
    func streamedToTheDeadlineSync(commitFails: Bool) -> SessionMachine {
        var machine = connected(.stream(until: Self.at(5)))
        SessionMachineTests().converse(&machine, [(.writerOpen, ["sync history atConnect"])] + SessionMachineTests.streamToTheDeadlineSync + [
            (.fetch(SessionMachineTests.announced(0), at: 6), ["report started 0+0", "await transfer"]),
            (.complete(SessionMachineTests.complete([]), at: 6), ["commit 0 → 0"]),
        ])
        if commitFails {
            converse(&machine, [(.syncFailed(Self.unreachable, at: 6), ["close live"])])
        } else {
            SessionMachineTests().converse(&machine, [(.committed(at: 6), ["report committed 0 at 0", "report complete 0", "close live"])])
        }
        return machine
    }

    /// The store went away between the deadline's history sync and its final write (`.closeLive`:
    /// the readings that arrived during that sync): those minutes go to the spool, the outage is
    /// reported, and the run ends with the store named as unreachable.
    @Test func theDeadlinesFinalWriteFailingOnTheStoreSpoolsTheLiveMinutes() {
        var machine = streamedToTheDeadlineSync(commitFails: false)
        converse(&machine, [
            (.lateSpooled(2, pending: 2, dropped: 0, failure: Self.unreachable, at: 6), ["report store unavailable, 2 spooled, 0 dropped, retry in 1"]),
            (.liveClosed(at: 6), ["finished"]),
        ])
        #expect(machine.outcome.storeUnavailable == Self.unreachable.description)
        #expect(machine.outcome.spooledMinutes == 2)
        #expect(machine.outcome.liveMinutes == 1)
        #expect(!machine.outcome.stopped)
    }

    /// The deadline's commit and the close after it both failed: the minutes are spooled, and the
    /// history stays on the band, owed (nothing was acknowledged).
    @Test func theDeadlinesCommitAndFinalWriteBothFailingSpoolAndOweTheHistory() {
        var machine = streamedToTheDeadlineSync(commitFails: true)
        converse(&machine, [
            (.lateSpooled(1, pending: 3, dropped: 1, failure: Self.unreachable, at: 6), ["report store unavailable, 3 spooled, 1 dropped, retry in 1"]),
            (.liveClosed(at: 6), ["report store unavailable, 3 spooled, 0 dropped, retry in 2, history deferred", "finished"]),
        ])
        #expect(machine.outcome.storeUnavailable == Self.unreachable.description)
        #expect(machine.outcome.spooledMinutes == 1)
        #expect(machine.outcome.droppedMinutes == 1)
    }

    /// The deadline's `finishLive` write failed: its minutes are spooled, then the band's last sync
    /// is still tried (the store may be back).
    @Test func theDeadlinesFinishWriteFailingSpoolsThenStillSyncs() {
        var machine = connected(.stream(until: Self.at(5)))
        converse(&machine, [
            (.writerOpen(spooled: 0), ["sync history atConnect"]),
            (.synced(0, .atConnect, at: 0), ["subscribe"]),
            (.subscribed(at: 0), ["report streaming", "wait until 5"]),
            (.woke(at: 5), ["write closed minutes"]),
            (.written(0, at: 5), ["finish live"]),
            (.writeFailed(Self.unreachable, at: 5), ["spool unwritten"]),
            (.spooled(1, pending: 1, dropped: 0, at: 5), ["report store unavailable, 1 spooled, 0 dropped, retry in 1", "sync history atDeadline"]),
        ])
    }

    /// A stop while the store is down: everything the stream holds goes to the spool (no store
    /// round trip), and the session finishes, stopped, without the deadline's sync.
    @Test func aStopWhileTheStoreIsDownSpoolsEverythingAndFinishes() {
        var machine = connected(.stream(until: nil))
        converse(&machine, Self.downAtTheFirstWrite + [
            (.stop, ["spool all"]),
            (.spooled(1, pending: 2, dropped: 0, at: 5), ["report store unavailable, 2 spooled, 0 dropped, retry in 1", "finished"]),
        ])
        #expect(machine.outcome.stopped)
        #expect(machine.outcome.spooledMinutes == 2)
    }

    /// The link lost while the store is down: what was received is spooled, then the session fails
    /// with the link's error (the service reconnects).
    @Test func aLostLinkWhileTheStoreIsDownSpoolsEverythingThenFails() {
        let lost = SessionError.controlPointTimeout("the test")
        var machine = connected(.stream(until: nil))
        converse(&machine, Self.downAtTheFirstWrite + [
            (.linkLost(lost), ["spool all"]),
            (.spooled(0, pending: 1, dropped: 0, at: 5), ["report store unavailable, 1 spooled, 0 dropped, retry in 1", "fail: \(lost)"]),
        ])
        #expect(!machine.outcome.stopped)
    }

    @Test func storeRetriesDoubleFromOneSecondToAMinuteAndStay() {
        let backoff = SessionMachine(plan: SessionMachineTests.band, goal: .sync).storeRetry
        #expect((0..<9).map { backoff.ceilingDelay(forAttempt: $0).components.seconds } == [1, 2, 4, 8, 16, 32, 60, 60, 60])
        #expect(backoff.jitter == 0)
    }
}
