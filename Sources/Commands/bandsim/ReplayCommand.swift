#if canImport(Glibc)
import Glibc
#endif
import BandATT
import BandLink
import BandProtocol
import BandReader
import BandReplay
import BandTrace
import BandWire
import CommandKit
import Foundation
import HealthStore

/// `bandsim replay TRACE (--serve | --into STORE) …`: a recorded session played again, either
/// to a live reader as the recorded peripheral, or straight into a health store through the
/// reader's own code.
struct ReplayCommand: Command {
    static let configuration = CommandConfiguration(
        name: "replay",
        abstract: "Replay a btsnoop, pcapng or pcap trace: serve it to a live reader, or feed it into a health store.",
        discussion: """
            --serve acts as the recorded peripheral on a Unix SOCK_SEQPACKET socket (the one `band` \
            connects to): it answers MTU exchange, discovery and reads from the GATT database the trace \
            reveals (Attribute Not Found / Invalid Handle / Read Not Permitted for what the trace never \
            showed), accepts CCCD writes, and re-emits the recorded notifications with their recorded \
            gaps divided by --speed (--speed max: as fast as the reader takes them). A notification \
            that followed a client write in the trace waits for the live client's write. One client \
            is served; the link is closed at the recorded end of the connection.

            --into feeds every notification through the reader's own notification handling, minute \
            aggregation and store writes; a second replay of the same trace changes nothing.

            Damage, the same rule as `bandsim decode`: a malformed HCI packet or L2CAP fragment, a \
            malformed ATT PDU, a file cut off inside its last record, or broken btsnoop framing. \
            Without --keep-going reading stops at the first damaged record (exit 65, with record index \
            and byte offset). --keep-going skips damaged records (the first 10 listed, the rest counted \
            in one summary line) and exits 0 unless the btsnoop framing itself breaks before the end \
            of the file (exit 65).
            """,
        options: [
            .argument("TRACE", help: "The trace: btsnoop (datalink 1001, 1002 or 2001), or pcapng/pcap (link type 187, 201 or 254)."),
            .option("format", value: "btsnoop|pcapng|pcap", help: "Read TRACE as this format (default: detected from its magic)."),
            .option("into", value: "STORE", help: "Feed the trace into this health store, a file or a postgresql:// URL (the default action; default store: \(StoreLocation.redacted(HealthStore.defaultPath())))."),
            .option("store", value: "STORE", help: "Same as --into."),
            .option("device", value: "ID", help: "With --into: the device identity for sync identifiers (default: serial number, else peer address)."),
            .option("source", value: "NAME", help: "With --into: the device name stored with the samples (default: the trace's Device Name)."),
            .flag("serve", help: "Serve the trace to a live reader instead."),
            .option("socket", value: "PATH", help: "Socket to listen on with --serve (default: \(SocketPath.defaultPath()))."),
            .option("speed", value: "X|max", help: "Replay speed for --serve: a factor on recorded time (default 1), or max (--into: always max)."),
            .option("record", value: "TRACE", help: "With --serve: record the served session as a btsnoop trace (H4), as the band's end sees it."),
            .option("keystore", value: "PATH", help: "With --serve: the reader's keystore, to answer a BandKit band's authentication live (default: \(Keystore.defaultPath()))."),
            .option("connection", value: "HANDLE", help: "Replay this HCI connection (default: the one with the most notifications)."),
            .option("map", value: "HANDLE=UUID", repeats: true, help: "Treat HANDLE as characteristic UUID when the trace lacks discovery."),
            .flag("keep-going", help: TraceDamageRule.keepGoingHelp),
            .flag("progress", help: "Show the progress bar even when stderr is not a terminal."),
        ])

    enum Mode {
        case serve(socket: String, speed: ReplaySpeed, keystore: String, record: String?)
        case into(store: String, device: String?, source: String?)
    }

    var path: String
    var mode: Mode
    var connection: UInt16?
    var overrides: [UInt16: BluetoothUUID] = [:]
    var format: TraceFileFormat?
    var keepGoing: Bool
    var forceProgress: Bool

    init(arguments: ParsedArguments) throws(UsageError) {
        path = arguments.required("TRACE")
        keepGoing = arguments.flag("keep-going")
        forceProgress = arguments.flag("progress")
        format = try arguments.value("format", as: "btsnoop, pcapng or pcap", TraceFileFormat.init(rawValue:))
        for mapping in arguments.values("map") {
            guard let (handle, uuid) = DecodeCommand.parseMapping(mapping) else {
                throw arguments.usageError("--map '\(mapping)' is not HANDLE=UUID (e.g. 0x0012=2a37 or 18=2a37)")
            }
            overrides[handle] = uuid
        }
        connection = try arguments.value("connection", as: "a connection handle (decimal or 0x-hex, 0–0x0EFF)") { text in
            let lower = text.lowercased()
            let value = lower.hasPrefix("0x") ? UInt16(lower.dropFirst(2), radix: 16) : UInt16(lower)
            return value.flatMap { $0 <= 0x0EFF ? $0 : nil }
        }
        if arguments.value("into") != nil, arguments.value("store") != nil {
            throw arguments.usageError("--into and --store name the same thing; give one")
        }
        let store = arguments.value("into") ?? arguments.value("store")
        if arguments.flag("serve") {
            if store != nil { throw arguments.usageError("--serve and --into are two different replays; choose one") }
            for option in ["device", "source"] where arguments.value(option) != nil {
                throw arguments.usageError("--\(option) applies to --into, not --serve")
            }
            let speed = try arguments.value("speed", as: "a positive factor or max", ReplaySpeed.init(argument:)) ?? .realTime
            mode = .serve(socket: arguments.value("socket") ?? SocketPath.defaultPath(), speed: speed,
                          keystore: arguments.value("keystore") ?? Keystore.defaultPath(), record: arguments.value("record"))
        } else {
            for option in ["socket", "keystore", "record"] where arguments.value(option) != nil {
                throw arguments.usageError("--\(option) applies to --serve")
            }
            if let speed = arguments.value("speed"), speed.lowercased() != "max" {
                throw arguments.usageError("--speed \(speed): a replay into a store always runs as fast as it can (--speed max)")
            }
            if let device = arguments.value("device"), device.isEmpty { throw arguments.usageError("--device needs a non-empty identity") }
            let target = store ?? HealthStore.defaultPath()
            do { _ = try StoreLocation.parse(target) } catch { throw arguments.usageError("--into: \(error)") }
            mode = .into(store: target, device: arguments.value("device"), source: arguments.value("source"))
        }
    }

    func run() throws -> ExitCode {
        switch mode {
        case .serve(let socket, let speed, let keystore, let record):
            return try serve(socket: socket, speed: speed, keystore: keystore, record: record)
        case .into(let store, let device, let source):
            return try into(storePath: store, device: device, source: source)
        }
    }

    // MARK: --into

    private func into(storePath: String, device: String?, source: String?) throws -> ExitCode {
        var options = TraceStoreReplay.Options()
        options.connectionHandle = connection
        options.device = device
        options.sourceName = source
        options.keepGoing = keepGoing
        options.overrides = overrides
        options.format = format
        let store: HealthStore
        // Messages name a PostgreSQL store by its URL without the password.
        let storeName = StoreLocation.redacted(storePath)
        do { store = try HealthStore(path: storePath) } catch {
            throw RuntimeFailure("bandsim replay: cannot open the store \(storeName): \(error)")
        }
        let replay = TraceStoreReplay(path: path, options: options)
        let progress = ReplayProgress(forced: forceProgress, unit: "bytes")
        replay.progress = { done, total in progress.update(done, of: total) }
        let started = ContinuousClock.now
        do {
            let summary = try replay.run(into: store)
            progress.finish()
            printStoreSummary(summary, store: storeName, elapsed: ContinuousClock.now - started)
            return .success
        } catch let damage as TraceDamage {
            progress.finish()
            throw failure(damage)
        } catch TraceStoreReplay.Failure.damaged(let damage, let summary) {
            progress.finish()
            printStoreSummary(summary, store: storeName, elapsed: ContinuousClock.now - started)
            throw failure(damage)
        } catch let failure as TraceStoreReplay.Failure {
            progress.finish()
            if case .unidentifiedDevice = failure { throw DataError("bandsim replay: \(path): \(failure)") }
            throw RuntimeFailure("bandsim replay: \(path): \(failure)")
        }
    }

    // MARK: --serve

    private func serve(socket: String, speed: ReplaySpeed, keystore: String, record: String?) throws -> ExitCode {
        let (recording, outcome) = try load()
        guard let side = recording.side(onConnectionHandle: connection) else {
            let which = connection.map { " on connection 0x\(String($0, radix: 16))" } ?? ""
            throw DataError("bandsim replay: \(path): no GATT server traffic\(which) to serve (no discovery responses, reads or notifications)")
        }
        let database = recording.database(side)
        let timeline = recording.timeline(side)
        let responder = try authResponder(for: database, keystore: keystore)
        let session = ReplayServeSession(database: database, timeline: timeline, speed: speed, authResponder: responder)
        note("""
            serving \(side.connection) of \(path) (\(side.server)): \(database.services.count) services, \
            \(database.characteristics.count) characteristics, \(timeline.count) notifications at speed \(speed)
            """)

        let stop: StopSignals
        let listener: SeqPacketListener
        do throws(LinkError) {
            stop = try StopSignals()
            try SocketPath.prepareDirectory(String(socket[..<(socket.lastIndex(of: "/") ?? socket.startIndex)]).nonEmpty ?? ".")
            listener = try SeqPacketListener(path: socket)
        } catch {
            throw RuntimeFailure("bandsim replay: \(error)")
        }
        defer {
            listener.close()
            stop.restore()
        }
        note("listening on \(socket)")
        var poller = Poller()
        poller.watch(listener.pollDescriptor)
        poller.watch(stop.pollDescriptor)
        let link: SeqPacketLink
        do throws(LinkError) {
            while true {
                try poller.wait(timeout: nil)
                if poller.isReady(stop.pollDescriptor) {
                    note("stopped before a reader connected")
                    return .success
                }
                if let accepted = try listener.accept(timeout: .zero) {
                    link = accepted
                    break
                }
            }
        } catch {
            throw RuntimeFailure("bandsim replay: \(error)")
        }

        let progress = ReplayProgress(forced: forceProgress, unit: "notifications")
        session.progress = { done, total in progress.update(done, of: total) }
        let summary: ReplayServeSession.Summary
        do throws(LinkError) {
            // The reader's address is not known on a Unix socket: the recording names none.
            var bearer: any ATTBearer = link
            if let record {
                // The trace is what was asked for: a write that fails fails the serve.
                bearer = try RecordingBearer(recording: link, to: record, vantage: .peripheral,
                                             peer: LEAddress(BluetoothAddress(0), type: .random), policy: .failLink)
            }
            summary = try session.run(on: bearer, stop: stop)
        } catch {
            progress.finish()
            throw RuntimeFailure("bandsim replay: serving \(socket): \(error)")
        }
        progress.finish()
        printServeSummary(summary, database: database, outcome: outcome)
        return .success
    }

    /// For a BandKit band, a live answerer for its Auth Control Point with the keystore's keys.
    private func authResponder(for database: RecordedGATTDatabase, keystore path: String) throws -> ReplayAuthResponder? {
        guard let control = ReplayAuthResponder.controlPointHandle(in: database) else { return nil }
        let bands: [PairedBand]
        do { bands = try Keystore(path: path).load() } catch {
            throw RuntimeFailure("bandsim replay: cannot read the keystore \(path): \(error)")
        }
        guard !bands.isEmpty else {
            note("no paired readers in \(path): the recorded authentication is replayed as it was, which a live reader will reject")
            return nil
        }
        var keys: [UInt64: BandKey] = [:]
        for band in bands where band.key.count == BandKey.capacity { keys[band.readerID] = BandKey(band.key) }
        return ReplayAuthResponder(controlPointHandle: control, keys: keys)
    }

    // MARK: Loading

    /// Reads the whole trace; damage ends the command with 65 unless `--keep-going` allows it.
    private func load() throws -> (TraceRecording, TraceReplayReader.Outcome) {
        let reader: TraceReplayReader
        do throws(TraceDamage) {
            reader = try TraceReplayReader(path: path, format: format, overrides: overrides)
        } catch {
            throw failure(error)
        }
        var recording = TraceRecording()
        let progress = ReplayProgress(forced: forceProgress, unit: "bytes read")
        var records = 0
        let outcome = reader.run(keepGoing: keepGoing) { event in
            recording.consume(event)
            records += 1
            if records & 0x3FF == 0 { progress.update(reader.bytesRead, of: reader.fileSize) }
        }
        progress.finish()
        TraceDamageRule.report(command: "bandsim replay", path: path, skipped: outcome.skipped, count: outcome.skippedCount,
                               byKind: outcome.skippedByKind)
        if let damage = outcome.stoppedAt { throw failure(damage) }
        return (recording, outcome)
    }

    private func failure(_ damage: TraceDamage) -> any CommandFailure {
        TraceDamageRule(command: "bandsim replay", path: path, keepGoing: keepGoing).failure(damage)
    }

    // MARK: Output

    private func printServeSummary(_ summary: ReplayServeSession.Summary, database: RecordedGATTDatabase,
                                   outcome: TraceReplayReader.Outcome) {
        var lines: [String] = []
        lines.append("trace: \(outcome.records) records, \(outcome.attPDUs) ATT PDUs, \(outcome.skippedCount) damaged records skipped")
        lines.append("served: \(summary.requestsAnswered) requests answered, \(summary.notificationsSent) notifications, \(summary.indicationsSent) indications")
        for (handle, count) in summary.sentPerHandle.sorted(by: { $0.key < $1.key }) {
            let name = database.uuid(ofValueHandle: handle).map { "\($0)" } ?? "unknown"
            lines.append("  handle 0x\(String(handle, radix: 16, uppercase: false)) (\(name)): \(count)")
        }
        if summary.skippedUnsubscribed > 0 { lines.append("skipped (reader never subscribed): \(summary.skippedUnsubscribed)") }
        if summary.truncatedToMTU > 0 { lines.append("cut to the reader's ATT_MTU: \(summary.truncatedToMTU)") }
        if summary.gatesTimedOut > 0 { lines.append("sent without the reader's matching write (after 2 s): \(summary.gatesTimedOut)") }
        let errors = summary.errorsSent.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.name) \($0.value)" }
        lines.append("errors sent: " + (errors.isEmpty ? "none" : errors.joined(separator: ", ")))
        if summary.clientHungUp { lines.append("the reader hung up before the recorded end") }
        if summary.stopped { lines.append("stopped by signal") }
        StandardOutput.shared.line(lines.joined(separator: "\n"))
    }

    private func printStoreSummary(_ summary: TraceStoreReplay.Summary, store: String, elapsed: Duration) {
        let total = summary.total
        var lines: [String] = []
        let trace = summary.trace
        lines.append("trace: \(trace.records) records, \(trace.attPDUs) ATT PDUs, \(trace.skippedCount) damaged records skipped")
        lines.append("notifications: \(summary.notifications.values.reduce(0, +))")
        for (characteristic, count) in summary.notifications.sorted(by: { $0.key < $1.key }) {
            lines.append("  \(characteristic): \(count)")
        }
        for report in summary.connections {
            if let reason = report.skippedBecause {
                lines.append("\(report.connection): not stored: \(reason)")
            } else {
                let o = report.outcome
                lines.append("\(report.connection): device \(report.deviceIdentifier?.terminalEscaped ?? "?"): \(o.liveMinutes) live minutes, \(o.historyMinutes) history minutes")
            }
        }
        lines.append("minutes written: \(total.liveMinutes + total.historyMinutes) (\(total.liveMinutes) live, \(total.historyMinutes) history) into \(store)")
        lines.append("samples: \(total.samplesInserted) inserted, \(total.samplesReplaced) replaced, \(total.samplesUnchanged) unchanged, \(total.samplesDeleted) deleted")
        var errors: [String] = []
        if trace.skippedCount > 0 { errors.append("\(trace.skippedCount) damaged records skipped") }
        if total.historyTransfersDiscarded > 0 { errors.append("\(total.historyTransfersDiscarded) history transfers failed their checks") }
        if summary.anomalyCount > 0 { errors.append("\(summary.anomalyCount) readings not used") }
        lines.append("errors: " + (errors.isEmpty ? "none" : errors.joined(separator: ", ")))
        for damage in trace.skipped.prefix(10) { lines.append("  skipped \(damage)") }
        for anomaly in summary.anomalies.prefix(10) { lines.append("  \(anomaly)") }
        let seconds = Double(elapsed / .milliseconds(1)) / 1000
        let minutes = total.liveMinutes + total.historyMinutes
        let rate = seconds > 0 ? Int(Double(minutes) / seconds) : minutes
        lines.append("time: \(String(format: "%.3f", seconds)) s (\(rate) minutes/s)")
        StandardOutput.shared.line(lines.joined(separator: "\n"))
    }

    private func note(_ message: String) {
        CommandRunner.printError("bandsim replay: \(message)")
    }
}

private extension String {
    var nonEmpty: String? { isEmpty ? nil : self }
}
