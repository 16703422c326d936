import BandGATT
import BandGATTClient
import BandProtocol
import BandWire
import FoundationEssentials
import HealthModel
import HealthStore

/// One connection's worth of work, each step relying on the ones before it: authenticate, set the clock and
/// zone, read Device Information and battery, sync history from the stored cursor, then subscribe
/// to live heart rate, RSC and activity counters (once) and stream until told to stop. The order
/// and timing are ``SessionMachine``'s decisions; this class performs them on a link.
public final class BandSession {
    public enum Goal: Sendable {
        /// Only history (`band sync`).
        case sync
        /// History, then live readings until the deadline or a stop (`band stream`).
        case stream(until: ContinuousClock.Instant?)
    }

    /// What a finished session achieved.
    public struct Outcome: Sendable {
        public var historyMinutes = 0
        public var liveMinutes = 0
        public var stopped = false
        public var device = BandDeviceInfo()
        /// Connection attempts made (``BandReaderService`` fills it in).
        public var attempts = 0
        /// Connections that got as far as discovering the device's services.
        public var connections = 0
        /// Minutes committed to the store over every connection, including those that later
        /// failed (history minutes of committed transfers plus live minutes written).
        public var committedMinutes = 0
        /// Set when the run ended at its deadline while disconnected (the next reconnect would
        /// have come after it): why the last connection failed. The run did not end with the link
        /// it was asked for, so `band stream` exits 1 saying so rather than passing a lost link
        /// off as success.
        public var endedWithoutLink: String?
        /// Live minutes that went to the local spool while the store was unreachable.
        public var spooledMinutes = 0
        /// Live minutes the full spool could not take.
        public var droppedMinutes = 0
        /// Spooled minutes replayed into the store once it was back.
        public var replayedMinutes = 0
        /// Set when the session ended with the store unreachable: its failure. History was not
        /// acknowledged (the band keeps it) and live minutes wait in the spool for the next run.
        public var storeUnavailable: String?
    }

    public let connection: BandConnection
    public let address: String
    public let pairing: PairedBand?
    public var timeZone: any LocalTimeRules = SystemTimeZone()
    public var now: () -> Date = Date.init
    /// Whether the reader sets the band's clock (false: only read it, for a simulator running
    /// faster than real time, whose clock the host's cannot match).
    public var setsClock = true
    /// A band clock this close to the host's is left alone.
    public var clockTolerance: Duration = .seconds(2)
    /// How often provisional live minutes are written while streaming.
    public var liveWriteInterval: Duration = .seconds(5)
    /// How often history is synced again while streaming, so the band's records replace the
    /// provisional minutes during a long stream too (nil: only at connect and at the deadline).
    public var historySyncInterval: Duration? = .seconds(600)
    /// How often a watch's Current Time is read again while streaming (``SessionMachine/clockRereadInterval``).
    public var clockRereadInterval: Duration? = .seconds(60)
    /// Where live minutes go while the store is unreachable (nil: a store failure ends the
    /// session, as it did before gateways spooled).
    public var spool: LiveSpool?
    /// Where each live reading is kept on disk as it arrives, until the store or the spool has
    /// it (nil: readings not yet written are lost if the process is killed).
    public var journal: LiveJournal?
    /// How a sync retries an unreachable store before giving up.
    public var storeRetrySchedule = StoreRetrySchedule.standard
    /// The store writer to reuse: set by the run from its previous session (``ReaderStore`` returns
    /// it again for the same device, with no store round trip — a reconnect while the store is
    /// unreachable still gets its writer); after ``run(_:)``, also when it threw, the one this
    /// session opened.
    public var reusableWriter: SampleWriter?
    let store: ReaderStore
    let report: (ReaderEvent) -> Void
    let clock = ContinuousClock()
    /// The decisions; set by ``run(_:)``. Notifications reach it through the one route the
    /// session installs on the connection.
    var machine: SessionMachine
    var live: LiveStream?
    /// What the current run holds between actions.
    var state = SessionRunState()
    /// The bound on what the device's live notifications cost (``LiveFloodGuard``); nil: none
    /// (`band stream` of one device; a gateway sets one for each).
    public var floodGuard: LiveFloodGuard?
    /// Turns shared with other devices' sessions: a history sync waits for one (nil: none, the
    /// sync starts at once).
    public var historyTurns: HistorySyncTurns?
    /// This session holds a history turn, or a place in the queue for one.
    var holdsHistoryTurn = false

    /// `store` is the store, opened before connecting; the session's writer comes from it
    ///   once Device Information is read.
    public init(connection: BandConnection, address: String, pairing: PairedBand?, store: ReaderStore,
                report: @escaping (ReaderEvent) -> Void) {
        self.connection = connection
        self.address = address
        self.pairing = pairing
        self.store = store
        self.report = report
        machine = SessionMachine(plan: SessionPlan(profile: connection.profile), goal: .sync)
    }

    /// Runs the connection's work as ``SessionMachine`` orders it, performing each action on the
    /// link, the store and the live stream (`perform(_:)`) and handing what follows back to the
    /// machine, until it says the session is finished or failed.
    public func run(_ goal: Goal) throws(SessionError) -> Outcome {
        machine = SessionMachine(plan: SessionPlan(profile: connection.profile), goal: goal)
        machine.liveWriteInterval = liveWriteInterval
        machine.historySyncInterval = historySyncInterval
        machine.clockRereadInterval = clockRereadInterval
        machine.retryStore(on: storeRetrySchedule)
        machine.historyDataHandle = connection.profile.activity?.historyData.valueHandle
        live = nil
        state = SessionRunState()
        // The one route for everything the device pushes: installed once, never swapped.
        connection.valueHandler = { [unowned self] handle, value in route(handle, value) }
        defer {
            if holdsHistoryTurn { releaseHistoryTurn() }
            connection.valueHandler = nil
            if let dropped = floodGuard?.droppedToReport(at: clock.now, final: true) { report(.readingsDropped(count: dropped)) }
            // The session is over: the next one (or another reader) may take the journal.
            journal?.close()
        }
        var pending = machine.linkUp(mtu: connection.client.mtu)[...]
        while let action = pending.popFirst() {
            switch action {
            case .finished:
                return machine.outcome
            case .fail(let error):
                throw error
            default:
                // What an action leads to comes before anything already pending.
                pending.insert(contentsOf: try perform(action), at: pending.startIndex)
            }
        }
        return machine.outcome
    }

    /// Where a notification goes is the machine's decision; the live stream's readings are handled here.
    private func route(_ handle: UInt16, _ value: UnsafeRawBufferPointer) {
        switch machine.routeNotification(handle: handle, value) {
        case .history(let progress):
            if let progress { report(progress) }
        case .live:
            guard let live else { return }
            let now = clock.now
            if floodGuard != nil, !floodGuard!.admit(at: now) {
                if let dropped = floodGuard!.droppedToReport(at: now) { report(.readingsDropped(count: dropped)) }
                return
            }
            _ = live.handle(handle, value)
        }
    }

    /// Subscribes to the plan's live characteristics, once, and routes them to a ``LiveStream``.
    ///
    /// For a running step total, the total last committed is in place before the first
    /// subscription, so the first reading is compared with it, not taken for a first sight.
    func openLiveStream(_ subscriptions: [SessionPlan.Subscription], battery: Int?,
                        storedSteps: StepCountState?, clock: (bandTime: Double, hostTime: Date)?) throws(SessionError) -> LiveStream {
        let profile = connection.profile
        let handles = LiveStream.Handles(profile: profile)
        let live = LiveStream(handles: handles, now: now, hostOffset: { [timeZone, now] in timeZone.secondsFromGMT(for: now()) },
                              report: report)
        live.batteryPercent = battery
        live.stepTracker = StepCountTracker(stored: storedSteps)
        live.received = { [unowned self] in journalReceived() }
        // The clock read at connect is the stream's first observation, before any reading that
        // arrives during the subscriptions: the estimator's baseline starts there, as it does in
        // a replay of this session (RecordedSessionFeed observes it when it makes the stream).
        if let clock { live.observeBandClock(clock.bandTime, at: clock.hostTime) }
        // Routed from now on (``route(_:_:)``), so readings during the subscriptions are kept.
        self.live = live
        for subscription in subscriptions {
            guard let characteristic = profile.characteristic(for: subscription) else { continue }
            try connection.subscribe(characteristic, .notifications, during: .subscribe)
        }
        return live
    }
}
