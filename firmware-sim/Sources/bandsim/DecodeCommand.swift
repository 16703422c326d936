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
            malformed PDU or value (offset in the PDU). Problems below ATT (orphan ACL fragments,
            malformed HCI packets) are reported on stderr and decoding continues. A damaged file ends
            with exit 65 and a message naming the record (pcapng: block) and byte offset, after
            everything before it.
            """,
        options: [
            .argument("TRACE", help: "The trace file (btsnoop, pcapng or pcap)."),
            .option("format", value: "btsnoop|pcapng|pcap", help: "Read TRACE as this format (default: detected from its magic)."),
            .flag("json", help: "One JSON object per ATT PDU per line."),
            .option("map", value: "HANDLE=UUID", repeats: true,
                    help: "Treat HANDLE (decimal or 0x-hex) as characteristic UUID (e.g. 0x0012=2a37)."),
        ])

    var path: String
    var json: Bool
    var overrides: [UInt16: BluetoothUUID] = [:]
    var format: TraceFileFormat?

    init(arguments: ParsedArguments) throws(UsageError) {
        path = arguments.required("TRACE")
        json = arguments.flag("json")
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
        let decoder: TraceDecoder<TraceFileReader>
        do throws(TraceFileError) {
            decoder = try TraceDecoder(path: path, format: format, overrides: overrides)
        } catch {
            throw Self.failure(error, path: path)
        }
        let output = BufferedOutput(fileDescriptor: 1)
        let damage = json
            ? try decodeAll(decoder, into: JSONDecodeFormat(output: output))
            : try decodeAll(decoder, into: TextDecodeFormat(output: output))
        try output.flush()
        for note in [decoder.source.airCaptureNote, decoder.source.skippedPacketsNote].compactMap({ $0 }) {
            CommandRunner.printError("bandsim decode: \(path): \(note)")
        }
        if let damage { throw Self.failure(damage, path: path) }
        return .success
    }

    /// Everything decodable goes to `sink` (and anomalies to stderr); returns the damage that
    /// stopped decoding early, reported after what came before it has been written.
    private func decodeAll<Sink: DecodedEventSink>(_ decoder: TraceDecoder<TraceFileReader>, into sink: Sink) throws(OutputError) -> TraceFileError? {
        var handler = SinkHandler(sink: sink, path: path)
        let damage = try decoder.decodeAll(into: &handler)
        try sink.finish(decoder.statistics)
        return damage
    }

    /// A file that cannot be read is exit 1; one that is damaged is bad data, exit 65.
    static func failure(_ error: TraceFileError, path: String) -> any CommandFailure {
        if error.isSystemFailure { return RuntimeFailure("bandsim decode: \(path): \(error)") }
        return DataError("bandsim decode: \(path): \(error)")
    }
}

/// Hands the decoder's events to an output format; anomalies go to standard error.
private struct SinkHandler<Sink: DecodedEventSink>: TraceEventHandler {
    let sink: Sink
    let path: String

    func handle(_ event: borrowing DecodedATTEvent) throws(OutputError) { try sink.write(event) }
    func handle(_ event: ConnectionTraceEvent) throws(OutputError) { try sink.write(event) }
    func handle(_ anomaly: TraceAnomaly) { CommandRunner.printError("bandsim decode: \(path): \(anomaly)") }
}

/// Where decoded events go: one implementation per output format.
protocol DecodedEventSink {
    func write(_ event: DecodedATTEvent) throws(OutputError)
    func write(_ event: ConnectionTraceEvent) throws(OutputError)
    func finish(_ statistics: TraceDecoder<BtsnoopFileReader>.Statistics) throws(OutputError)
}
