import BandReader
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
        case linkLost
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
            default: return "report \(event)"
            }
        case .authenticate: return "authenticate"
        case .synchronizeClock: return "set clock"
        case .readDeviceInformation: return "read device"
        case .openWriter: return "open writer"
        case .syncHistory(let reason): return "sync history \(reason)"
        case .subscribeLive: return "subscribe"
        case .waitForLink(let until): return "wait until \(t0.duration(to: until).components.seconds)"
        case .writeClosedMinutes: return "write closed minutes"
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
            case .linkLost: actions = machine.linkFailed(.controlPointTimeout("the test"))
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
        converse(&stream, [
            (.clockSet, ["read device"]),
            (.device, ["report device", "open writer"]),
            (.writerOpen, ["subscribe"]),
            (.subscribed(at: 0), ["report streaming", "wait until 5"]),
            (.woke(at: 5), ["write closed minutes"]),
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
        converse(&stream, [
            (.clockSet, ["read device"]),
            (.device, ["report device", "open writer"]),
            (.writerOpen, ["subscribe"]),
            (.subscribed(at: 0), ["report streaming", "wait until 5"]),
            (.woke(at: 5), ["write closed minutes"]),
            (.written(1, at: 5), ["report 1 live minutes", "wait until 7"]),
            (.woke(at: 7), ["finish live"]),
            (.written(0, at: 7), ["finished"]),
        ])
    }

    @Test func aDeviceWithNothingToRecordEndsSayingWhatItIs() {
        let plan = SessionPlan(kind: .other, authenticates: false, syncsHistory: false, setsClock: false, subscriptions: [])
        let stream = SessionMachine(plan: plan, goal: .stream(until: nil))
        #expect(stream.linkUp(mtu: 23).map(Self.line) == ["report connected other",
                                                          "fail: found unknown device (no service BandKit records): nothing to stream"])
    }
}
