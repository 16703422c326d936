import BandLink
import BandReader
import CommandKit
import JSONOutput

struct SyncCommand: Command {
    static let configuration = CommandConfiguration(
        name: "sync",
        abstract: "Sync the band's minute history since the stored cursor into the store, then exit.",
        discussion: "Reconnects after a lost link and resumes from the cursor, up to --attempts connections.",
        options: ReaderOptions.linkSpecs + [ReaderOptions.storeSpec, ReaderOptions.jsonSpec, ReaderOptions.keepClockSpec, ReaderOptions.recordSpec,
                                            .option("attempts", value: "N", help: "Connections to try before giving up (default 10).")])

    var options: ReaderOptions
    var attempts: Int

    init(arguments: ParsedArguments) throws(UsageError) {
        options = try ReaderOptions(arguments)
        attempts = try arguments.value("attempts", as: "a positive number", { Int($0).flatMap { $0 > 0 ? $0 : nil } }) ?? 10
    }

    mutating func run() throws -> ExitCode {
        let recording = try options.openRecording()
        defer {
            // A trace that cannot be completed is reported, not dropped in silence.
            do { try recording?.close() } catch { CommandRunner.printError("band: --record: \(error)") }
        }
        let printer = EventPrinter(json: options.json, showReadings: false)
        let signals = try installStopSignals()
        defer { signals.restore() }
        let service = BandReaderService(address: options.address, keystore: options.keystore, storePath: options.storePath,
                                        stop: StopRequest(signals: signals), openLink: options.linkOpener(pairing: false, recording: recording).open, report: printer.handle)
        service.setsClock = options.setsClock
        service.storeRetrySchedule = options.storeRetry
        let outcome: BandSession.Outcome
        do { outcome = try service.sync(attempts: attempts) } catch { throw failure(error) }
        if outcome.stopped {
            printer.handle(.stopped)
            return .failure
        }
        if options.json {
            writeJSONLine { json in
                json.beginObject()
                json.key("event"); json.value(verbatim: "synced")
                json.key("minutes"); json.value(outcome.historyMinutes)
                json.key("store"); json.value(options.storeName)
                json.endObject()
            }
        } else {
            writeLine("synced \(outcome.historyMinutes) minutes into \(options.storeName.terminalEscaped)")
        }
        return .success
    }
}
