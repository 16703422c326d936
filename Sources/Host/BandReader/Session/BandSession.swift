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
    /// How a sync retries an unreachable store before giving up.
    public var storeRetrySchedule = StoreRetrySchedule.standard
    /// The store writer to reuse: set by the run from its previous session (``ReaderStore`` returns
    /// it again for the same device, with no store round trip — a reconnect while the store is
    /// unreachable still gets its writer); after ``run(_:)``, also when it threw, the one this
    /// session opened.
    public var reusableWriter: SampleWriter?
    private let store: ReaderStore
    private let report: (ReaderEvent) -> Void
    private let clock = ContinuousClock()
    /// The decisions; set by ``run(_:)``. Notifications reach it through the one route the
    /// session installs on the connection.
    private var machine: SessionMachine
    private var live: LiveStream?

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
    /// link, the store and the live stream.
    public func run(_ goal: Goal) throws(SessionError) -> Outcome {
        let plan = SessionPlan(profile: connection.profile)
        machine = SessionMachine(plan: plan, goal: goal)
        machine.liveWriteInterval = liveWriteInterval
        machine.historySyncInterval = historySyncInterval
        machine.clockRereadInterval = clockRereadInterval
        machine.retryStore(on: storeRetrySchedule)
        machine.historyDataHandle = connection.profile.activity?.historyData.valueHandle
        live = nil
        // The one route for everything the device pushes: installed once, never swapped.
        connection.valueHandler = { [unowned self] handle, value in route(handle, value) }
        defer { connection.valueHandler = nil }
        var clockObservation: (bandTime: Double, hostTime: Date)?
        var battery: Int?
        var writer: SampleWriter?
        /// What a failed live write held, for the spool.
        var unwritten: [SpoolEntry] = []
        /// Minutes in the spool (what it held at connect plus what this session added).
        var spooledMinutes = 0
        func write(_ minutes: [LiveMinute], from live: LiveStream?) throws(SessionError) {
            // The battery level is stored when it changes, with the minutes: one transaction, and no
            // row per notification for a value that rarely moves.
            let battery = live?.takeBatteryUpdate()
            let gaps = live?.takeStepGaps() ?? []
            guard !minutes.isEmpty || battery != nil || !gaps.isEmpty, let writer else { return }
            let started = clock.now
            do {
                let written = try writer.writeLive(minutes, batteryPercent: battery?.percent, batteryTime: battery?.time, stepGaps: gaps)
                report(.storeWrite(StoreWriteTiming(batch: .live, rows: written.inserted + written.replaced, duration: clock.now - started)))
            } catch {
                unwritten = minutes.map(SpoolEntry.minute) + gaps.map(SpoolEntry.stepGap)
                    + (battery.map { [SpoolEntry.battery(percent: $0.percent, time: UInt32(clamping: Int64($0.time.timeIntervalSince1970)))] } ?? [])
                throw .store(StoreFailure(.writeLive, error))
            }
        }
        /// Live minutes to the store; a failure goes to the machine, which decides (spool or end).
        func writeOrReport(_ minutes: [LiveMinute]) throws(SessionError) -> [SessionMachine.Action] {
            do { try write(minutes, from: live) } catch {
                // Without a spool a store failure ends the session, as before gateways spooled.
                guard spool != nil else { throw error }
                return machine.liveWriteFailed(error, at: clock.now)
            }
            return machine.liveWritten(minutes.count, at: clock.now)
        }
        /// Appends entries to the spool: (minutes kept, minutes dropped because it is full).
        func appendToSpool(_ entries: [SpoolEntry]) throws(SessionError) -> (kept: Int, dropped: Int) {
            guard let spool else {
                // No spool (a session made without one): the store's outage ends the session.
                throw .store(StoreFailure(.writeLive, HealthStoreError.misuse(machine.outcome.storeUnavailable ?? "the store is unreachable and there is no spool")))
            }
            let appended: LiveSpool.Appended
            do { appended = try spool.append(entries) } catch { throw .store(StoreFailure(.spool, error)) }
            let minutes = entries.reduce(0) { if case .minute = $1 { $0 + 1 } else { $0 } }
            let kept = minutes - appended.droppedMinutes
            spooledMinutes += kept
            return (kept, appended.droppedMinutes)
        }
        func liveEntries(_ minutes: [LiveMinute]) -> [SpoolEntry] {
            let battery = live?.takeBatteryUpdate()
            let gaps = live?.takeStepGaps() ?? []
            return minutes.map(SpoolEntry.minute) + gaps.map(SpoolEntry.stepGap)
                + (battery.map { [SpoolEntry.battery(percent: $0.percent, time: UInt32(clamping: Int64($0.time.timeIntervalSince1970)))] } ?? [])
        }
        var pending = machine.linkUp(mtu: connection.client.mtu)[...]
        while let action = pending.popFirst() {
            var next: [SessionMachine.Action] = []
            switch action {
            case .report(let event):
                report(event)
            case .authenticate:
                guard let pairing else { throw .notPaired(address: address) }
                guard pairing.key.count == BandKey.capacity else {
                    throw .controlPointProtocol("the stored key for \(address) has \(pairing.key.count) bytes, not \(BandKey.capacity); pair again")
                }
                let completed = try BandAuthentication.authenticate(connection, readerID: pairing.readerID, key: BandKey(pairing.key))
                next = machine.authenticated(completed)
            case .synchronizeClock:
                clockObservation = try synchronizeClock()
                next = machine.clockSynchronized()
            case .readDeviceInformation:
                let (device, percent) = try connection.readDeviceInformation(report: report)
                battery = percent
                next = machine.deviceRead(device, batteryPercent: percent)
            case .openWriter(let device):
                writer = try store.writer(for: device, reusing: reusableWriter)
                reusableWriter = writer
                var waiting = 0
                if let spool {
                    // Entries an earlier outage left: replayed before anything else is written.
                    do {
                        let contents = try spool.load()
                        if !contents.isClean { report(.anomaly(Self.damageReport(contents, path: spool.path))) }
                        waiting = contents.entries.count
                        spooledMinutes = contents.minuteCount
                    } catch { throw .store(StoreFailure(.spool, error)) }
                }
                next = machine.writerOpened(spooled: waiting)
            case .syncHistory, .sendHistoryFetch, .awaitHistoryTransfer, .commitHistory, .acknowledgeHistory:
                // Any failure of a history step goes to the machine, which decides what it ends
                // (a commit the store could not take: nothing acknowledged, the sync owed).
                do { next = try performHistoryStep(action, writer: writer) } catch { next = machine.historyFailed(error, at: clock.now) }
            case .closeLive:
                // Live notifications are no longer routed; what the stream still holds is written.
                let stream = live
                live = nil
                do { try write(stream?.finish() ?? [], from: stream) } catch {
                    // The store went away during the last sync: these go to the spool too.
                    guard machine.storeMayComeBack(error), spool != nil else { throw error }
                    let (kept, dropped) = try appendToSpool(unwritten)
                    unwritten = []
                    next = machine.lateMinutesSpooled(kept, pending: spooledMinutes, dropped: dropped, failure: error, at: clock.now)
                }
                next += machine.liveClosed(at: clock.now)
            case .subscribeLive:
                var storedSteps: StepCountState?
                if plan.subscriptions.contains(.stepCount) {
                    do { storedSteps = try writer?.storedStepCount() } catch { throw .store(StoreFailure(.readStepCount, error)) }
                }
                let stream = try subscribeLive(plan.subscriptions, battery: battery, storedSteps: storedSteps, clock: clockObservation)
                if plan.subscriptions.contains(.stepCount), let count = connection.profile.motionStepCount, count.properties.contains(.read) {
                    // Read once: what grew while the reader was away is known at once, not at the wearer's next step.
                    let bytes = try connection.read(count, during: .subscribe)
                    bytes.withUnsafeBytes { _ = stream.handle(count.valueHandle, $0) }
                }
                next = machine.subscribed(at: clock.now)
            case .waitForLink(let wake):
                if connection.stop.isFinishRequested {
                    next = machine.finishRequested(at: clock.now)
                    break
                }
                do {
                    let handled = try connection.pump(until: wake, during: .streaming)
                    next = handled ? machine.woke(at: clock.now) : machine.stopRequested()
                } catch {
                    next = machine.linkFailed(error)
                }
            case .writeClosedMinutes:
                next = try writeOrReport(live?.takeClosedMinutes() ?? [])
            case .rereadClock:
                do { try rereadClock() } catch { next = machine.linkFailed(error) }
                if next.isEmpty { next = machine.clockReread(at: clock.now) }
            case .finishLive:
                // Everything received so far is committed, however the stream ended.
                next = try writeOrReport(live?.finish() ?? [])
            case .spoolLive(let source):
                let entries: [SpoolEntry]
                switch source {
                case .unwritten: entries = unwritten
                case .closed: entries = liveEntries(live?.takeClosedMinutes() ?? [])
                case .all: entries = liveEntries(live?.finish() ?? [])
                }
                unwritten = []
                let (kept, dropped) = try appendToSpool(entries)
                next = machine.liveSpooled(kept, pending: spooledMinutes, dropped: dropped, at: clock.now)
            case .replaySpool:
                guard let writer else { throw .store(StoreFailure(.prepareWriter, HealthStoreError.misuse("no store writer before the spool's replay"))) }
                do {
                    let replayed = try replay(into: writer)
                    spooledMinutes = 0
                    next = machine.spoolReplayed(replayed, at: clock.now)
                } catch {
                    next = machine.spoolReplayFailed(error, at: clock.now)
                }
            case .finished:
                return machine.outcome
            case .fail(let error):
                throw error
            }
            pending.insert(contentsOf: next, at: pending.startIndex)
        }
        return machine.outcome
    }

    /// Where a notification goes is the machine's decision; the live stream's readings are handled here.
    private func route(_ handle: UInt16, _ value: UnsafeRawBufferPointer) {
        switch machine.routeNotification(handle: handle, value) {
        case .history(let progress):
            if let progress { report(progress) }
        case .live:
            _ = live?.handle(handle, value)
        }
    }

    // MARK: The spool

    /// Replays the spool through the live write path and removes it; with nothing spooled, tries
    /// the store with a read (the history cursor). Returns the minutes replayed.
    private func replay(into writer: SampleWriter) throws(SessionError) -> Int {
        guard let spool else {
            do { _ = try writer.cursor() } catch { throw .store(StoreFailure(.readCursor, error)) }
            return 0
        }
        let contents: SpoolFile.Contents
        do {
            contents = try spool.replay { (contents) throws(HealthStoreError) in
                var minutes: [LiveMinute] = []
                var gaps: [StepGap] = []
                var battery: (percent: Int, time: UInt32)?
                for entry in contents.entries {
                    switch entry {
                    case .minute(let minute): minutes.append(minute)
                    case .stepGap(let gap): gaps.append(gap)
                    case .battery(let percent, let time): if battery.map({ $0.time <= time }) ?? true { battery = (percent, time) }
                    }
                }
                do {
                    if minutes.isEmpty, gaps.isEmpty, battery == nil {
                        _ = try writer.cursor()
                    } else {
                        try writer.writeSpooled(minutes, batteryPercent: battery?.percent,
                                                batteryTime: battery.map { Date(timeIntervalSince1970: TimeInterval($0.time)) }, stepGaps: gaps)
                    }
                } catch let error as HealthStoreError {
                    throw error
                } catch {
                    throw .misuse("\(error)")
                }
            }
        } catch {
            switch error {
            case .store(let failure): throw .store(StoreFailure(.writeLive, failure))
            case .spool(let failure): throw .store(StoreFailure(.spool, failure))
            }
        }
        if contents.entries.isEmpty, contents.isClean {
            // Nothing was spooled: the store is tried with a read.
            do { _ = try writer.cursor() } catch { throw .store(StoreFailure(.readCursor, error)) }
        }
        return contents.minuteCount
    }

    /// The anomaly line for a damaged spool.
    static func damageReport(_ contents: SpoolFile.Contents, path: String) -> String {
        var parts: [String] = []
        if contents.damagedStretches > 0 {
            parts.append("\(contents.damagedStretches) damaged stretch\(contents.damagedStretches == 1 ? "" : "es") (\(contents.damagedBytes) bytes) skipped")
        }
        if contents.tornTailBytes > 0 { parts.append("a torn last record (\(contents.tornTailBytes) bytes) left out") }
        let at = contents.firstDamageOffset.map { " from byte offset \($0)" } ?? ""
        return "spool \(path): " + parts.joined(separator: ", ") + at + "; \(contents.entries.count) intact entries kept"
    }

    /// Performs one step of a history sync on the band's History Control Point and the store
    /// (fetch → verify → commit → acknowledge, see ``HistorySyncMachine``) and returns what the
    /// machine does next. A stop while waiting for the band ends the sync.
    private func performHistoryStep(_ action: SessionMachine.Action, writer: SampleWriter?) throws(SessionError) -> [SessionMachine.Action] {
        guard let activity = connection.profile.activity else {
            throw .notABand("the device has no band activity service, so it keeps no history")
        }
        let control = activity.historyControlPoint
        switch action {
        case .syncHistory:
            guard let writer else { throw .store(StoreFailure(.prepareWriter, HealthStoreError.misuse("no store writer before the history sync"))) }
            try connection.subscribe(control, .indications, during: .history)
            try connection.subscribe(activity.historyData, .notifications, during: .history)
            let cursor: HistoryCursor?
            do { cursor = try writer.cursor() } catch { throw .store(StoreFailure(.readCursor, error)) }
            return machine.historyCursorRead(cursor, at: clock.now)
        case .sendHistoryFetch(let request):
            guard let bytes = try connection.request(request.encodedBytes(capacity: HistoryFetchRequest.size),
                                                     on: control, what: "the history fetch", during: .history) else { return machine.historyStopped(at: clock.now) }
            let announced = try connection.decode(bytes, as: HistoryFetchResponse.self, what: "history fetch")
            return machine.historyFetchAnswered(announced, at: clock.now)
        case .awaitHistoryTransfer:
            guard let bytes = try connection.awaitResponse(on: control, what: "the end of the history transfer", during: .history) else {
                return machine.historyStopped(at: clock.now)
            }
            let response: HistoryResponse
            do { response = try HistoryResponse(parsingAll: bytes) } catch {
                throw .controlPointProtocol("history response \(Hex.encode(bytes)) does not decode: \(error)")
            }
            guard case .transferComplete(let complete) = response else {
                throw .controlPointProtocol("expected Transfer Complete, got \(response)")
            }
            return machine.historyTransferCompleted(complete, at: clock.now)
        case .commitHistory(let records, let cursor, let previous):
            guard let writer else { throw .store(StoreFailure(.commitHistory, HealthStoreError.misuse("no store writer for the history commit"))) }
            let started = clock.now
            let written: StoreWrite
            do { written = try writer.commitHistory(records, cursor: cursor, previous: previous) } catch { throw .store(StoreFailure(.commitHistory, error)) }
            report(.storeWrite(StoreWriteTiming(batch: .history, rows: written.inserted + written.replaced, duration: clock.now - started)))
            return machine.historyCommitFinished(at: clock.now)
        case .acknowledgeHistory(let ack):
            guard let bytes = try connection.request(ack.encodedBytes(capacity: HistoryAcknowledgeRequest.size),
                                                     on: control, what: "the history acknowledgement", during: .history) else { return machine.historyStopped(at: clock.now) }
            let response = try connection.decode(bytes, as: HistoryAcknowledgeResponse.self, what: "history acknowledgement")
            return machine.historyAcknowledged(response, at: clock.now)
        default:
            return []
        }
    }

    // MARK: Steps

    /// Brings the band's clock and zone to the host's: reads Current Time and Local Time
    /// Information, writes the zone (standard offset and DST separately) when it differs and the
    /// time when it is off by more than ``clockTolerance``. With ``setsClock`` false (a simulator
    /// running faster than real time) it only reads. Returns a (band time, host time) pair for
    /// stamping live readings.
    private func synchronizeClock() throws(SessionError) -> (bandTime: Double, hostTime: Date)? {
        let profile = connection.profile
        guard let currentTime = profile.currentTime else { return nil }
        let hostNow = now()
        let setting: BandClockSetting
        do { setting = try BandClockSetting(date: hostNow, timeZone: timeZone) } catch {
            report(.anomaly("clock not set: \(error)"))
            return nil
        }
        // The decisions are ClockObservation's (shared with replay); this performs the reads and writes.
        var clock = ClockObservation(hasCurrentTime: true)
        clock.readSent(at: hostNow)
        if let local = profile.localTimeInformation, local.properties.contains(.read) {
            let bytes = try connection.read(local, during: .clock)
            bytes.withUnsafeBytes { clock.zoneRead($0) }
        }
        if currentTime.properties.contains(.read) {
            let bytes = try connection.read(currentTime, during: .clock)
            bytes.withUnsafeBytes { clock.timeRead($0) }
        }
        guard setsClock else {
            report(.clockChecked(bandOffsetFromHost: clock.bandOffset(fromHost: hostNow)))
            return clock.observation(fallback: hostNow)
        }
        var changed = false
        if let local = profile.localTimeInformation, local.properties.contains(.write), clock.zoneNeedsWriting(setting) {
            try connection.write(setting.localTimeInformation.encodedBytes(capacity: 2), to: local, during: .clock)
            changed = true
        }
        if clock.timeNeedsWriting(zoneChanged: changed, host: hostNow, tolerance: clockTolerance), currentTime.properties.contains(.write) {
            // Recompute: the reads above took time.
            let fresh: BandClockSetting
            let written = now()
            do { fresh = try BandClockSetting(date: written, timeZone: timeZone) } catch { return nil }
            try connection.write(fresh.currentTime.encodedBytes(capacity: 10), to: currentTime, during: .clock)
            clock.timeWritten(at: written)
            report(.clockSet(fresh))
            return clock.observation(fallback: hostNow)
        }
        report(.clockChecked(bandOffsetFromHost: clock.bandOffset(fromHost: hostNow)))
        return clock.observation(fallback: hostNow)
    }

    /// Reads the device's zone and Current Time again while streaming and hands the reading to
    /// the live stream, which trusts it over its extrapolation (``LiveStream/observeDeviceClock(_:at:)``).
    private func rereadClock() throws(SessionError) {
        let profile = connection.profile
        guard let live, let currentTime = profile.currentTime, currentTime.properties.contains(.read) else { return }
        var clock = ClockObservation(hasCurrentTime: true)
        let sent = now()
        clock.readSent(at: sent)
        if let local = profile.localTimeInformation, local.properties.contains(.read) {
            let bytes = try connection.read(local, during: .streaming)
            bytes.withUnsafeBytes { clock.zoneRead($0) }
        }
        let bytes = try connection.read(currentTime, during: .streaming)
        bytes.withUnsafeBytes { clock.timeRead($0) }
        if let observation = clock.observation(fallback: sent) {
            live.observeDeviceClock(observation.bandTime, at: observation.hostTime, utcOffsetSeconds: clock.bandZone?.utcOffsetSeconds)
        }
    }

    /// Subscribes to the plan's live characteristics, once, and routes them to a ``LiveStream``.
    ///
    /// For a running step total, the total last committed is in place before the first
    /// subscription, so the first reading is compared with it, not taken for a first sight.
    private func subscribeLive(_ subscriptions: [SessionPlan.Subscription], battery: Int?,
                               storedSteps: StepCountState?, clock: (bandTime: Double, hostTime: Date)?) throws(SessionError) -> LiveStream {
        let profile = connection.profile
        let handles = LiveStream.Handles(profile: profile)
        let live = LiveStream(handles: handles, now: now, hostOffset: { [timeZone, now] in timeZone.secondsFromGMT(for: now()) },
                              report: report)
        live.batteryPercent = battery
        live.stepTracker = StepCountTracker(stored: storedSteps)
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
