#if canImport(Glibc)
import Glibc
#endif
import BandGateway
import BandLink
import BandReader
import CommandKit
import FoundationEssentials
import HealthStore
import JSONOutput
import ServiceSupport

struct GatewayCommand: Command {
    static let configuration = CommandConfiguration(
        name: "gateway",
        abstract: "Keep every paired device synced, always on: connect when in range, sync history, stream live, reconnect.",
        discussion: """
            Serves every device in the keystore (or the --device addresses, or one --person's), each
            independently: connects when it is in range, authenticates or encrypts with its bond, sets
            its clock, syncs history, streams live readings, syncs history again every --sync-every,
            and reconnects with its own jittered backoff (a device that stays away costs a timer and a
            few log lines, then none until it is back). Devices paired with 'band pair' or removed with
            'band forget' while it runs are picked up (the keystore is watched; SIGHUP reloads it too).
            SIGTERM or Ctrl-C: live minutes are committed, links closed, exit within 5 s. One line per
            event on stderr with a syslog level prefix (<6>) journald reads; --json for NDJSON.
            One gateway per keystore: a second exits 1 naming the first one's PID. A malformed
            keystore exits 65 naming the file and where.
            """,
        options: [
            .option("device", value: "ADDRESS", repeats: true,
                    help: "Serve only this device (repeat for more); an address not in the keystore is served unpaired (a strap)."),
            .option("person", value: "NAME", help: "Serve only the devices paired for this person."),
            .flag("random", help: "Bluetooth addresses are random (not public) LE addresses."),
            .option("hci", value: "hciN", help: "Bluetooth adapter (default hci0)."),
            .option("keystore", value: "PATH", help: "Keystore file (default $XDG_CONFIG_HOME/bandkit/keys.json)."),
            ReaderOptions.storeSpec, ReaderOptions.keepClockSpec,
            .option("sync-every", value: "DURATION", help: "Sync history again this often while streaming (default 10m)."),
            .option("reconnect-max", value: "DURATION", help: "Longest wait between attempts to reach a device (default 60s)."),
            .flag("json", help: "Log NDJSON, one event per line, instead of text."),
            controlSocketSpec,
            .option("metrics", value: "HOST:PORT", help: "Serve Prometheus metrics at http://HOST:PORT/metrics (e.g. 127.0.0.1:9469)."),
        ])

    /// History syncs running at once; the store takes their commits one at a time anyway, so
    /// more only adds transfers and samples waiting in memory for it (docs/performance.md).
    static let historySyncsAtOnce = 4

    static let controlSocketSpec: OptionSpec = .option(
        "control-socket", value: "PATH", help: "The gateway's control socket, for 'band status' (default $XDG_RUNTIME_DIR/bandkit/gateway.sock).")

    var selection: GatewaySelection
    var random: Bool
    var adapter: String
    var keystore: Keystore
    var storePath: String
    var setsClock: Bool
    var syncEvery: Duration
    var reconnectMax: Duration
    var json: Bool
    var storeRetry = StoreRetrySchedule.standard
    var controlSocket: String
    var metrics: MetricsListenAddress?

    init(arguments: ParsedArguments) throws(UsageError) {
        random = arguments.flag("random")
        adapter = arguments.value("hci") ?? "hci0"
        var addresses: [String] = []
        for text in arguments.values("device") {
            do { addresses.append(try BandAddress(parsing: text, random: random, adapter: adapter).keystoreKey) } catch {
                throw arguments.usageError("--device \(error)")
            }
        }
        let person = arguments.value("person")
        if let person, let problem = Person.problem(withName: person) { throw arguments.usageError("--person: the name \(problem)") }
        selection = GatewaySelection(addresses: addresses, person: person)
        keystore = Keystore(path: arguments.value("keystore") ?? Keystore.defaultPath())
        storePath = arguments.value("store") ?? HealthStore.defaultPath()
        do { _ = try StoreLocation.parse(storePath) } catch { throw arguments.usageError("--store / BANDKIT_STORE: \(error)") }
        setsClock = !arguments.flag("keep-band-clock")
        syncEvery = try arguments.value("sync-every", as: "a duration such as 10m", parseDuration) ?? .seconds(600)
        guard syncEvery > .zero else { throw arguments.usageError("--sync-every must be longer than 0") }
        reconnectMax = try arguments.value("reconnect-max", as: "a duration such as 60s", parseDuration) ?? .seconds(60)
        guard reconnectMax >= .seconds(1) else { throw arguments.usageError("--reconnect-max must be at least 1s") }
        json = arguments.flag("json")
        controlSocket = arguments.value("control-socket") ?? ControlSocketClient.defaultPath(name: "gateway.sock")
        if let text = arguments.value("metrics") {
            do { metrics = try MetricsListenAddress(parsing: text) } catch { throw arguments.usageError("--metrics: \(error)") }
        }
        storeRetry = try storeRetrySchedule(arguments)
    }

    mutating func run() throws -> ExitCode {
        let log = GatewayLogPrinter(log: ServiceLog(format: json ? .json : .text))
        if !GatewayMemory.capArenas() { log.write(.warning, nil, "cannot cap malloc's arenas (mallopt): memory grows with the devices' threads") }
        let notifier: ServiceNotifier
        do { notifier = try ServiceNotifier() } catch { throw RuntimeFailure("band gateway: NOTIFY_SOCKET: \(error)") }
        do { try keystore.prepareDirectory() } catch { throw RuntimeFailure("band gateway: \(error)") }
        let lock: GatewayLock
        do { lock = try GatewayLock(keystorePath: keystore.path) } catch { throw RuntimeFailure("band gateway: \(error)") }
        defer { withExtendedLifetime(lock) {} }
        let bands: [PairedBand]
        do { bands = try keystore.load() } catch { throw DataError("band gateway: \(error)") }
        let selection = self.selection
        let keystore = self.keystore
        var forgotten = Set<String>()
        var everPaired = Set(bands.map(\.address))
        let devices = selection.devices(from: bands, forgotten: forgotten)
        if devices.isEmpty {
            log.write(.warning, nil, "no devices to serve in \(keystore.path) yet; waiting for 'band pair'")
        }
        let signals = try installGatewaySignals()
        defer { signals.restore() }
        let backoff = ReconnectBackoff(initial: .seconds(1), maximum: reconnectMax)
        // One store connection per person for every device: the store's one writer (devices'
        // writes queue on it rather than race for SQLite's file lock), one page cache.
        let storeOpener = StoreOpener(path: storePath)
        // A few history syncs at once, the others wait their turn: fifty devices connecting
        // together would otherwise all hold a day of records and its samples at the same time.
        let historyTurns = HistorySyncTurns(limit: Self.historySyncsAtOnce)
        // Bluetooth devices are connected by the kernel when they are in range (Add Device); a
        // machine without Bluetooth (the simulator's sockets only) goes without.
        var connector: KernelAutoConnect?
        do { connector = try KernelAutoConnect(adapter: adapter, random: random, keyFile: keystore.smpKeysPath) } catch {
            if devices.contains(where: { !$0.address.hasPrefix("sim:") }) {
                log.write(.warning, nil, "no background connections on \(adapter) (\(error)): Bluetooth devices are tried on a timer")
            }
        }
        defer { connector?.close() }
        let inBackground: (GatewayDevice) -> Bool = { [connector] device in connector?.serves(device) ?? false }
        let status = GatewayStatus(dayStart: { date in
            let offset = Double(SystemTimeZone().secondsFromGMT(for: date))
            let local = date.timeIntervalSince1970 + offset
            return Date(timeIntervalSince1970: (local / 86_400).rounded(.down) * 86_400 - offset)
        })
        let engine = GatewayEngine(
            machine: GatewayMachine(backoff: backoff, inBackground: inBackground), status: status, keystorePath: keystore.path,
            loadDevices: {
                let bands = try keystore.load()
                let addresses = Set(bands.map(\.address))
                forgotten.formUnion(everPaired.subtracting(addresses))
                forgotten.subtract(addresses)
                everPaired.formUnion(addresses)
                return selection.devices(from: bands, forgotten: forgotten)
            },
            makeService: { [self, connector] device, stop, report in
                try makeService(device, stop, report, storeOpener, historyTurns, connector: connector)
            },
            log: log.write)
        // The control socket: `status` and `status --json`; anything else is dropped unanswered.
        let control: ControlSocketServer
        do {
            control = try ControlSocketServer(path: controlSocket, createDirectory: true) { line in
                switch line {
                case "status": Array(GatewayStatusText.render(status.snapshot(), at: Date()).utf8)
                case "status --json": Array((status.snapshot().json(at: Date()) + "\n").utf8)
                default: nil
                }
            }
        } catch { throw RuntimeFailure("band gateway: control socket: \(error)") }
        engine.sources.append(control)
        engine.connector = connector
        if let metrics {
            let exporter = GatewayMetrics()
            let server: MetricsHTTPServer
            do { server = try MetricsHTTPServer(listeningOn: metrics) { exporter.exposition(of: status, at: Date()) } } catch {
                throw RuntimeFailure("band gateway: --metrics: \(error)")
            }
            engine.sources.append(server)
            log.write(.info, nil, "metrics at http://\(server.address)/metrics")
        }
        engine.onReady = {
            log.write(.notice, nil, "serving \(devices.count) device\(devices.count == 1 ? "" : "s") from \(keystore.path)")
            do { try notifier.ready(status: status.snapshot().statusLine) } catch { log.write(.warning, nil, "sd_notify: \(error)") }
        }
        // WATCHDOG=1 when due, and STATUS= kept current, from the loop: a hung loop misses both.
        var nextTrim = ContinuousClock.now.advanced(by: .seconds(60))
        engine.heartbeat = (interval: notifier.watchdogInterval.map { min($0, .seconds(10)) } ?? .seconds(10), beat: {
            if ContinuousClock.now >= nextTrim {
                GatewayMemory.trim()
                nextTrim = ContinuousClock.now.advanced(by: .seconds(60))
            }
            do {
                _ = try notifier.watchdog()
                try notifier.status(status.snapshot().statusLine)
            } catch { log.write(.warning, nil, "sd_notify: \(error)") }
        })
        let abandoned = try engine.run(devices: devices, signals: signals)
        try? notifier.stopping()
        log.write(.notice, nil, abandoned.isEmpty ? "stopped" : "stopped; \(abandoned.count) session(s) had not ended")
        return .success
    }

    private func makeService(_ device: GatewayDevice, _ stop: StopRequest, _ report: @escaping (ReaderEvent) -> Void,
                             _ storeOpener: StoreOpener, _ historyTurns: HistorySyncTurns,
                             connector: KernelAutoConnect?) throws -> BandReaderService {
        let address = try BandAddress(parsing: device.address, random: random, adapter: adapter)
        var opener = LinkOpener(keystore: keystore, secure: device.paired, onRecordingError: { _ in })
        if let connector, connector.serves(device) { opener.handedLink = connector.takeLink }
        let service = BandReaderService(address: address, keystore: keystore, storePath: storePath, stop: stop,
                                        openLink: opener.open, report: { event in
                                            report(event)
                                            // A history commit frees most of what it allocated, but
                                            // malloc keeps it until trimmed: measured, 20 MB of a
                                            // first-sync peak went back at once (docs/performance.md).
                                            if case .historyCommitted = event { GatewayMemory.trim() }
                                        })
        service.setsClock = setsClock
        service.historySyncInterval = syncEvery
        service.storeRetrySchedule = storeRetry
        service.storeOpener = storeOpener
        service.historyTurns = historyTurns
        service.liveFloodGuard = LiveFloodGuard()
        return service
    }
}

/// SIGINT and SIGTERM stop the gateway, SIGHUP reloads the keystore; unblocked first, as for
/// `band stream` (a supervisor may start it with them blocked).
func installGatewaySignals() throws -> StopSignals {
    var signals = sigset_t()
    sigemptyset(&signals)
    for signal in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&signals, signal) }
    pthread_sigmask(SIG_UNBLOCK, &signals, nil)
    return try StopSignals([SIGINT, SIGTERM, SIGHUP])
}

/// The gateway's log lines on stderr through `ServiceLog`: `<N>` (the syslog level journald
/// reads), the message and `device=`, or NDJSON with --json. Called from the sessions' threads:
/// `ServiceLog` holds nothing that changes after it is made and writes each line with one
/// write(2), so lines never interleave.
struct GatewayLogPrinter: @unchecked Sendable {
    let log: ServiceLog

    func write(_ level: GatewayLogLevel, _ device: String?, _ message: String) {
        let level = LogLevel(rawValue: Int32(level.rawValue)) ?? .info
        if let device { log.log(level, message, ["device": .text(device)]) } else { log.log(level, message) }
    }
}
