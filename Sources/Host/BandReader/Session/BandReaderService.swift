import BandKitSystem
import BandLink
import BandProtocol
import FoundationEssentials
import HealthModel
import HealthStore

/// The reader as the `band` command runs it: opens links, runs sessions, reconnects with
/// jittered exponential backoff, and owns the keystore and store for one band.
public final class BandReaderService {
    /// Opens the ATT link to a band (BlueZ L2CAP or the simulator's socket).
    public typealias LinkOpener = (BandAddress) throws -> any ATTBearer

    public let address: BandAddress
    public let keystore: Keystore
    public let storePath: String
    public let stop: StopRequest
    public var backoff = ReconnectBackoff()
    /// ATT transaction timeout (30 s per the specification).
    public var transactionTimeout: Duration = .seconds(30)
    public var timeZone: any LocalTimeRules = SystemTimeZone()
    /// See ``BandSession/setsClock``.
    public var setsClock = true
    /// See ``BandSession/clockTolerance``.
    public var clockTolerance: Duration = .seconds(2)
    /// See ``BandSession/historySyncInterval``.
    public var historySyncInterval: Duration? = .seconds(600)
    /// See ``BandSession/clockRereadInterval``.
    public var clockRereadInterval: Duration? = .seconds(60)
    /// See ``BandSession/storeRetrySchedule``.
    public var storeRetrySchedule = StoreRetrySchedule.standard
    public var now: () -> Date = Date.init
    /// Where live minutes wait while the store is unreachable (``LiveSpool``): one file per band
    /// and store in this directory; nil turns spooling off (a store outage then ends the session).
    public var spoolDirectory: String? = LiveSpool.defaultDirectory()
    /// The bound on each session's live notifications (``LiveFloodGuard``); nil: none.
    public var liveFloodGuard: LiveFloodGuard?
    /// Opens the store, once per person: one per service by default; a gateway gives all its
    /// devices one (``StoreOpener``).
    public var storeOpener: StoreOpener
    /// History syncs at once among the devices sharing it (``HistorySyncTurns``); nil: no limit.
    public var historyTurns: HistorySyncTurns?
    private let openLink: LinkOpener
    private let report: (ReaderEvent) -> Void
    /// The store writer ``streamOnce(attempt:)`` keeps between its connections.
    private var onceWriter: SampleWriter?
    /// The person ``pair()`` binds the band to (nil: the store's default person). Sync and stream
    /// write as the person the keystore entry names.
    public var person: String?
    /// The last connection attempt failed because the Bluetooth adapter does not exist (ENODEV).
    private var adapterGone = false

    public init(address: BandAddress, keystore: Keystore, storePath: String, stop: StopRequest,
                openLink: @escaping LinkOpener, report: @escaping (ReaderEvent) -> Void) {
        self.address = address
        self.keystore = keystore
        self.storePath = storePath
        self.stop = stop
        self.openLink = openLink
        self.report = report
        storeOpener = StoreOpener(path: storePath)
    }

    // MARK: Pairing

    /// Pairs: link security (done by the link), the band's key exchange, Device Information;
    /// stores the key in the keystore. A device of another kind has no key exchange: it gets a
    /// bond-only entry (``PairedBand/isBondOnly``). Returns nil when stopped while waiting for the wearer.
    public func pair() throws(SessionError) -> PairedBand? {
        let connection = try connect(attempt: 1)
        defer { connection.close() }
        var machine = PairingMachine(kind: BandKind(profile: connection.profile))
        var pending = machine.start()[...]
        while let action = pending.popFirst() {
            var next: [PairingMachine.Action] = []
            switch action {
            case .chooseReaderID:
                // Pairing again keeps this host's reader ID, so the band replaces its key for us
                // rather than filling another of its key slots.
                var readerID: UInt64 = 0
                if let known = try? keystore.band(address.keystoreKey) {
                    readerID = known.readerID
                } else {
                    do {
                        try withUnsafeMutableBytes(of: &readerID) { (raw) throws(RandomSourceError) in try KernelRandom.fill(raw) }
                    } catch {
                        throw .controlPointProtocol("no random reader ID: \(error)")
                    }
                }
                next = machine.readerIDChosen(readerID)
            case .sendPairingRequest(let request):
                let response: PairingResponse?
                do { response = try BandAuthentication.requestPairing(connection, request) } catch {
                    next = machine.linkFailed(error)
                    break
                }
                next = response.map { machine.pairingAnswered($0) } ?? machine.stopRequested()
            case .readDeviceInformation:
                next = machine.deviceRead(try connection.readDeviceInformation(report: report).device)
            case .report(let event):
                report(event)
            case .save(let readerID, let key, let device, let kind):
                let band = PairedBand(address: address.keystoreKey, readerID: readerID, key: key, device: device, pairedAt: now(), kind: kind, person: person)
                do { try keystore.save(band) } catch { throw .keystore("\(error)") }
                return band
            case .stopped:
                return nil
            case .fail(let error):
                throw error
            }
            pending.insert(contentsOf: next, at: pending.startIndex)
        }
        return nil
    }

    // MARK: Sync and stream

    /// Syncs history, reconnecting after transient failures, up to `attempts` connections.
    public func sync(attempts: Int = 10) throws(SessionError) -> BandSession.Outcome {
        try runSessions(goal: { .sync }, attempts: attempts, until: nil)
    }

    /// Streams until `deadline` or a stop, reconnecting (and syncing history again) after every
    /// disconnect.
    public func stream(until deadline: ContinuousClock.Instant?) throws(SessionError) -> BandSession.Outcome {
        try runSessions(goal: { .stream(until: deadline) }, attempts: nil, until: deadline)
    }

    private func runSessions(goal: () -> BandSession.Goal, attempts: Int?, until deadline: ContinuousClock.Instant?) throws(SessionError) -> BandSession.Outcome {
        let pairing: PairedBand?
        do { pairing = try keystore.band(address.keystoreKey) } catch { throw .keystore("\(error)") }
        // The store is opened before the band is touched: a bad path fails at once, not after
        // connecting, authenticating and setting the band's clock, which a user would then have
        // waited for and the band spent battery on for nothing.
        let store = ReaderStore(opener: storeOpener, person: pairing?.person, bandAddress: address.keystoreKey)
        _ = try storeOpener.store(person: pairing?.person)
        var total = BandSession.Outcome()
        var attempt = 0
        /// The run's store writer, kept across its reconnects (``BandSession/reusableWriter``).
        var writer: SampleWriter?
        while true {
            attempt += 1
            // The backoff starts over only after a connection got somewhere; a band that accepts
            // connections and then fails keeps being retried at growing intervals.
            var progressed = false
            total.attempts = attempt
            let report = self.report
            let track: (ReaderEvent) -> Void = { event in
                switch event {
                case .authenticated, .streaming: progressed = true
                case .historyCommitted(let minutes, _, _):
                    progressed = true
                    total.committedMinutes += minutes
                case .liveMinutesStored(let count): total.committedMinutes += count
                case .connected: total.connections += 1
                default: break
                }
                report(event)
            }
            do {
                let outcome = try runConnection(goal(), attempt: attempt, pairing: pairing, store: store, writer: &writer, report: track)
                total.historyMinutes += outcome.historyMinutes
                total.liveMinutes += outcome.liveMinutes
                total.device = outcome.device
                total.stopped = outcome.stopped
                total.spooledMinutes += outcome.spooledMinutes
                total.droppedMinutes += outcome.droppedMinutes
                total.replayedMinutes += outcome.replayedMinutes
                total.storeUnavailable = outcome.storeUnavailable
                return total
            } catch {
                // A sync's store outage was already retried by the session (SessionMachine's
                // store retries, about 4 minutes): reconnecting to the band would only start them over.
                let transient = error.isTransient && !(attempts != nil && error.isTransientStoreFailure)
                let retrying = transient && !stop.isRequested && attempts.map { attempt < $0 } ?? true
                // A vanished adapter is said in those words, and that the reader waits for it.
                report(.disconnected(adapterGone && retrying ? "\(error); waiting for the adapter to come back" : error.description))
                if progressed { backoff.succeeded() }
                guard transient, !stop.isRequested else { throw error }
                if let attempts, attempt >= attempts { throw error }
                let delay = backoff.nextDelay()
                if let deadline, ContinuousClock.now.advanced(by: delay) >= deadline {
                    // The deadline comes before the next attempt: the run ends without its link,
                    // which the outcome says (it used to end here in silence).
                    total.endedWithoutLink = error.description
                    return total
                }
                report(.reconnecting(after: delay))
                guard wait(delay) else {
                    total.stopped = true
                    return total
                }
            }
        }
    }

    /// One connection and its session, no retry: for a caller that decides reconnects itself
    /// (``BandReaderService`` does in ``stream(until:)``; a gateway serving many devices does in
    /// its own machine). `writer` is the run's store writer, reused across its connections.
    private func runConnection(_ goal: BandSession.Goal, attempt: Int, pairing: PairedBand?, store: ReaderStore,
                               writer: inout SampleWriter?, report: @escaping (ReaderEvent) -> Void) throws(SessionError) -> BandSession.Outcome {
        let connection = try connect(attempt: attempt)
        defer { connection.close() }
        let session = BandSession(connection: connection, address: address.keystoreKey, pairing: pairing,
                                  store: store, report: report)
        session.reusableWriter = writer
        defer { writer = session.reusableWriter }
        session.timeZone = timeZone
        session.setsClock = setsClock
        session.clockTolerance = clockTolerance
        session.historySyncInterval = historySyncInterval
        session.clockRereadInterval = clockRereadInterval
        session.storeRetrySchedule = storeRetrySchedule
        session.floodGuard = liveFloodGuard
        session.historyTurns = historyTurns
        session.now = now
        if let spoolDirectory {
            let spool = LiveSpool(path: spoolDirectory + "/" + LiveSpool.fileName(band: address.keystoreKey, store: StoreLocation.redacted(storePath)))
            session.spool = spool
            session.journal = LiveJournal(beside: spool)
        }
        return try session.run(goal)
    }

    /// Streams over one connection until it ends, is stopped or fails: no reconnect, no backoff
    /// (the caller decides those; `band gateway` does for every device it serves). The keystore
    /// entry is read afresh, the store opened once per service, and the store writer kept from
    /// this service's previous connection.
    ///
    /// The store is not opened here but when the session first writes: a store unreachable at
    /// the start (a server still starting, a disk not mounted) then costs the device nothing —
    /// its live minutes go to the spool, its history stays unacknowledged on the band, and
    /// both reach the store once it opens (``SessionMachine``'s outage rules).
    public func streamOnce(attempt: Int) throws(SessionError) -> BandSession.Outcome {
        let pairing: PairedBand?
        do { pairing = try keystore.band(address.keystoreKey) } catch { throw .keystore("\(error)") }
        let store = ReaderStore(opener: storeOpener, person: pairing?.person, bandAddress: address.keystoreKey)
        return try runConnection(.stream(until: nil), attempt: attempt, pairing: pairing, store: store, writer: &onceWriter, report: report)
    }

    private func connect(attempt: Int) throws(SessionError) -> BandConnection {
        report(.connecting(address: address.description, attempt: attempt))
        let bearer: any ATTBearer
        adapterGone = false
        do { bearer = try openLink(address) } catch {
            if let link = error as? LinkError, case .system(_, Errno.noSuchDevice.rawValue) = link { adapterGone = true }
            throw .connect("\(error)")
        }
        return try BandConnection(bearer: bearer, stop: stop, transactionTimeout: transactionTimeout)
    }

    /// Sleeps in `poll()` on the stop descriptor; false when stopped.
    private func wait(_ delay: Duration) -> Bool {
        let deadline = ContinuousClock.now.advanced(by: delay)
        var poller = Poller()
        if let fd = stop.pollDescriptor { poller.watch(fd) }
        while ContinuousClock.now < deadline {
            if stop.isRequested { return false }
            do { try poller.wait(until: deadline) } catch { return true }
            if let fd = stop.pollDescriptor, poller.isReady(fd) { stop.descriptorBecameReadable() }
        }
        return !stop.isRequested
    }
}
