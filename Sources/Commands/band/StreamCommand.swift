import BandLink
import BandReader
import CommandKit

struct StreamCommand: Command {
    static let configuration = CommandConfiguration(
        name: "stream",
        abstract: "Sync history, then stream live heart rate, RR, steps, cadence and battery into the store.",
        discussion: """
            Prints one line per live reading (NDJSON with --json). Reconnects with jittered exponential
            backoff and syncs history again after every reconnect. Ctrl-C stops cleanly: everything
            received so far is committed. With --for, stops after that long (e.g. 30s, 5m, 2h) and
            syncs history once more so the band's records replace the provisional live minutes.
            Exits 1 when the stream ends at its deadline without ever connecting, disconnected (the
            link lost and not back before the deadline, e.g. the adapter gone), or without
            committing a single minute to the store.
            """,
        options: ReaderOptions.linkSpecs + [ReaderOptions.storeSpec, ReaderOptions.jsonSpec, ReaderOptions.keepClockSpec, ReaderOptions.recordSpec,
                                            .option("for", value: "DURATION", help: "Stop after this long (default: until Ctrl-C)."),
                                            .option("sync-every", value: "DURATION",
                                                    help: "Sync history again this often while streaming (default 10m; 0 disables).")])

    var options: ReaderOptions
    var duration: Duration?
    var syncEvery: Duration?

    init(arguments: ParsedArguments) throws(UsageError) {
        options = try ReaderOptions(arguments)
        duration = try arguments.value("for", as: "a duration such as 30s, 5m or 2h", parseDuration)
        let every = try arguments.value("sync-every", as: "a duration such as 10m, or 0", parseDuration) ?? .seconds(600)
        syncEvery = every == .zero ? nil : every
    }

    mutating func run() throws -> ExitCode {
        let recording = try options.openRecording()
        defer {
            // A trace that cannot be completed is reported, not dropped in silence.
            do { try recording?.close() } catch { CommandRunner.printError("band: --record: \(error)") }
        }
        let printer = EventPrinter(json: options.json, showReadings: true)
        let signals = try installStopSignals()
        defer { signals.restore() }
        let stop = StopRequest(signals: signals)
        let service = BandReaderService(address: options.address, keystore: options.keystore, storePath: options.storePath,
                                        stop: stop, openLink: options.linkOpener(pairing: false, recording: recording).open, report: printer.handle)
        let deadline = duration.map { ContinuousClock.now.advanced(by: $0) }
        service.setsClock = options.setsClock
        service.storeRetrySchedule = options.storeRetry
        service.historySyncInterval = syncEvery
        let outcome: BandSession.Outcome
        do { outcome = try service.stream(until: deadline) } catch { throw failure(error) }
        if outcome.stopped {
            printer.handle(.stopped)
            return .success
        }
        // The deadline passed: a stream that never reached the band, or reached it and stored
        // nothing, failed, however quietly: a script must not read exit 0 as "streamed".
        if outcome.connections == 0 {
            let attempts = outcome.attempts == 1 ? "1 attempt" : "\(outcome.attempts) attempts"
            throw RuntimeFailure("band: stream: never connected to \(options.address) (\(attempts) before the --for deadline)")
        }
        if let why = outcome.endedWithoutLink {
            throw RuntimeFailure("band: stream: the --for deadline came while disconnected from \(options.address), before the next reconnect: \(why)")
        }
        if outcome.committedMinutes == 0 {
            let connections = outcome.connections == 1 ? "1 connection" : "\(outcome.connections) connections"
            throw RuntimeFailure("band: stream: nothing was committed to \(options.storeName.terminalEscaped) (\(connections), no history or live minute stored)")
        }
        return .success
    }
}
