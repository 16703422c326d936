import BandProtocol
import BandReader
import BandWire
import Testing

/// The order and timing of a connection's work as scripted conversations: events in, the
/// actions BandSession would perform out, with instants written in, never waited for.
@Suite struct SessionMachineTests {
    static let t0 = ContinuousClock.now
    static func at(_ seconds: Int) -> ContinuousClock.Instant { t0.advanced(by: .seconds(seconds)) }

    enum Event {
        case authenticated(Bool)
        case clockSet
        case device
        case writerOpen
        case synced(Int?, SessionMachine.HistorySyncReason, at: Int)
        case subscribed(at: Int)
        case woke(at: Int)
        case written(Int, at: Int)
        case stop
        case finish(at: Int)
        case linkLost
        // The history sync, driven inside the session machine.
        case cursor(HistoryCursor?, at: Int)
        case fetch(HistoryFetchResponse, at: Int)
        /// A notification on `handle`, through the one route.
        case notified(UInt16, [UInt8])
        case complete(HistoryTransferComplete, at: Int)
        case committed(at: Int)
        case ack(HistoryAcknowledgeResponse, at: Int)
        case historyFailed(at: Int)
        case historyStopped(at: Int)
        case liveClosed(at: Int)
        case clockReread(at: Int)
    }

    static func line(_ action: SessionMachine.Action) -> String {
        switch action {
        case .report(let event):
            switch event {
            case .connected(_, let kind): return "report connected \(kind.rawValue)"
            case .authenticated: return "report authenticated"
            case .device: return "report device"
            case .streaming: return "report streaming"
            case .liveMinutesStored(let count): return "report \(count) live minutes"
            case .historyTransferStarted(let first, let count, _): return "report started \(first)+\(count)"
            case .historyProgress(let received, let total): return "report progress \(received)/\(total)"
            case .historyCommitted(let minutes, let cursor, let acknowledged):
                return "report committed \(minutes) at \(cursor.nextSequence)" + (acknowledged ? " acknowledged" : "")
            case .historyComplete(let minutes): return "report complete \(minutes)"
            case .historyDiscarded: return "report discarded"
            default: return "report \(event)"
            }
        case .authenticate: return "authenticate"
        case .synchronizeClock: return "set clock"
        case .readDeviceInformation: return "read device"
        case .openWriter: return "open writer"
        case .syncHistory(let reason): return "sync history \(reason)"
        case .sendHistoryFetch(let request): return "fetch \(request.cursor)"
        case .awaitHistoryTransfer: return "await transfer"
        case .commitHistory(let records, let cursor, _, _): return "commit \(records.count) → \(cursor.nextSequence)"
        case .acknowledgeHistory(let ack): return "ack \(ack.endSequence)"
        case .closeLive: return "close live"
        case .subscribeLive: return "subscribe"
        case .waitForLink(let until): return "wait until \(t0.duration(to: until).components.seconds)"
        case .writeClosedMinutes: return "write closed minutes"
        case .rereadClock: return "read clock"
        case .finishLive: return "finish live"
        case .spoolLive(let source): return "spool \(source)"
        case .replaySpool: return "replay spool"
        case .finished: return "finished"
        case .fail(let error): return "fail: \(error)"
        }
    }

    func converse(_ machine: inout SessionMachine, _ script: [(Event, [String])], sourceLocation: SourceLocation = #_sourceLocation) {
        for (index, (event, expected)) in script.enumerated() {
            let actions: [SessionMachine.Action]
            switch event {
            case .authenticated(let ok): actions = machine.authenticated(ok)
            case .clockSet: actions = machine.clockSynchronized()
            case .device: actions = machine.deviceRead(BandDeviceInfo(), batteryPercent: 80)
            case .writerOpen: actions = machine.writerOpened()
            case .synced(let minutes, let reason, let t): actions = machine.historySynced(minutes, reason: reason, at: Self.at(t))
            case .subscribed(let t): actions = machine.subscribed(at: Self.at(t))
            case .woke(let t): actions = machine.woke(at: Self.at(t))
            case .written(let count, let t): actions = machine.liveWritten(count, at: Self.at(t))
            case .stop: actions = machine.stopRequested()
            case .finish(let t): actions = machine.finishRequested(at: Self.at(t))
            case .linkLost: actions = machine.linkFailed(.controlPointTimeout("the test"))
            case .cursor(let cursor, let t): actions = machine.historyCursorRead(cursor, at: Self.at(t))
            case .fetch(let response, let t): actions = machine.historyFetchAnswered(response, at: Self.at(t))
            case .notified(let handle, let bytes):
                switch bytes.withUnsafeBytes({ machine.routeNotification(handle: handle, $0) }) {
                case .history(let progress): actions = progress.map { [.report($0)] } ?? []; #expect(handle == Self.historyData, "step \(index): routed to history", sourceLocation: sourceLocation)
                case .live: actions = [.report(.anomaly("routed live"))]
                }
            case .complete(let complete, let t): actions = machine.historyTransferCompleted(complete, at: Self.at(t))
            case .committed(let t): actions = machine.historyCommitFinished(at: Self.at(t))
            case .ack(let response, let t): actions = machine.historyAcknowledged(response, at: Self.at(t))
            case .historyFailed(let t): actions = machine.historyFailed(.controlPointTimeout("the history transfer"), at: Self.at(t))
            case .historyStopped(let t): actions = machine.historyStopped(at: Self.at(t))
            case .liveClosed(let t): actions = machine.liveClosed(at: Self.at(t))
            case .clockReread(let t): actions = machine.clockReread(at: Self.at(t))
            }
            #expect(actions.map(Self.line) == expected, "step \(index)", sourceLocation: sourceLocation)
        }
    }

    static let band = SessionPlan(kind: .bandkit, authenticates: true, syncsHistory: true, setsClock: true,
                                  subscriptions: [.liveActivity, .heartRate, .rsc, .battery])
    static let strap = SessionPlan(kind: .heartRateStrap, authenticates: false, syncsHistory: false, setsClock: false,
                                   subscriptions: [.heartRate, .battery])
    static let watch = SessionPlan(kind: .infinitime, authenticates: false, syncsHistory: false, setsClock: true,
                                   subscriptions: [.heartRate, .stepCount, .battery])

    /// A device that neither authenticates nor keeps history, streaming up to its first write.
    static let streamWithoutAuthentication: [(Event, [String])] = [
        (.clockSet, ["read device"]),
        (.device, ["report device", "open writer"]),
        (.writerOpen, ["subscribe"]),
        (.subscribed(at: 0), ["report streaming", "wait until 5"]),
        (.woke(at: 5), ["write closed minutes"]),
    ]

    static let connectAndSync: [(Event, [String])] = [
        (.authenticated(true), ["report authenticated", "set clock"]),
        (.clockSet, ["read device"]),
        (.device, ["report device", "open writer"]),
        (.writerOpen, ["sync history atConnect"]),
    ]

    @Test func bandSyncAuthenticatesSetsTheClockReadsTheDeviceAndSyncs() {
        var machine = SessionMachine(plan: Self.band, goal: .sync)
        #expect(machine.linkUp(mtu: 247).map(Self.line) == ["report connected bandkit", "authenticate"])
        converse(&machine, Self.connectAndSync + [(.synced(1440, .atConnect, at: 1), ["finished"])])
        #expect(machine.outcome.historyMinutes == 1440)
        #expect(!machine.outcome.stopped)
    }

    @Test func aStrapCannotSyncButStreamsWithoutAuthenticationOrHistory() {
        let sync = SessionMachine(plan: Self.strap, goal: .sync)
        #expect(sync.linkUp(mtu: 23).map(Self.line) == ["report connected hr-strap",
                                                        "fail: found heart-rate strap (standard Heart Rate service), which keeps no history to sync; use band stream"])
        var stream = SessionMachine(plan: Self.strap, goal: .stream(until: Self.at(12)))
        #expect(stream.linkUp(mtu: 23).map(Self.line) == ["report connected hr-strap", "set clock"])
        converse(&stream, Self.streamWithoutAuthentication + [
            (.written(1, at: 5), ["report 1 live minutes", "wait until 10"]),
            (.woke(at: 10), ["write closed minutes"]),
            (.written(0, at: 10), ["wait until 12"]),
            (.woke(at: 12), ["finish live"]),
            (.written(1, at: 12), ["report 1 live minutes", "finished"]),   // no history to sync at the deadline
        ])
        #expect(stream.outcome.liveMinutes == 2)
    }

    @Test func streamWritesEveryFiveSecondsSyncsEveryTenMinutesAndOnceMoreAtTheDeadline() {
        var machine = SessionMachine(plan: Self.band, goal: .stream(until: Self.at(700)))
        converse(&machine, Self.connectAndSync + [
            (.synced(10, .atConnect, at: 0), ["subscribe"]),
            (.subscribed(at: 0), ["report streaming", "wait until 5"]),
            (.woke(at: 3), ["wait until 5"]),                              // traffic before anything is due
            (.woke(at: 5), ["write closed minutes"]),
            (.written(1, at: 5), ["report 1 live minutes", "wait until 10"]),
            (.woke(at: 600), ["write closed minutes"]),                    // both due: the write, then the sync's write
            (.written(2, at: 600), ["report 2 live minutes", "write closed minutes"]),
            (.written(0, at: 600), ["sync history whileStreaming"]),
            (.synced(3, .whileStreaming, at: 601), ["wait until 605"]),
            (.woke(at: 700), ["write closed minutes"]),
            (.written(0, at: 700), ["finish live"]),
            (.written(1, at: 700), ["report 1 live minutes", "sync history atDeadline"]),
            (.synced(4, .atDeadline, at: 701), ["finished"]),
        ])
        #expect(machine.outcome.historyMinutes == 17)
        #expect(machine.outcome.liveMinutes == 4)
    }

    @Test func aStopCommitsEverythingAndSkipsTheFinalSync() {
        var machine = SessionMachine(plan: Self.band, goal: .stream(until: nil))
        converse(&machine, Self.connectAndSync + [
            (.synced(0, .atConnect, at: 0), ["subscribe"]),
            (.subscribed(at: 0), ["report streaming", "wait until 5"]),
            (.stop, ["finish live"]),
            (.written(1, at: 2), ["report 1 live minutes", "finished"]),
        ])
        #expect(machine.outcome.stopped)
    }

    @Test func aFinishRequestEndsTheStreamAsItsDeadlineWouldWithTheFinalSync() {
        var machine = SessionMachine(plan: Self.band, goal: .stream(until: Self.at(700)))
        converse(&machine, Self.connectAndSync + [
            (.synced(0, .atConnect, at: 0), ["subscribe"]),
            (.subscribed(at: 0), ["report streaming", "wait until 5"]),
            (.woke(at: 5), ["write closed minutes"]),
            (.written(2, at: 5), ["report 2 live minutes", "wait until 10"]),
            (.finish(at: 6), ["finish live"]),                              // long before the deadline at 700
            (.written(1, at: 6), ["report 1 live minutes", "sync history atDeadline"]),
            (.synced(3, .atDeadline, at: 7), ["finished"]),
        ])
        #expect(!machine.outcome.stopped)
        #expect(machine.outcome.liveMinutes == 3)
        #expect(machine.outcome.historyMinutes == 3)

        var strap = SessionMachine(plan: Self.strap, goal: .stream(until: nil))
        #expect(strap.linkUp(mtu: 23).map(Self.line) == ["report connected hr-strap", "set clock"])
        converse(&strap, Self.streamWithoutAuthentication + [
            (.written(0, at: 5), ["wait until 10"]),
            (.finish(at: 8), ["finish live"]),
            (.written(1, at: 8), ["report 1 live minutes", "finished"]),   // no history to sync
        ])
        #expect(!strap.outcome.stopped)
    }

    @Test func aLostLinkCommitsEverythingThenFails() {
        var machine = SessionMachine(plan: Self.band, goal: .stream(until: nil))
        converse(&machine, Self.connectAndSync + [
            (.synced(0, .atConnect, at: 0), ["subscribe"]),
            (.subscribed(at: 0), ["report streaming", "wait until 5"]),
            (.linkLost, ["finish live"]),
            (.written(2, at: 1), ["report 2 live minutes", "fail: the band did not answer the test in time"]),
        ])
    }

    @Test func aStopDuringAuthenticationOrTheFirstSyncEndsAtOnce() {
        var auth = SessionMachine(plan: Self.band, goal: .sync)
        converse(&auth, [(.authenticated(false), ["finished"])])
        #expect(auth.outcome.stopped)
        var sync = SessionMachine(plan: Self.band, goal: .stream(until: nil))
        converse(&sync, Self.connectAndSync + [(.synced(nil, .atConnect, at: 0), ["finished"])])
        #expect(sync.outcome.stopped)
    }

    @Test func anInfiniTimeWatchRunsTheSameCoreWithoutAuthenticationOrHistory() {
        let sync = SessionMachine(plan: Self.watch, goal: .sync)
        #expect(sync.linkUp(mtu: 185).map(Self.line) == ["report connected infinitime",
                                                         "fail: found InfiniTime watch (Motion service), which keeps no history to sync; use band stream"])
        var stream = SessionMachine(plan: Self.watch, goal: .stream(until: Self.at(7)))
        #expect(stream.linkUp(mtu: 185).map(Self.line) == ["report connected infinitime", "set clock"])
        converse(&stream, Self.streamWithoutAuthentication + [
            (.written(1, at: 5), ["report 1 live minutes", "wait until 7"]),
            (.woke(at: 7), ["finish live"]),
            (.written(0, at: 7), ["finished"]),
        ])
    }

    /// A watch's readings carry no time: its Current Time is read again every minute while
    /// streaming, so a clock that runs away from the reader's estimate is caught; a band's
    /// snapshots carry their time, a strap has no clock.
    @Test func aWatchsClockIsReadAgainEveryMinuteWhileStreaming() {
        var stream = SessionMachine(plan: Self.watch, goal: .stream(until: Self.at(200)))
        stream.liveWriteInterval = .seconds(50)
        converse(&stream, [
            (.clockSet, ["read device"]),
            (.device, ["report device", "open writer"]),
            (.writerOpen, ["subscribe"]),
            (.subscribed(at: 0), ["report streaming", "wait until 50"]),
            (.woke(at: 50), ["write closed minutes"]),
            (.written(0, at: 50), ["wait until 60"]),
            (.woke(at: 60), ["read clock"]),
            (.clockReread(at: 60), ["wait until 100"]),
            (.woke(at: 100), ["write closed minutes"]),
            (.written(0, at: 100), ["wait until 120"]),
            (.woke(at: 120), ["read clock"]),
        ])
        var band = SessionMachine(plan: Self.band, goal: .stream(until: Self.at(200)))
        band.historySyncInterval = nil
        band.liveWriteInterval = .seconds(50)
        converse(&band, Self.connectAndSync + [
            (.synced(0, .atConnect, at: 0), ["subscribe"]),
            (.subscribed(at: 0), ["report streaming", "wait until 50"]),
            (.woke(at: 50), ["write closed minutes"]),
            (.written(0, at: 50), ["wait until 100"]),
        ])
        var strap = SessionMachine(plan: Self.strap, goal: .stream(until: Self.at(200)))
        strap.liveWriteInterval = .seconds(50)
        converse(&strap, [(.clockSet, ["read device"]), (.device, ["report device", "open writer"]), (.writerOpen, ["subscribe"]),
                          (.subscribed(at: 0), ["report streaming", "wait until 50"]), (.woke(at: 50), ["write closed minutes"]),
                          (.written(0, at: 50), ["wait until 100"])])
    }

    @Test func aDeviceWithNothingToRecordEndsSayingWhatItIs() {
        let plan = SessionPlan(kind: .other, authenticates: false, syncsHistory: false, setsClock: false, subscriptions: [])
        let stream = SessionMachine(plan: plan, goal: .stream(until: nil))
        #expect(stream.linkUp(mtu: 23).map(Self.line) == ["report connected other",
                                                          "fail: found unknown device (no service BandKit records): nothing to stream"])
    }

    // MARK: The history sync inside the session

    static let historyData: UInt16 = 0x0031
    static let heartRate: UInt16 = 0x0012
    static let minute0: UInt32 = 1_796_032_800

    static func records(_ count: Int) -> [MinuteRecord] {
        (0..<count).map { i in
            MinuteRecord(minuteStart: minute0 + UInt32(i) * 60, utcOffset: .utc, flags: [.worn], steps: UInt16(i),
                         distanceDecimetres: 0, energyDecikilocalories: 0, heartRate: nil)
        }
    }

    static func announced(_ count: UInt32, first: UInt32 = 0) -> HistoryFetchResponse {
        HistoryFetchResponse(status: .success, historyID: 7, firstSequence: first, count: count, gap: 0)
    }

    static func packet(_ records: [MinuteRecord]) -> [UInt8] { HistoryDataPacket(packetNumber: 0, records: records).encodedBytes() }

    static func complete(_ records: [MinuteRecord]) -> HistoryTransferComplete {
        var crc = CRC32()
        for record in records { crc.update(record.encodedBytes()) }
        return HistoryTransferComplete(status: .success, packetCount: records.isEmpty ? 0 : 1, recordCount: UInt32(records.count), crc: crc.value)
    }

    static let accepted = HistoryAcknowledgeResponse(status: .success, oldestSequence: 0, nextSequence: 0)

    func bandMachine(_ goal: BandSession.Goal) -> SessionMachine {
        var machine = SessionMachine(plan: Self.band, goal: goal)
        machine.historyDataHandle = Self.historyData
        return machine
    }

    @Test func theSessionFetchesVerifiesCommitsAndAcknowledgesOnlyAfterTheCommitFinished() {
        var machine = bandMachine(.sync)
        let slice = Self.records(3)
        converse(&machine, Self.connectAndSync + [
            (.cursor(nil, at: 0), ["fetch 0"]),
            (.notified(Self.historyData, Self.packet(slice)), []),             // before any transfer: nothing to take
            (.fetch(Self.announced(3), at: 0), ["report started 0+3", "await transfer"]),
            (.notified(Self.historyData, Self.packet(slice)), ["report progress 3/3"]),
            (.notified(Self.heartRate, [0, 72]), ["report anomaly(\"routed live\")"]),   // not history data: the live stream's
            (.complete(Self.complete(slice), at: 1), ["commit 3 → 3"]),       // no acknowledgement before the commit's result
            (.committed(at: 1), ["ack 3"]),
            (.ack(Self.accepted, at: 2), ["report committed 3 at 3 acknowledged", "report complete 3", "finished"]),
        ])
        #expect(machine.outcome.historyMinutes == 3)
    }

    @Test func aDamagedTransferIsFetchedAgainAndNeverCommitted() {
        var machine = bandMachine(.sync)
        let slice = Self.records(2)
        var damaged = Self.complete(slice)
        damaged.crc ^= 1
        converse(&machine, Self.connectAndSync + [
            (.cursor(HistoryCursor(historyID: 7, nextSequence: 5), at: 0), ["fetch 5"]),
            (.fetch(Self.announced(2, first: 5), at: 0), ["report started 5+2", "await transfer"]),
            (.notified(Self.historyData, Self.packet(slice)), ["report progress 2/2"]),
            (.complete(damaged, at: 1), ["report discarded", "fetch 5"]),
        ])
    }

    @Test func afterTheSyncRoutesHistoryDataNoLonger() {
        var machine = bandMachine(.stream(until: nil))
        converse(&machine, Self.connectAndSync + [
            (.cursor(nil, at: 0), ["fetch 0"]),
            (.fetch(Self.announced(0), at: 0), ["report started 0+0", "await transfer"]),
            (.complete(Self.complete([]), at: 0), ["commit 0 → 0"]),      // the cursor of a new history, stored
            (.committed(at: 0), ["report committed 0 at 0", "report complete 0", "subscribe"]),
            (.notified(Self.historyData, Self.packet(Self.records(1))), ["report anomaly(\"routed live\")"]),
        ])
    }

    @Test func aFailedSyncWhileStreamingEndsTheStreamLikeALostLink() {
        var machine = bandMachine(.stream(until: nil))
        machine.historySyncInterval = .seconds(10)
        converse(&machine, Self.connectAndSync + [
            (.synced(0, .atConnect, at: 0), ["subscribe"]),
            (.subscribed(at: 0), ["report streaming", "wait until 5"]),
            (.woke(at: 10), ["write closed minutes"]),
            (.written(0, at: 10), ["write closed minutes"]),
            (.written(0, at: 10), ["sync history whileStreaming"]),
            (.cursor(nil, at: 10), ["fetch 0"]),
            (.historyFailed(at: 11), ["finish live"]),
            (.written(1, at: 11), ["report 1 live minutes", "fail: the band did not answer the history transfer in time"]),
        ])
    }

    /// After the first sync (of nothing), a stream whose deadline is at 5 s: one live minute
    /// written, then the deadline's history sync, up to its fetch.
    static let streamToTheDeadlineSync: [(Event, [String])] = [
        (.synced(0, .atConnect, at: 0), ["subscribe"]),
        (.subscribed(at: 0), ["report streaming", "wait until 5"]),
        (.woke(at: 5), ["write closed minutes"]),
        (.written(0, at: 5), ["finish live"]),
        (.written(1, at: 5), ["report 1 live minutes", "sync history atDeadline"]),
        (.cursor(nil, at: 5), ["fetch 0"]),
    ]

    @Test func theDeadlineSyncClosesTheLiveStreamBeforeFinishingOrFailing() {
        for failing in [false, true] {
            var machine = bandMachine(.stream(until: Self.at(5)))
            converse(&machine, Self.connectAndSync + Self.streamToTheDeadlineSync + [
                (.notified(Self.heartRate, [0, 70]), ["report anomaly(\"routed live\")"]),   // still the stream's during the last sync
                failing ? (.historyFailed(at: 6), ["close live"])
                        : (.fetch(Self.announced(0), at: 6), ["report started 0+0", "await transfer"]),
            ])
            if failing {
                converse(&machine, [(.liveClosed(at: 6), ["fail: the band did not answer the history transfer in time"])])
            } else {
                converse(&machine, [
                    (.complete(Self.complete([]), at: 6), ["commit 0 → 0"]),
                    (.committed(at: 6), ["report committed 0 at 0", "report complete 0", "close live"]),
                    (.liveClosed(at: 6), ["finished"]),
                ])
            }
        }
    }

    @Test func aStopWhileTheBandIsAwaitedEndsTheSyncStopped() {
        var machine = bandMachine(.sync)
        converse(&machine, Self.connectAndSync + [
            (.cursor(nil, at: 0), ["fetch 0"]),
            (.historyStopped(at: 1), ["finished"]),
        ])
        #expect(machine.outcome.stopped)
    }
}
