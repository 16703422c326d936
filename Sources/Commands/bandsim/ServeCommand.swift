#if canImport(Glibc)
import Glibc
#endif
import BandControllerLink
import BandFirmware
import BandKitSystem
import BandLEHost
import BandLink
import BandPeers
import BandProtocol
import BandTrace
import CommandKit

/// `bandsim serve`: a simulated band listening for readers.
struct ServeCommand: Command {
    static let configuration = CommandConfiguration(
        name: "serve",
        abstract: "Run a simulated band: GATT server on a Unix SOCK_SEQPACKET socket (or a BlueZ controller).",
        discussion: """
            One ATT PDU per datagram, exactly as an L2CAP LE ATT channel carries them. The band serves
            GAP, GATT, Device Information, Battery, Heart Rate, Running Speed and Cadence, Current Time
            and its own activity service (live counters, minute history, pairing; docs/protocol.md).

            Time: --start sets the band's clock at boot (ISO 8601 with Z or an offset; the offset
            becomes the band's time zone; 1970-01-01 … 2105-12-31 UTC, what its records can name); --speed runs it faster than real time, notifications
            included. Everything random follows --seed except pairing keys and challenges, which come
            from OpenSSL's CSPRNG (unless --deterministic-secrets, for tests).

            Faults (--fault, repeatable, also 'fault SPEC' lines in scenario files):
              disconnect-mid-history | disconnect-at=DURATION | disconnect-random=P | reboot-at=DURATION
              reboot-mid-history[=N] (--firmware only: reset the chip and drop the reader after the Nth
              History Data packet of a connection, default 2, once)
              drop=P | corrupt=P | clock-drift=PPM | battery=PERCENT
            DURATION is 90s, 15m, 2h, 1d. Shorthands: --reboot-at, --drop-rate, --corrupt-rate,
            --clock-drift, --battery.

            Scenarios: \(Scenario.builtInNames.joined(separator: ", ")), or a file of
            'at HH:MM ACTIVITY [cadence=N] [stride=M]' and 'fault SPEC' lines.

            --truth writes the band's own minute records as NDJSON (what is in flash at start, then
            each new minute). --state keeps the flash (history, keys, boot epoch) across runs.
            --exit-after N stops after N connections have ended; --exit-after DURATION after that much
            simulated time.

            --profile infinitime serves a PineTime running InfiniTime instead (Heart Rate [0x00, bpm],
            0 while off the wrist; Motion step count, u32 steps today on the watch's local clock,
            restarting at its midnight and on a reboot; Current Time and Local Time Information, a
            write setting its clock; battery; firmware 1.14.0). --profile hr-strap serves a standard
            chest strap (Heart Rate with sensor contact, Energy Expended with its reset, RR
            intervals; battery). Both take --socket/--hci, --start, --speed, --seed, --battery,
            --reboot-at, --exit-after and --truth (one NDJSON line per simulated minute: what the
            wearer did, and for the watch its step total and boot); the band's other options do not
            apply to them. On the socket link they pair as SMP does (docs/protocol.md, "Link security
            on the socket link"): the watch shows a passkey on stderr, a fresh one per pairing or the
            one --passkey fixes, and refuses a wrong one (Pairing Failed, Confirm Value Failed), then
            any pairing for a wait that doubles with each wrong one (Repeated Attempts); the
            strap pairs Just Works; both keep their bonds while bandsim runs.

            --firmware IMAGE.elf boots the band's firmware image (firmware-sim/board/build.sh) in
            qemu-system-arm (mps2-an386) and bridges each reader on --socket or --hci to its UART:
            one ATT PDU per UART frame, connect/disconnect as link messages (docs/firmware.md).
            With it only --socket/--hci, --speed (whole band seconds per second, 1-3600), --seed,
            --start, --truth (the firmware's own minute records, sent over its debug channel), --state
            (the image's flash file: boot record, keys, minute ring), --fault reboot-at=DURATION (or
            --reboot-at: the image is reset, the reader's link dropped, and the band resumes from its
            flash), --fault drop=P / corrupt=P / disconnect-random=P / clock-drift=PPM / battery=PERCENT
            (or --drop-rate / --corrupt-rate / --clock-drift / --battery: the chip's band acts on them),
            --scenario (sent to the chip, at most 32 segments; of its faults only reboot-at, drop,
            corrupt, disconnect-random, clock-drift and battery) and --exit-after N apply.
            QEMU is stopped when bandsim ends.

            --hci-controller PATH|tcp:HOST:PORT runs the band's own Bluetooth host (the chip's) on a
            standard controller speaking H4: a UART or pty (set raw, 8N1, --controller-baud, RTS/CTS
            unless --controller-flow none) or a TCP socket (Bumble's tcp-server). The band advertises,
            pairs with LE Secure Connections showing its passkey (printed on stderr: 'passkey NNNNNN')
            and keeps bonds in STATE.bonds beside --state (without --state, while bandsim runs), so a
            bonded central re-encrypts after a restart without a passkey. A controller that is
            absent or does not finish bring-up within 5 s (exit 1), or stops later (exit 1), is named.
            """,
        options: [
            .option("socket", value: "PATH", help: "Unix socket to listen on (default $XDG_RUNTIME_DIR/bandkit/band.sock)."),
            .option("hci", value: "hciN", help: "Serve on this BlueZ controller instead (LE advertising + L2CAP ATT)."),
            .option("hci-controller", value: "PATH|tcp:HOST:PORT", help: "Serve through the band's own host on this H4 controller (UART, pty or TCP)."),
            .option("controller-baud", value: "N", help: "--hci-controller on a UART: 115200, 230400, 460800, 921600 or 1000000 (default)."),
            .option("controller-flow", value: "rtscts|none", help: "--hci-controller on a UART: hardware flow control (default rtscts)."),
            .option("firmware", value: "IMAGE.elf", help: "Boot this firmware image in qemu-system-arm and bridge readers to it."),
            .option("profile", value: "band|infinitime|hr-strap", help: "What to simulate (default band: the BandKit band)."),
            .option("passkey", value: "N", help: "--profile infinitime on a socket: the passkey its screen shows (default: random per pairing)."),
            .option("seed", value: "N", help: "Seed of every simulated random choice (default 1)."),
            .option("speed", value: "X", help: "Simulated seconds per real second (default 1)."),
            .option("start", value: "T", help: "Band clock at boot, e.g. 2026-11-30T08:00:00+01:00 (default: now, UTC)."),
            .option("scenario", value: "NAME|FILE", help: "Day plan (default day)."),
            .option("truth", value: "FILE", help: "Write the band's minute records as NDJSON."),
            .option("record", value: "TRACE", help: "Write every connection as a btsnoop trace (H4)."),
            .option("confirm", value: "auto|ask|deny", help: "Answer pairing requests (default auto)."),
            .option("state", value: "PATH", help: "Flash image file, loaded at start and saved atomically."),
            .option("history-days", value: "N", help: "On a fresh flash, simulate N days before --start (default 0)."),
            .option("history-capacity", value: "N", help: "Minute records the flash ring holds (default 10080 = 7 days)."),
            .option("fault", value: "SPEC", repeats: true, help: "Inject a fault (see below)."),
            .option("reboot-at", value: "DURATION", repeats: true, help: "Reboot after this much simulated run time."),
            .option("drop-rate", value: "P", help: "Probability of losing each notification."),
            .option("corrupt-rate", value: "P", help: "Probability of flipping a bit in each notification."),
            .option("clock-drift", value: "PPM", help: "The band's clock runs this many ppm fast (negative: slow)."),
            .option("battery", value: "PERCENT", help: "Initial battery level."),
            .option("exit-after", value: "N|DURATION", help: "Stop after N connections, or after DURATION of simulated time."),
            .option("name", value: "TEXT", help: "GAP device name (default 'BandKit Band')."),
            .flag("deterministic-secrets", help: "Keys and challenges from --seed instead of the CSPRNG (tests only)."),
        ])

    var configuration: BandConfiguration
    var socketPath: String
    var hciAdapter: String?
    /// `--hci-controller`: the controller the band's own host drives.
    var controllerAddress: ControllerAddress?
    var serialSettings = SerialSettings()
    var speed = 1.0
    var scenarioSource: String
    var truthPath: String?
    var recordPath: String?
    var statePath: String?
    var exitAfterConnections: Int?
    var exitAfterDuration: Duration?
    /// Set for `--profile infinitime|hr-strap`: serve that peer instead of the band.
    var profileServe: ProfileServe?
    /// Set for `--firmware IMAGE`: bridge readers to the image in QEMU instead.
    var firmwareServe: FirmwareServe?

    init(arguments: ParsedArguments) throws(UsageError) {
        var start = BandInstant(milliseconds: 0)
        var zone: Int8 = 0
        if let text = arguments.value("start") {
            guard let parsed = CivilTime.parseISO8601(text) else {
                throw arguments.usageError("--start '\(text)' is not an ISO 8601 time such as 2026-11-30T08:00:00Z or …+05:30")
            }
            guard parsed.offsetSeconds % 900 == 0 else {
                throw arguments.usageError("--start offset must be a whole number of quarter hours")
            }
            guard BandClock.settableSeconds.contains(parsed.unixSeconds) else {
                throw arguments.usageError("--start '\(text)' is outside 1970-01-01 … 2105-12-31 UTC, the times a minute record can name")
            }
            start = BandInstant(seconds: parsed.unixSeconds)
            zone = Int8(parsed.offsetSeconds / 900)
        } else {
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            start = BandInstant(seconds: Int64(now.tv_sec))
        }
        var configuration = BandConfiguration(start: start)
        configuration.timeZoneQuarterHours = zone
        if let seed = try arguments.value("seed", as: "an unsigned integer", { UInt64($0) }) { configuration.seed = seed }
        if let speed = try arguments.value("speed", as: "a positive number", { Double($0).flatMap { $0 > 0 && $0.isFinite ? $0 : nil } }) {
            self.speed = speed
        }
        scenarioSource = arguments.value("scenario") ?? "day"
        if let confirm = arguments.value("confirm") {
            guard let policy = PairingConfirmation(rawValue: confirm) else {
                throw arguments.usageError("--confirm '\(confirm)' is not auto, ask or deny")
            }
            configuration.confirmation = policy
        }
        if let days = try arguments.value("history-days", as: "a number of days 0–365", { Int($0).flatMap { (0...365).contains($0) ? $0 : nil } }) {
            configuration.historyDays = days
        }
        if let capacity = try arguments.value("history-capacity", as: "a record count 1–1000000", { Int($0).flatMap { (1...1_000_000).contains($0) ? $0 : nil } }) {
            configuration.historyCapacity = capacity
        }
        var faults: [FaultSpec] = []
        func fault(_ spec: String, from option: String) throws(UsageError) {
            do throws(FaultSpec.ParseFailure) { faults.append(try FaultSpec(parsing: spec)) } catch {
                throw arguments.usageError("--\(option): \(error.reason)")
            }
        }
        // `reboot-mid-history[=N]` is the bridge's (it resets the chip), not the band's: --firmware only.
        var rebootMidHistoryAfterPackets: Int?
        for spec in arguments.values("fault") {
            guard spec == "reboot-mid-history" || spec.hasPrefix("reboot-mid-history=") else { try fault(spec, from: "fault"); continue }
            guard arguments.value("firmware") != nil else {
                throw arguments.usageError("--fault reboot-mid-history applies only to --firmware (the bridge resets the chip)")
            }
            let value = spec.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).dropFirst().first
            guard let packets = value == nil ? 2 : Int(value!), (1...10_000).contains(packets) else {
                throw arguments.usageError("--fault \(TerminalText.escaped(spec)): the packet count must be 1–10000")
            }
            guard rebootMidHistoryAfterPackets == nil else { throw arguments.usageError("--fault reboot-mid-history is given once") }
            rebootMidHistoryAfterPackets = packets
        }
        for at in arguments.values("reboot-at") { try fault("reboot-at=\(at)", from: "reboot-at") }
        if let p = arguments.value("drop-rate") { try fault("drop=\(p)", from: "drop-rate") }
        if let p = arguments.value("corrupt-rate") { try fault("corrupt=\(p)", from: "corrupt-rate") }
        if let ppm = arguments.value("clock-drift") { try fault("clock-drift=\(ppm)", from: "clock-drift") }
        if let level = arguments.value("battery") { try fault("battery=\(level)", from: "battery") }
        configuration.faults = faults
        if let name = arguments.value("name") {
            guard !name.isEmpty, name.utf8.count <= 248 else { throw arguments.usageError("--name must be 1–248 bytes of UTF-8") }
            configuration.deviceName = name
        }
        configuration.deterministicSecrets = arguments.flag("deterministic-secrets")
        if let exit = arguments.value("exit-after") {
            if let count = Int(exit), count > 0 {
                exitAfterConnections = count
            } else if let duration = FaultSpec.parseDuration(exit), duration > .zero {
                exitAfterDuration = duration
            } else {
                throw arguments.usageError("--exit-after '\(exit)' is neither a connection count nor a duration such as 30m")
            }
        }
        hciAdapter = arguments.value("hci")
        if let adapter = hciAdapter, !(adapter.hasPrefix("hci") && UInt16(adapter.dropFirst(3)) != nil) {
            throw arguments.usageError("--hci '\(adapter)' is not a controller name such as hci0")
        }
        if hciAdapter != nil, arguments.value("socket") != nil {
            throw arguments.usageError("--socket and --hci are alternatives; give one")
        }
        if let text = arguments.value("hci-controller") {
            switch ControllerAddress.parse(text) {
            case .success(let address): controllerAddress = address
            case .failure(let error): throw arguments.usageError("--hci-controller \(TerminalText.escaped(error.description))")
            }
            for other in ["socket", "hci", "firmware", "profile", "record", "confirm"] where arguments.value(other) != nil {
                throw arguments.usageError("--hci-controller and --\(other) do not go together (the controller is the band's radio; pairing is SMP's)")
            }
        }
        if let text = arguments.value("controller-baud") {
            guard controllerAddress != nil else { throw arguments.usageError("--controller-baud applies to --hci-controller only") }
            guard let rate = Int(text), SerialSettings.supportedBaudRates.contains(rate) else {
                throw arguments.usageError("--controller-baud '\(TerminalText.escaped(String(text.prefix(40))))' is not one of \(SerialSettings.supportedBaudRates.map(String.init).joined(separator: ", "))")
            }
            serialSettings.baudRate = rate
        }
        if let text = arguments.value("controller-flow") {
            guard controllerAddress != nil else { throw arguments.usageError("--controller-flow applies to --hci-controller only") }
            guard text == "rtscts" || text == "none" else { throw arguments.usageError("--controller-flow '\(TerminalText.escaped(String(text.prefix(40))))' is not rtscts or none") }
            serialSettings.hardwareFlowControl = text == "rtscts"
        }
        socketPath = arguments.value("socket") ?? SocketPath.defaultPath()
        truthPath = arguments.value("truth")
        recordPath = arguments.value("record")
        statePath = arguments.value("state")
        self.configuration = configuration
        if let image = arguments.value("firmware") {
            let allowed: Set<String> = ["firmware", "socket", "hci", "speed", "state", "exit-after", "seed", "start", "truth", "fault", "reboot-at",
                                        "drop-rate", "corrupt-rate", "clock-drift", "battery", "scenario"]
            for option in ServeCommand.configuration.options.map(\.name) where !allowed.contains(option) {
                if arguments.value(option) != nil || arguments.flag(option) {
                    throw arguments.usageError("--\(option) does not apply to --firmware (the image is the band)")
                }
            }
            guard speed == speed.rounded(), (1...3600).contains(speed) else {
                throw arguments.usageError("--speed with --firmware must be a whole number 1–3600 (the firmware's SysTick scale)")
            }
            guard exitAfterDuration == nil else { throw arguments.usageError("--exit-after with --firmware is a connection count") }
            var serve = FirmwareServe(image: image, socketPath: socketPath, hciAdapter: hciAdapter, speed: UInt16(speed),
                                      statePath: statePath, exitAfterConnections: exitAfterConnections,
                                      configuration: configuration, truthPath: truthPath,
                                      rebootMidHistoryAfterPackets: rebootMidHistoryAfterPackets)
            for fault in faults {
                guard serve.take(fault) else {
                    throw arguments.usageError("--fault \(fault) does not apply to --firmware: only reboot-at=DURATION (the chip is reset), "
                                               + "drop=P, corrupt=P, disconnect-random=P, clock-drift=PPM and battery=PERCENT (the chip's band acts on them) "
                                               + "and reboot-mid-history[=N]")
                }
            }
            firmwareServe = serve
        }
        if let name = arguments.value("profile"), name != "band" {
            guard let profile = ProfileServe.Profile(rawValue: name) else {
                throw arguments.usageError("--profile '\(name)' is not band, infinitime or hr-strap")
            }
            for option in ProfileServe.bandOnlyOptions where arguments.value(option) != nil || arguments.flag(option) {
                throw arguments.usageError("--\(option) applies to the BandKit band only, not --profile \(name)")
            }
            if arguments.value("name") != nil { throw arguments.usageError("--name applies to the BandKit band only, not --profile \(name)") }
            var reboots: [PeerMilliseconds] = []
            for at in arguments.values("reboot-at") {
                guard let duration = FaultSpec.parseDuration(at), duration > .zero else {
                    throw arguments.usageError("--reboot-at '\(at)' is not a duration such as 90s, 15m, 2h or 1d")
                }
                reboots.append(PeerMilliseconds(duration.components.seconds) * 1000)
            }
            var battery: UInt8?
            if let text = arguments.value("battery") {
                guard let level = UInt8(text), level <= 100 else { throw arguments.usageError("--battery '\(text)' is not a percentage 0–100") }
                battery = level
            }
            var passkey: UInt32?
            if let text = arguments.value("passkey") {
                guard profile == .infinitime else { throw arguments.usageError("--passkey applies to --profile infinitime only (the strap pairs Just Works)") }
                guard hciAdapter == nil else {
                    throw arguments.usageError("--passkey applies to the socket link only: over --hci the kernel chooses the passkey (bandsim prints it)")
                }
                guard let value = PasskeyPrompt.parse(text) else {
                    throw arguments.usageError("--passkey must be six digits (got \(TerminalText.escaped(String(text.prefix(40)))))")
                }
                passkey = value
            }
            profileServe = ProfileServe(profile: profile, startMs: configuration.start.milliseconds,
                                        utcOffsetSeconds: Int(configuration.timeZoneQuarterHours) * 900, seed: configuration.seed,
                                        speed: speed, battery: battery, rebootsAfter: reboots, socketPath: socketPath,
                                        hciAdapter: hciAdapter, truthPath: truthPath, exitAfterConnections: exitAfterConnections,
                                        exitAfterDuration: exitAfterDuration, passkey: passkey)
        } else if arguments.value("passkey") != nil {
            throw arguments.usageError("--passkey applies to --profile infinitime only (the BandKit band pairs Just Works)")
        }
    }

    func run() throws -> ExitCode {
        if var firmwareServe {
            if scenarioSource != "day" { try firmwareScenario(into: &firmwareServe) }
            return try firmwareServe.run()
        }
        if let profileServe { return try profileServe.run() }
        var configuration = self.configuration
        configuration.scenario = try loadScenario()

        var flash: FlashImage?
        if let statePath {
            do throws(StateFile.Failure) {
                flash = try StateFile.load(statePath, capacity: configuration.historyCapacity)
            } catch {
                if case .damaged = error { throw DataError("bandsim serve: --state \(error)") }
                throw RuntimeFailure("bandsim serve: --state \(error)")
            }
        }

        let band = try SimulatedBand(configuration: configuration, flash: flash)
        band.log = { [unowned band] message in CommandRunner.printError("[\(band.clock.now(at: band.trueTime))] \(message)") }

        if let truthPath {
            let truth = try TruthFile(path: truthPath)
            band.replayStoredRecords { sequence, record in truth.write(TruthLine.json(sequence: sequence, record: record), flush: false) }
            try truth.flush()
            band.onMinuteRecorded = { sequence, record in truth.write(TruthLine.json(sequence: sequence, record: record)) }
        }

        var options = BandRunner.Options()
        options.speed = speed
        options.statePath = statePath
        options.exitAfterConnections = exitAfterConnections
        options.exitAfterDuration = exitAfterDuration
        var traceWriter: BtsnoopWriter?
        if let recordPath {
            do throws(BtsnoopError) {
                let writer = try BtsnoopWriter(path: recordPath, datalink: .h4)
                traceWriter = writer
                options.recorder = ATTTraceRecorder(writer: writer, connection: 0x0040)
            } catch {
                throw RuntimeFailure("bandsim serve: --record \(recordPath): \(error)")
            }
        }
        if configuration.confirmation == .ask {
            options.promptInput = 0
            options.prompt = { CommandRunner.printError($0) }
            band.onPairingPrompt = { readerID in
                let digits = String(readerID, radix: 16)
                CommandRunner.printError("pairing request from reader \(String(repeating: "0", count: 16 - digits.count) + digits)")
            }
        }

        let listener: any BandListener
        let controllerListener = try controllerAddress.map { try openController($0, name: configuration.deviceName, log: band.log) }
        do throws(LinkError) {
            if let controllerListener {
                options.drivers = [controllerListener.link]
                listener = controllerListener
            } else if let hciAdapter {
                listener = try HCIBandListener(adapter: hciAdapter, name: configuration.deviceName, log: band.log)
            } else {
                try SocketPath.prepareDirectory(SocketPath.directory(of: socketPath))
                listener = try SeqPacketListener(path: socketPath)
            }
        } catch {
            throw RuntimeFailure("bandsim serve: cannot listen on \(hciAdapter ?? socketPath): \(error)")
        }
        defer { listener.close() }

        let stop = try? StopSignals()
        defer { stop?.restore() }
        CommandRunner.printError("""
            bandsim: band '\(configuration.deviceName)' (history \(String(band.flash.historyID, radix: 16)), boot \(band.bootEpoch), \
            \(band.flash.ring.count) records) listening on \(controllerAddress.map { "controller \($0)" } ?? hciAdapter ?? socketPath); clock \(band.clock.now(at: band.trueTime)) \
            at \(LocalTimeOffset(quarterHours: configuration.timeZoneQuarterHours)), speed ×\(speed), scenario \(configuration.scenario.name)
            """)
        let runner = BandRunner(band: band, listener: listener, options: options)
        let ending: BandRunner.Ending
        do {
            ending = try runner.run(stop: stop)
        } catch {
            if let failure = controllerListener?.link.failure { throw RuntimeFailure("bandsim serve: --hci-controller: \(failure)") }
            throw error
        }
        try runner.saveState()
        if let traceWriter {
            do throws(BtsnoopError) { try traceWriter.close() } catch {
                throw RuntimeFailure("bandsim serve: --record: \(error)")
            }
        }
        CommandRunner.printError("bandsim: \(ending); \(band.flash.ring.count) records in flash, boot \(band.bootEpoch)")
        return .success
    }

    /// Opens the controller, brings it up with the band's own host (5 s at most) and returns the
    /// listener its links arrive on. Failures are the controller's: exit 1, naming it.
    private func openController(_ address: ControllerAddress, name: String, log: @escaping (String) -> Void) throws -> ControllerBandListener {
        let descriptor: Int32
        switch ControllerPort.open(address, serial: serialSettings) {
        case .success(let fd): descriptor = fd
        case .failure(let error): throw RuntimeFailure("bandsim serve: --hci-controller: cannot open the controller: \(error)")
        }
        let bonds: BondFile
        switch BondFile.load(path: statePath.map { $0 + ".bonds" }) {
        case .success(let loaded): bonds = loaded
        case .failure(let error):
            close(descriptor)
            throw DataError("bandsim serve: bonds: \(error)")
        }
        var configuration = Array(name.utf8).withUnsafeBytes {
            LEHostConfiguration.band(name: $0, services: HCIBandListener.advertisedServices, attMTU: SimulatedBand.serverMTU, ioCapability: 0x00)
        }
        configuration.dataLengthOctets = 251  // the most LE Data Length allows
        let link = ControllerLink(descriptor: descriptor, address: address, configuration: configuration, bonds: bonds)
        link.onNote = { note in if case .log(let line) = note { log("controller: \(line)") } }
        switch link.waitUntilReady(timeout: .seconds(5)) {
        case .success(let info):
            log("controller \(address): \(info.address), LE ACL \(info.aclPacketCount) × \(info.aclPacketLength) bytes, \(bonds.bonds.count) bond(s)")
        case .failure(let error):
            throw RuntimeFailure("bandsim serve: --hci-controller: \(error)")
        }
        do throws(LinkError) {
            return try ControllerBandListener(link: link, log: log)
        } catch {
            throw RuntimeFailure("bandsim serve: --hci-controller: \(error)")
        }
    }

    /// `--scenario` with `--firmware`: the chip holds at most 32 segments, and of a file's faults
    /// only `reboot-at` (the bridge resets the image), `drop`, `corrupt` and `disconnect-random`
    /// (link 0x13) apply;
    /// anything else is refused (exit 65)
    /// before QEMU starts.
    private func firmwareScenario(into serve: inout FirmwareServe) throws {
        let scenario = try loadScenario()
        guard scenario.segments.count <= ScenarioSegmentMessage.maximumSegments else {
            throw DataError("bandsim serve: --scenario \(TerminalText.escaped(scenarioSource)) has \(scenario.segments.count) segments; "
                            + "the firmware holds at most \(ScenarioSegmentMessage.maximumSegments)")
        }
        for fault in scenario.faults {
            guard serve.take(fault) else {
                throw DataError("bandsim serve: --scenario \(TerminalText.escaped(scenarioSource)): 'fault \(fault)' does not apply to --firmware (only reboot-at, drop, corrupt, disconnect-random, clock-drift and battery)")
            }
        }
        serve.scenario = scenario
    }

    private func loadScenario() throws -> Scenario {
        if let builtIn = Scenario.builtIn(scenarioSource) { return builtIn }
        guard scenarioSource.contains("/") || scenarioSource.contains(".") else {
            throw UsageError("bandsim serve: --scenario '\(scenarioSource)' is neither a built-in scenario (\(Scenario.builtInNames.joined(separator: ", "))) nor a file path")
        }
        let text: String
        do { text = try readTextFile(scenarioSource) } catch {
            throw RuntimeFailure("bandsim serve: --scenario \(scenarioSource): \(error)")
        }
        do throws(ScenarioParser.Failure) {
            return try ScenarioParser.parse(text, name: scenarioSource)
        } catch {
            throw DataError("bandsim serve: \(scenarioSource): \(error)")
        }
    }
}

/// Reads a whole (small) text file.
func readTextFile(_ path: String) throws -> String {
    let bytes: [UInt8]
    switch SystemCalls.live.readFile(path: path) {
    case .success(let read): bytes = read
    case .failure(let error): throw RuntimeFailure(error.reason)
    }
    guard let text = String(validating: bytes, as: UTF8.self) else { throw DataError("\(path): not UTF-8 text") }
    return text
}
