#if canImport(Glibc)
import Glibc
#endif
import BandFirmware
import BandLink
import BandProtocol
import BandWire
import CommandKit
import FirmwareBridge
import BandKitSystem
import UARTFraming

/// `bandsim serve --firmware IMAGE.elf`: boots the band's firmware image in qemu-system-arm
/// (mps2-an386, UART0 on a Unix stream socket this process listens on) and bridges every reader
/// connection on `--socket` (or `--hci`) to it: each ATT PDU becomes one UART frame and back
/// (``FirmwareBridge`` decides, this file only does the I/O), connect and disconnect become link
/// messages 0x02/0x03, the firmware's log lines go to stderr. One `poll()` over the stop
/// signals, the UART and the reader; QEMU is stopped on every way out (end, error, SIGINT/SIGTERM).
struct FirmwareServe {
    var image: String
    var socketPath: String
    var hciAdapter: String?
    /// Band seconds per real second, 1…3600 (link message 0x09).
    var speed: UInt16
    /// The flash file (semihosting `bandkit-m4.flash`): kept across runs when given.
    var statePath: String?
    var exitAfterConnections: Int?
    /// The band's start, seed and time zone (link message 0x10, sent after every boot with the
    /// band's time then: the chip has no clock that survives a reset, the host is its clock; after
    /// a reset that time is the chip's own as it last reported it, ``FirmwareBridge`` decides).
    var configuration: BandConfiguration
    /// `--fault reboot-at=DURATION` (or `--reboot-at`): band run times after which the firmware is
    /// reset (link message 0x0A), each once, in order (``FirmwareBridge/RebootAt`` decides).
    var rebootsAfter: [Duration] = []
    /// `--scenario` other than the built-in `day`: sent segment by segment (link 0x12) before
    /// every 0x10; its `fault reboot-at=` lines are in `rebootsAfter`.
    var scenario: Scenario? = nil
    /// `--truth FILE`: the firmware's minute records (debug message 0x87) as ``TruthLine``s.
    var truthPath: String?
    var truth: TruthFile? = nil
    /// `--fault drop=P`, `corrupt=P`, `disconnect-random=P`, `clock-drift=PPM`, `battery=PERCENT`
    /// (also `--drop-rate`, `--corrupt-rate`, `--clock-drift`, `--battery`, scenario lines): sent
    /// to the image as link 0x13 before every 0x10; the chip's band acts on what it sends (and
    /// reports a link it drops with 0x89), its clock and its battery.
    var bandFaults = BandFaultMessage.Faults()
    /// `--fault reboot-mid-history`: reset the firmware and drop the reader after this many
    /// History Data packets of one connection (``FirmwareBridge/ResetMidHistory``), once.
    var rebootMidHistoryAfterPackets: Int? = nil

    /// Takes a band fault the firmware setup can carry out; false for one it has no means for
    /// here (disconnect-at and disconnect-mid-history: docs/firmware.md).
    mutating func take(_ fault: FaultSpec) -> Bool {
        switch fault {
        case .rebootAt(let after) where after > .zero: rebootsAfter.append(after)
        case .drop(let p): bandFaults.drop = p
        case .corrupt(let p): bandFaults.corrupt = p
        case .disconnectRandom(let p): bandFaults.disconnect = p
        case .clockDrift(let ppm): bandFaults.clockDriftPPM = ppm
        case .battery(let percent): bandFaults.battery = UInt8(percent)
        default: return false
        }
        return true
    }

    mutating func run() throws -> ExitCode {
        guard access(image, R_OK) == 0 else {
            throw RuntimeFailure("bandsim serve: --firmware \(image): \(String(cString: strerror(errno)))")
        }
        truth = try truthPath.map { try TruthFile(path: $0) }
        let emulator = try FirmwareEmulator(image: image, statePath: statePath)
        defer { emulator.stop() }
        let stop = try? StopSignals()
        defer { stop?.restore() }
        var bridge = FirmwareBridge(bandStart: configuration.start.seconds, resetMidHistory: rebootMidHistoryAfterPackets.map {
            .init(historyDataHandle: BandAttributeTable.valueHandle(.historyData), afterPackets: $0)
        }, rebootAt: .init(bandStart: configuration.start.seconds, after: rebootsAfter.map { $0.components.seconds }))
        var booted = false
        // Until the firmware says it booted and is configured: no reader is accepted (its connect would be lost).
        while !booted {
            guard try waitReadable([emulator.uart, stop?.pollDescriptor ?? -1], timeoutMs: 20_000) else {
                throw RuntimeFailure("bandsim serve: the firmware did not announce itself within 20 s (\(emulator.describeExit()))")
            }
            if let stop, !stop.received().isEmpty { return .success }
            let actions = try emulator.readUART { bridge.received(fromFirmware: $0) }
            booted = bridge.counters.boots > 0 && !bridge.resetInProgress   // and configured (after its flash report)
            try perform(actions, emulator: emulator, reader: nil)
        }

        let listener: any BandListener
        do throws(LinkError) {
            if let hciAdapter {
                listener = try HCIBandListener(adapter: hciAdapter, name: "BandKit M4", log: { CommandRunner.printError($0) })
            } else {
                try SocketPath.prepareDirectory(SocketPath.directory(of: socketPath))
                listener = try SeqPacketListener(path: socketPath)
            }
        } catch {
            throw RuntimeFailure("bandsim serve: cannot listen on \(hciAdapter ?? socketPath): \(error)")
        }
        defer { listener.close() }
        CommandRunner.printError("bandsim: firmware \(image) running in QEMU (pid \(emulator.pid)); listening on \(hciAdapter ?? socketPath); speed ×\(speed)")

        var reader: (any ATTBearer)?
        var connections = 0
        var buffer = [UInt8](repeating: 0, count: 1024)
        while true {
            let readerDescriptor = reader.flatMap { $0.pollDescriptor } ?? -1
            var entries = [pollfd(fd: stop?.pollDescriptor ?? -1, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: emulator.uart, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: reader == nil && !bridge.resetInProgress ? listener.pollDescriptor : -1, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: readerDescriptor, events: Int16(POLLIN), revents: 0)]
            if case .failure(let error) = valueOrErrno({ poll(&entries, nfds_t(entries.count), -1) }) {
                throw RuntimeFailure("bandsim serve: poll: \(error.reason)")
            }
            if entries[0].revents != 0, let stop, !stop.received().isEmpty {
                CommandRunner.printError("bandsim: stopped by a signal; stopping QEMU")
                if let reader { try perform(bridge.readerDidDisconnect(), emulator: emulator, reader: nil); reader.close() }
                return .success
            }
            if entries[1].revents != 0 {
                let actions = try emulator.readUART { bridge.received(fromFirmware: $0) }
                try perform(actions, emulator: emulator, reader: reader)
                // A firmware reset or the band's own drop (0x89): the bridge no longer counts the
                // reader as connected, so its link goes, as a band's radio link would.
                if let link = reader, !bridge.readerConnected {
                    link.close()
                    reader = nil
                    listener.connectionEnded()
                    CommandRunner.printError("bandsim: reader's link dropped by the firmware (connection \(connections))")
                    if let limit = exitAfterConnections, connections >= limit {
                        CommandRunner.printError("bandsim: \(connections) connection(s) ended; stopping QEMU")
                        return .success
                    }
                }
            }
            if entries[2].revents != 0 {
                var accepted: (any ATTBearer)?
                do throws(LinkError) { accepted = try listener.acceptLink() } catch {
                    CommandRunner.printError("bandsim serve: accepting a reader: \(error)")
                }
                if let link = accepted {
                    reader = link
                    connections += 1
                    CommandRunner.printError("bandsim: reader connected (connection \(connections))")
                    try perform(bridge.readerDidConnect(), emulator: emulator, reader: link)
                }
            }
            if entries[3].revents != 0, let link = reader {
                var ended = false
                var count: Int?
                let received: Result<Int?, LinkError> = buffer.withUnsafeMutableBytes { raw in
                    do throws(LinkError) { return .success(try link.receive(into: raw, timeout: .zero)) } catch { return .failure(error) }
                }
                switch received {
                case .success(let got): count = got
                case .failure: ended = true
                }
                if let count { try perform(bridge.received(fromReader: Array(buffer[0..<count])), emulator: emulator, reader: link) }
                if ended {
                    link.close()
                    reader = nil
                    listener.connectionEnded()
                    CommandRunner.printError("bandsim: reader disconnected (\(bridge.counters.pdusToFirmware) PDUs to the firmware, \(bridge.counters.pdusToReader) back)")
                    try perform(bridge.readerDidDisconnect(), emulator: emulator, reader: nil)
                    if let limit = exitAfterConnections, connections >= limit {
                        CommandRunner.printError("bandsim: \(connections) connection(s) ended; stopping QEMU")
                        return .success
                    }
                }
            }
        }
    }

    private mutating func perform(_ actions: [FirmwareBridge.Action], emulator: FirmwareEmulator, reader: (any ATTBearer)?) throws {
        for action in actions {
            switch action {
            case .toFirmware(let bytes):
                try emulator.writeUART(bytes)
            case .toReader(let pdu):
                do throws(LinkError) { try reader?.send(pdu) } catch {
                    CommandRunner.printError("bandsim serve: sending to the reader: \(error)")
                }
            case .setMTU(let mtu):
                reader?.mtu = mtu
            case .log(let line):
                CommandRunner.printError("bandsim: \(line)")
            case .minuteRecorded(let sequence, let bytes):
                writeTruth(sequence: sequence, bytes)
            case .configureFirmware(let bandStart):
                try configureFirmware(emulator, bandStart: bandStart)
            case .dropReader:
                break  // the run loop closes the link after these actions
            }
        }
    }

    /// After every boot: the DRBG seed (32 bytes entropy ‖ 16 bytes nonce, from the one random
    /// source), the clock speed, and the band's start at `bandStart` (the bridge's: the configured
    /// start, then the band's own time as the chip last reported it), so the band resumes where it
    /// was; its ring and sequence numbers come from its flash.
    private mutating func configureFirmware(_ emulator: FirmwareEmulator, bandStart: Int64) throws {
        let seed: [UInt8]
        do { seed = try KernelRandom.bytes(count: 48) } catch { throw RuntimeFailure("bandsim serve: firmware seed: \(error)") }
        try emulator.writeUART(FirmwareBridge.frame(.link, [0x01] + seed))
        if speed != 1 { try emulator.writeUART(FirmwareBridge.frame(.link, [0x09, UInt8(speed & 0xFF), UInt8(speed >> 8)])) }
        var start = configuration
        start.start = BandInstant(seconds: bandStart)
        if let scenario {
            for (index, segment) in scenario.segments.enumerated() {
                try emulator.writeUART(FirmwareBridge.frame(.link, [0x12] + ScenarioSegmentMessage.encode(segment, index: index, count: scenario.segments.count)))
            }
        }
        if !bandFaults.isNone { try emulator.writeUART(FirmwareBridge.frame(.link, [0x13] + BandFaultMessage.encode(bandFaults))) }
        try emulator.writeUART(FirmwareBridge.frame(.link, [0x10] + Self.bandConfigureBody(start)))
    }

    /// One truth line per minute the firmware recorded, flushed at once (a test reads the file
    /// while the band runs). A record that does not parse is reported, never written.
    @discardableResult
    private func writeTruth(sequence: UInt32, _ bytes: [UInt8]) -> MinuteRecord? {
        let parsed: Result<MinuteRecord, ParseError> = bytes.withUnsafeBytes { raw in
            do throws(ParseError) { return .success(try MinuteRecord(parsingAll: raw)) } catch { return .failure(error) }
        }
        switch parsed {
        case .success(let record):
            truth?.write(TruthLine.json(sequence: sequence, record: record))
            return record
        case .failure(let error):
            CommandRunner.printError("bandsim serve: the firmware's minute \(sequence) does not parse (\(error)); not written to --truth")
            return nil
        }
    }

    /// Link message 0x10's body: start (Int64 LE, Unix seconds), seed (UInt64 LE), time zone (Int8, quarter hours).
    static func bandConfigureBody(_ configuration: BandConfiguration) -> [UInt8] {
        let start = UInt64(bitPattern: configuration.start.seconds)
        return (0..<8).map { UInt8(truncatingIfNeeded: start >> UInt64(8 * $0)) }
            + (0..<8).map { UInt8(truncatingIfNeeded: configuration.seed >> UInt64(8 * $0)) }
            + [UInt8(bitPattern: configuration.timeZoneQuarterHours)]
    }

    private func waitReadable(_ descriptors: [Int32], timeoutMs: Int32) throws -> Bool {
        var entries = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        switch valueOrErrno({ poll(&entries, nfds_t(entries.count), timeoutMs) }) {
        case .success(let ready): return ready > 0
        case .failure(let error): throw RuntimeFailure("bandsim serve: poll: \(error.reason)")
        }
    }

}
