import BandReplay
import BandTrace
import BandWire
import CommandKit

/// `bandsim decode TRACE [--json] [--format F] [--map HANDLE=UUID]...`: every ATT PDU in a trace,
/// with the characteristic it concerns and its decoded value.
struct DecodeCommand: Command {
    static let configuration = CommandConfiguration(
        name: "decode",
        abstract: "Decode the ATT traffic in a btsnoop, pcapng or pcap trace.",
        discussion: """
            Formats: btsnoop (datalinks 1001 H1, 1002 H4, 2001 Linux monitor), and pcapng or pcap with
            link types 201 BLUETOOTH_HCI_H4_WITH_PHDR, 187 BLUETOOTH_HCI_H4 and 254
            BLUETOOTH_LINUX_MONITOR, and air captures with link types 256 BLUETOOTH_LE_LL_WITH_PHDR and
            272 (nRF Sniffer): the latest connection (CONNECT_IND) is followed, retransmissions and
            CRC-failed PDUs dropped, "dir" is as the central sees it ("tx" = central → peripheral,
            and the JSON says "seen_from":"central"), and encrypted PDUs are counted on stderr, not
            decoded. The format is detected from the file's first bytes (--format forces it, e.g.
            for a pipe). Packets on other link types are skipped and counted on stderr.

            One line per ATT PDU. Handles are matched to characteristics from the GATT discovery in the
            trace (as Wireshark does) or from --map; Heart Rate, RSC and Battery values are decoded.
            --json prints one object per PDU: t_us (Unix µs), dir ("tx" = sent by the recording host,
            "rx"), adapter, conn, opcode, handle (or null), uuid ("2a37", dashed 128-bit, or null), pdu
            (hex), plus a key per decoded characteristic or "error": {"kind","offset","field"} for a
            malformed PDU or value (offset in the PDU).

            Damage, the same rule as `bandsim replay`: a malformed HCI packet or L2CAP fragment, a
            malformed ATT PDU, a file cut off inside its last record, or broken btsnoop framing.
            Without --keep-going decoding stops at the first damaged record: everything before it is
            printed (a malformed ATT PDU itself with its error), then a message naming the record and
            byte offset (pcapng: the block), exit 65. With --keep-going damaged records are passed over to the end of the
            file, the first 10 listed on stderr and the rest counted in one summary line, exit 0 —
            unless the btsnoop framing breaks (nothing after it can be read): exit 65.
            """,
        options: [
            .argument("TRACE", help: "The trace file (btsnoop, pcapng or pcap)."),
            .option("format", value: "btsnoop|pcapng|pcap", help: "Read TRACE as this format (default: detected from its magic)."),
            .flag("json", help: "One JSON object per ATT PDU per line."),
            .option("map", value: "HANDLE=UUID", repeats: true,
                    help: "Treat HANDLE (decimal or 0x-hex) as characteristic UUID (e.g. 0x0012=2a37)."),
            .flag("keep-going", help: TraceDamageRule.keepGoingHelp),
        ])

    var path: String
    var json: Bool
    var keepGoing: Bool
    var overrides: [UInt16: BluetoothUUID] = [:]
    var format: TraceFileFormat?

    init(arguments: ParsedArguments) throws(UsageError) {
        path = arguments.required("TRACE")
        json = arguments.flag("json")
        keepGoing = arguments.flag("keep-going")
        if let name = arguments.value("format") {
            guard let forced = TraceFileFormat(rawValue: name) else {
                throw arguments.usageError("--format '\(name)' is not btsnoop, pcapng or pcap")
            }
            format = forced
        }
        for mapping in arguments.values("map") {
            guard let (handle, uuid) = Self.parseMapping(mapping) else {
                throw arguments.usageError("--map '\(mapping)' is not HANDLE=UUID (e.g. 0x0012=2a37 or 18=2a37)")
            }
            overrides[handle] = uuid
        }
    }

    static func parseMapping(_ text: String) -> (UInt16, BluetoothUUID)? {
        let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        let handleText = parts[0].lowercased()
        let handle = handleText.hasPrefix("0x") ? UInt16(handleText.dropFirst(2), radix: 16) : UInt16(handleText)
        guard let handle, handle != 0, let uuid = BluetoothUUID(string: String(parts[1])) else { return nil }
        return (handle, uuid)
    }

    func run() throws -> ExitCode {
        var rule = TraceDamageRule(command: "bandsim decode", path: path, keepGoing: keepGoing)
        let file: OpenedTraceFile
        do throws(TraceFileError) {
            file = try OpenedTraceFile(path: path, format: format)
        } catch {
            throw rule.failure(TraceDamage(error))
        }
        // The format is dispatched here, once; everything after is specialised per reader.
        switch file {
        case .btsnoop(let reader): return try decode(reader, rule: &rule)
        case .pcapng(let reader): return try decode(reader, rule: &rule)
        case .pcap(let reader): return try decode(reader, rule: &rule)
        }
    }

    /// The whole command over one concrete reader: output, notes, summary, exit status.
    private func decode<Source: StreamingTraceFile>(_ reader: Source, rule: inout TraceDamageRule) throws -> ExitCode {
        let decoder = TraceDecoder(source: reader, overrides: overrides)
        let output = StandardOutput.shared.buffer
        let stop = json
            ? try decodeAll(decoder, into: JSONDecodeFormat(output: output), rule: &rule)
            : try decodeAll(decoder, into: TextDecodeFormat(output: output), rule: &rule)
        try output.flush()
        for note in [reader.airCaptureNote, reader.skippedPacketsNote].compactMap({ $0 }) {
            CommandRunner.printError("bandsim decode: \(path): \(note)")
        }
        rule.printSummary()
        if let stop { throw rule.failure(stop) }
        return .success
    }

    /// Everything decodable goes to `sink`; damage goes through `rule`. Returns the damage that
    /// ended decoding early, reported after what came before it has been written.
    private func decodeAll<Source: StreamingTraceFile, Sink: DecodedEventSink>(
        _ decoder: TraceDecoder<Source>, into sink: Sink, rule: inout TraceDamageRule
    ) throws(OutputError) -> TraceDamage? {
        var handler = SinkHandler(sink: sink, rule: rule)
        defer { rule = handler.rule }
        let stop: TraceDamage?
        do throws(DecodeInterruption) {
            if let error = try decoder.decodeAll(into: &handler) {
                let damage = TraceDamage(Source.traceFileError(error))
                // A file cut off inside its last record: passed over with --keep-going, as replay does.
                stop = handler.rule.passOver(damage) ? nil : damage
            } else {
                stop = nil
            }
        } catch {
            switch error {
            case .output(let failure): throw failure
            case .damage(let damage): stop = damage
            }
        }
        try sink.finish(decoder.statistics)
        return stop
    }
}

/// Why ``DecodeCommand``'s handler ended the decoding loop.
private enum DecodeInterruption: Error {
    case output(OutputError)
    case damage(TraceDamage)
}

/// Hands the decoder's events to an output format; damage goes through the rule.
private struct SinkHandler<Sink: DecodedEventSink>: TraceEventHandler {
    let sink: Sink
    var rule: TraceDamageRule

    mutating func handle(_ event: borrowing DecodedATTEvent) throws(DecodeInterruption) {
        do throws(OutputError) { try sink.write(event) } catch { throw .output(error) }
        if let error = event.error {
            try damaged(TraceDamage(pduError: error, opcode: event.opcode, recordIndex: event.trace.recordIndex,
                                    recordOffset: event.trace.recordOffset))
        }
    }

    mutating func handle(_ event: ConnectionTraceEvent) throws(DecodeInterruption) {
        do throws(OutputError) { try sink.write(event) } catch { throw .output(error) }
    }

    mutating func handle(_ anomaly: TraceAnomaly) throws(DecodeInterruption) { try damaged(TraceDamage(anomaly)) }

    private mutating func damaged(_ damage: TraceDamage) throws(DecodeInterruption) {
        if !rule.passOver(damage) { throw .damage(damage) }
    }
}

/// Where decoded events go: one implementation per output format.
protocol DecodedEventSink {
    func write(_ event: DecodedATTEvent) throws(OutputError)
    func write(_ event: ConnectionTraceEvent) throws(OutputError)
    func finish(_ statistics: TraceDecoder<BtsnoopFileReader>.Statistics) throws(OutputError)
}
