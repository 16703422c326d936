#if canImport(Glibc)
import Glibc
#endif
import BandKitSystem
import BandLink
import BandReader
import FoundationEssentials
import ServiceSupport

/// Runs the gateway: one `poll()` loop over the stop signals, the keystore watch, the session
/// threads' inbox and the caller's `PollDriven` sources (a control socket, a metrics server),
/// sleeping until the machine's next timer; every decision is ``GatewayMachine``'s, and each
/// device's sessions run on a thread of their own (`BandSession` blocks on its link).
public final class GatewayEngine {
    /// Builds a device's reader service around its stop request and the report callback the
    /// engine counts and logs from (called on the device's session thread).
    public typealias ServiceMaker = (GatewayDevice, StopRequest, @escaping (ReaderEvent) -> Void) throws -> BandReaderService
    /// One log line: level, the device it is about (nil: the gateway), the message.
    public typealias Log = @Sendable (GatewayLogLevel, String?, String) -> Void

    public let status: GatewayStatus
    /// Called once the devices are loaded and the loop is about to start (systemd's READY=1).
    public var onReady: () -> Void = {}
    /// Called from the loop at least every `interval` (systemd's WATCHDOG=1, STATUS=).
    public var heartbeat: (interval: Duration, beat: () -> Void)?

    private var machine: GatewayMachine
    private let keystorePath: String
    private let loadDevices: () throws -> [GatewayDevice]
    private let makeService: ServiceMaker
    private let log: Log
    private var workers: [String: DeviceWorker] = [:]
    /// Workers asked to stop: their stop request is spent, so the next attempt gets a new one.
    private var stopped: Set<String> = []
    private var progressed: Set<String> = []
    /// Driven by the loop with its own descriptors: the control socket, the metrics server.
    public var sources: [any PollDriven] = []
    /// The system's background connections (BlueZ: the kernel's auto-connect list); the machine
    /// must have been made with its ``BackgroundConnector/serves(_:)``.
    public var connector: (any BackgroundConnector)?
    private var exitedAbandoning: [String]?
    private let outages = StoreOutageLog()

    /// `loadDevices` reads the keystore (at start and after every change) and selects the devices.
    public init(machine: GatewayMachine, status: GatewayStatus, keystorePath: String,
                loadDevices: @escaping () throws -> [GatewayDevice], makeService: @escaping ServiceMaker, log: @escaping Log) {
        self.machine = machine
        self.status = status
        self.keystorePath = keystorePath
        self.loadDevices = loadDevices
        self.makeService = makeService
        self.log = log
    }

    /// Serves `devices` until SIGINT/SIGTERM (SIGHUP reloads the keystore): returns the devices
    /// whose sessions had not ended when the stop's grace ran out (normally none).
    public func run(devices: [GatewayDevice], signals: StopSignals) throws -> [String] {
        let inbox: GatewayInbox
        do { inbox = try GatewayInbox() } catch { throw LinkError.system("pipe", error) }
        defer { inbox.close() }
        let keystoreWatch = KeystoreWatch(keystorePath: keystorePath)
        perform(machine.devicesLoaded(devices, at: .now), inbox: inbox)
        onReady()
        var nextBeat = heartbeat.map { ContinuousClock.now.advanced(by: $0.interval) }
        var descriptors: [pollfd] = []
        while exitedAbandoning == nil {
            descriptors.removeAll(keepingCapacity: true)
            descriptors.append(pollfd(fd: signals.pollDescriptor, events: Int16(POLLIN), revents: 0))
            descriptors.append(pollfd(fd: inbox.pollDescriptor, events: Int16(POLLIN), revents: 0))
            descriptors.append(pollfd(fd: keystoreWatch.pollDescriptor ?? -1, events: Int16(POLLIN), revents: 0))
            let linkDescriptors = connector?.pollDescriptors ?? []
            for fd in linkDescriptors { descriptors.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0)) }
            let sourcesStart = 3 + linkDescriptors.count
            for source in sources { source.appendPollDescriptors(to: &descriptors) }
            var deadline = ([machine.nextWake, nextBeat] + sources.map(\.nextDeadline)).compactMap { $0 }.min()
            if connector?.hasPendingChanges == true { deadline = .now }
            let wait = deadline.map { max(.zero, $0 - ContinuousClock.now) }
            if case .failure(let error) = descriptors.withUnsafeMutableBufferPointer({ SystemCalls.live.poll($0, timeout: wait) }) {
                log(.error, nil, "poll: \(error)")
                perform(machine.stopRequested(at: .now), inbox: inbox)
            }
            if descriptors[0].revents != 0 {
                for signal in signals.received() {
                    if signal == SIGHUP {
                        reload(why: "SIGHUP", inbox: inbox)
                    } else {
                        perform(machine.stopRequested(at: .now), inbox: inbox)
                    }
                }
            }
            if descriptors[2].revents != 0, keystoreWatch.keystoreChanged() {
                reload(why: "keystore changed", inbox: inbox)
            }
            if descriptors[1].revents != 0 {
                for message in inbox.take() { handle(message, inbox: inbox) }
            }
            if descriptors[3..<sourcesStart].contains(where: { $0.revents != 0 }) || connector?.hasPendingChanges == true {
                takeLinkChanges(inbox: inbox)
            }
            // A status client or a scrape gets a bounded share of the turn: the devices come first.
            for source in sources { source.handle(descriptors[sourcesStart...], now: .now, budget: .milliseconds(20)) }
            perform(machine.tick(at: .now), inbox: inbox)
            if let heartbeat, let beat = nextBeat, ContinuousClock.now >= beat {
                heartbeat.beat()
                nextBeat = ContinuousClock.now.advanced(by: heartbeat.interval)
            }
        }
        let abandoned = exitedAbandoning ?? []
        for (address, worker) in workers where !abandoned.contains(address) { worker.close() }
        workers = [:]
        return abandoned
    }

    private func takeLinkChanges(inbox: GatewayInbox) {
        guard let connector else { return }
        let changes: [LinkChange]
        do { changes = try connector.changes() } catch {
            log(.error, nil, "background connections: \(error)")
            return
        }
        for change in changes {
            switch change {
            case .up(let address): perform(machine.linkUp(address, at: .now), inbox: inbox)
            case .down(let address): perform(machine.linkDown(address, at: .now), inbox: inbox)
            }
        }
    }

    private func reload(why: String, inbox: GatewayInbox) {
        let devices: [GatewayDevice]
        do { devices = try loadDevices() } catch {
            // A keystore that cannot be read now keeps the devices being served: a half-edited
            // file must not stop every session.
            log(.error, nil, "\(why), but it cannot be read; serving the devices loaded before: \(error)")
            return
        }
        perform(machine.devicesLoaded(devices, at: .now), inbox: inbox)
    }

    private func handle(_ message: GatewayInbox.Message, inbox: GatewayInbox) {
        switch message {
        case .connected(let address):
            perform(machine.connected(address, at: .now), inbox: inbox)
        case .progressed(let address):
            progressed.insert(address)
        case .ended(let address, let error):
            status.sessionEnded(address, error: error)
            let madeProgress = progressed.remove(address) != nil
            // A worker asked to stop has spent its stop request: a device started again (paired
            // anew, its entry changed) gets a new one.
            if stopped.contains(address) { retire(address) }
            perform(machine.attemptEnded(address, progressed: madeProgress, error: error, at: .now), inbox: inbox)
            if machine.phase(of: address) == nil { retire(address) }
        }
    }

    private func retire(_ address: String) {
        workers.removeValue(forKey: address)?.close()
        stopped.remove(address)
    }

    private func perform(_ actions: [GatewayMachine.Action], inbox: GatewayInbox) {
        for action in actions {
            switch action {
            case .start(let device, let attempt):
                start(device, attempt: attempt, inbox: inbox)
            case .stop(let address):
                stopped.insert(address)
                workers[address]?.requestStop()
            case .watch(let address):
                watch(address, inbox: inbox)
            case .unwatch(let address):
                do { try connector?.remove(address) } catch {
                    log(.warning, address, "the system may go on connecting it: \(error)")
                }
            case .release(let address):
                do { try connector?.release(address) } catch {
                    log(.warning, address, "cannot drop its idle link: \(error)")
                }
            case .log(let level, let address, let message):
                log(level, address, message)
            case .exit(let abandoned):
                exitedAbandoning = abandoned
            }
        }
        if !actions.isEmpty { status.setDevices(machine.devices) }
    }

    private func watch(_ address: String, inbox: GatewayInbox) {
        guard let connector else {
            perform(machine.watchFailed(address, error: "no background connections here", at: .now), inbox: inbox)
            return
        }
        do {
            if try connector.add(address) { perform(machine.linkHeldElsewhere(address, at: .now), inbox: inbox) }
        } catch {
            perform(machine.watchFailed(address, error: "\(error)", at: .now), inbox: inbox)
        }
    }

    private func start(_ device: GatewayDevice, attempt: Int, inbox: GatewayInbox) {
        let address = device.address
        if let worker = workers[address], worker.device != device { retire(address) }
        let worker: DeviceWorker
        if let existing = workers[address] {
            worker = existing
        } else {
            let status = self.status
            let log = self.log
            let outages = self.outages
            do {
                worker = try DeviceWorker(device: device) { device, stop in
                    try makeService(device, stop) { event in
                        status.record(event, from: address, at: Date())
                        Self.note(event, address: address, inbox: inbox, log: log, outages: outages, status: status)
                    }
                }
            } catch {
                inbox.post(.ended(address: address, error: "cannot start: \(error)"))
                return
            }
            workers[address] = worker
        }
        do {
            try worker.start(attempt: attempt) { error in inbox.post(.ended(address: address, error: error?.description)) }
        } catch {
            inbox.post(.ended(address: address, error: "cannot start a thread: \(error)"))
        }
    }

    /// What a session's events mean to the loop, and which are worth a log line (not readings:
    /// a stream's every reading is in the counters, never in the log).
    private static func note(_ event: ReaderEvent, address: String, inbox: GatewayInbox, log: Log, outages: StoreOutageLog,
                             status: GatewayStatus) {
        switch event {
        case .connected:
            inbox.post(.connected(address: address))
        case .authenticated, .streaming:
            inbox.post(.progressed(address: address))
        case .historyCommitted(let minutes, let cursor, _):
            inbox.post(.progressed(address: address))
            log(.info, address, "history: \(minutes) minute\(minutes == 1 ? "" : "s") committed, cursor \(cursor.stored)")
        case .readingsDropped(let count) where status.snapshot().devices.first(where: { $0.address == address })?.readingsDropped == count:
            // The first drop of the device in this gateway's life: the counters say the rest.
            log(.warning, address, "notifies faster than \(LiveFloodGuard.standardRate) readings a second: readings beyond that are dropped and counted (band status, /metrics)")
        case .historyDiscarded(let why):
            log(.warning, address, "history transfer discarded: \(why)")
        case .clockSet(let setting):
            log(.info, address, "clock set: \(setting)")
        case .storeUnavailable(let outage):
            if let line = outages.unavailable(address, reason: outage.reason) { log(.warning, nil, line) }
            if outage.droppedMinutes > 0 { log(.warning, address, "the spool is full: \(outage.droppedMinutes) live minutes not kept") }
        case .storeAvailable(let replayed):
            if let line = outages.available(address, replayed: replayed) { log(.notice, nil, line) }
        default:
            break
        }
    }
}
