import BandLink
import BandReader
import CommandKit
#if canImport(Glibc)
import Glibc
#endif
import HealthStore

/// The options every command that talks to a band shares, parsed and checked once.
struct ReaderOptions {
    static let linkSpecs: [OptionSpec] = [
        .argument("ADDRESS", help: "AA:BB:CC:DD:EE:FF (BlueZ) or sim:PATH (simulated band)"),
        .flag("random", help: "The Bluetooth address is a random (not public) LE address."),
        .option("hci", value: "hciN", help: "Bluetooth adapter (default hci0)."),
        .option("keystore", value: "PATH", help: "Keystore file (default $XDG_CONFIG_HOME/bandkit/keys.json)."),
    ]
    static let storeSpec: OptionSpec =
        .option("store", value: "PATH", help: "Health store: a file or a postgresql:// URL (default $BANDKIT_STORE or $XDG_DATA_HOME/bandkit/health.sqlite).")
    static let keepClockSpec: OptionSpec = .flag(
        "keep-band-clock", help: "Read the band's clock but do not set it (for a simulator running faster than real time).")
    static let recordSpec: OptionSpec = .option(
        "record", value: "TRACE", help: "Write every ATT PDU of the session to this btsnoop file (Wireshark, bandsim replay).")
    static let jsonSpec: OptionSpec = .flag("json", help: "Print NDJSON, one event per line, instead of text.")

    var address: BandAddress
    var keystore: Keystore
    var storePath: String
    /// The store as messages show it: a PostgreSQL URL without its password.
    var storeName: String
    var json: Bool
    var setsClock: Bool
    var recordPath: String?
    /// How a sync retries an unreachable store: standard, or `BANDKIT_STORE_RETRY` (for tests).
    var storeRetry = StoreRetrySchedule.standard

    init(_ arguments: ParsedArguments) throws(UsageError) {
        do {
            address = try BandAddress(parsing: arguments.required("ADDRESS"), random: arguments.flag("random"),
                                      adapter: arguments.value("hci") ?? "hci0")
        } catch {
            throw arguments.usageError("ADDRESS \(error)")
        }
        keystore = Keystore(path: arguments.value("keystore") ?? Keystore.defaultPath())
        storePath = arguments.value("store") ?? HealthStore.defaultPath()
        do { storeName = try StoreLocation.parse(storePath).redacted } catch {
            throw arguments.usageError("--store / BANDKIT_STORE: \(error)")
        }
        json = arguments.flag("json")
        setsClock = !arguments.flag("keep-band-clock")
        recordPath = arguments.value("record")
        storeRetry = try storeRetrySchedule(arguments)
    }

    /// Opens the `--record` trace, if asked for.
    func openRecording() throws -> SessionRecording? {
        guard let recordPath else { return nil }
        do { return try SessionRecording(path: recordPath) } catch {
            throw RuntimeFailure("band: --record \(recordPath): \(error)")
        }
    }
}

/// How a reader retries an unreachable store: standard, or `BANDKIT_STORE_RETRY` (for tests).
func storeRetrySchedule(_ arguments: ParsedArguments) throws(UsageError) -> StoreRetrySchedule {
    guard let text = getenv(StoreRetrySchedule.environmentVariable).map({ String(cString: $0) }) else { return .standard }
    switch StoreRetrySchedule.parse(text) {
    case .success(let schedule): return schedule
    case .failure(let problem):
        throw arguments.usageError("\(StoreRetrySchedule.environmentVariable) '\(text.terminalEscaped)': \(problem)")
    }
}

/// Parses `30`, `30s`, `5m`, `2h`, `1.5m` into a duration.
func parseDuration(_ text: String) -> Duration? {
    let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600)]
    for (suffix, scale) in units where text.hasSuffix(suffix) {
        guard let value = Double(text.dropLast(suffix.count)), value >= 0, value.isFinite else { return nil }
        return .milliseconds(Int64((value * scale * 1000).rounded()))
    }
    guard let seconds = Double(text), seconds >= 0, seconds.isFinite else { return nil }
    return .milliseconds(Int64((seconds * 1000).rounded()))
}

/// Maps a session failure to the exit code and message the command reports.
func failure(_ error: SessionError) -> any CommandFailure {
    RuntimeFailure("band: \(error)")
}

/// Ctrl-C and SIGTERM as a stop request. The signals are unblocked first: a process inherits its
/// parent's signal mask, and a parent that blocks them (a test runner, some supervisors) would
/// otherwise leave `band stream` deaf to Ctrl-C.
func installStopSignals() throws -> StopSignals {
    var signals = sigset_t()
    sigemptyset(&signals)
    sigaddset(&signals, SIGINT)
    sigaddset(&signals, SIGTERM)
    pthread_sigmask(SIG_UNBLOCK, &signals, nil)
    return try StopSignals()
}
