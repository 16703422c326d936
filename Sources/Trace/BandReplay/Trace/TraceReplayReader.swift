#if canImport(Glibc)
import Glibc
#endif
import BandATT
import BandTrace
import BandWire

/// One thing a trace says happened, as a replay consumes it.
public enum TraceReplayEvent {
    case connected(TraceConnection, peer: LEAddress, unixMicroseconds: Int64)
    case disconnected(TraceConnection, unixMicroseconds: Int64)
    /// An ATT PDU that parsed, with who sent it and, for PDUs about one attribute, that
    /// attribute's handle and type (learned from discovery, or given with `--map`).
    case att(DecodedATTEvent, sender: ATTSender, connection: TraceConnection)
}

/// Streams a trace (btsnoop, pcapng or pcap) through BandTrace's decoder (HCI, L2CAP
/// reassembly, ATT, handle → UUID), applying the replay's damage policy:
///
/// - without `keepGoing`, the first damage ends the read; everything before it has been
///   delivered, and ``Outcome/stoppedAt`` says where (the caller exits 65);
/// - with `keepGoing`, a malformed packet or ATT PDU is skipped and counted, and a file cut
///   off inside its last record counts as one skipped record; broken btsnoop framing still
///   ends the read (there is no sync marker to find the next record by).
///
/// Two sources, one policy: a file (``init(path:format:overrides:)``, what `bandsim replay`
/// opens, streamed through one fixed buffer) or bytes already in memory
/// (``init(bytes:format:overrides:)``, what the fuzz harness and tests hand it: no file, no
/// read buffer), each in three formats. The concrete reader is chosen once;
/// ``run(keepGoing:visit:)`` is one generic loop specialised per reader, so the per-record path
/// has no existential and no switch.
public final class TraceReplayReader {
    public struct Outcome: Sendable {
        public var records = 0
        public var attPDUs = 0
        /// Damage skipped with `keepGoing`, in file order (the first 100 kept).
        public var skipped: [TraceDamage] = []
        public var skippedCount = 0
        /// Every skipped record counted by kind (all of them, not only the first 100).
        public var skippedByKind: [TraceDamage.Kind: Int] = [:]
        /// The damage that ended the read early, if any.
        public var stoppedAt: TraceDamage?
    }

    /// The decoder over the concrete reader the source needs (a class each: no copy per record).
    private enum Decoder {
        case btsnoopFile(TraceDecoder<BtsnoopFileReader>)
        case pcapngFile(TraceDecoder<PcapngFileReader>)
        case pcapFile(TraceDecoder<PcapFileReader>)
        case btsnoop(TraceDecoder<BtsnoopMemoryReader>)
        case pcapng(TraceDecoder<PcapngMemoryReader>)
        case pcap(TraceDecoder<PcapMemoryReader>)
    }

    /// The file read, or nil when reading bytes in memory.
    public let path: String?
    private let decoder: Decoder
    /// Size of the file, for progress (nil when it cannot be known, e.g. a pipe).
    public let fileSize: Int?
    /// The container format being read.
    public let format: TraceFileFormat

    /// Opens `path` (btsnoop, pcapng or pcap: `format`, or detected from its magic) and reads
    /// its header (a bad header is framing damage at offset 0).
    public init(path: String, format: TraceFileFormat? = nil, overrides: [UInt16: BluetoothUUID] = [:]) throws(TraceDamage) {
        self.path = path
        let file: OpenedTraceFile
        do throws(TraceFileError) {
            file = try OpenedTraceFile(path: path, format: format)
        } catch {
            throw TraceDamage(error)
        }
        switch file {
        case .btsnoop(let reader): decoder = .btsnoopFile(TraceDecoder(source: reader, overrides: overrides))
        case .pcapng(let reader): decoder = .pcapngFile(TraceDecoder(source: reader, overrides: overrides))
        case .pcap(let reader): decoder = .pcapFile(TraceDecoder(source: reader, overrides: overrides))
        }
        self.format = file.format
        var status = stat()
        fileSize = stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG ? Int(status.st_size) : nil
    }

    /// Reads a whole trace already in memory (btsnoop, pcapng or pcap: `format`, or detected from
    /// its magic, btsnoop when none matches, as for a file) and its header. Events, damage and
    /// offsets are those the same bytes give from a file. `bytes` must stay valid and unchanged
    /// until ``run(keepGoing:visit:)`` has returned: records are views into them.
    public init(bytes: UnsafeRawBufferPointer, format: TraceFileFormat? = nil, overrides: [UInt16: BluetoothUUID] = [:]) throws(TraceDamage) {
        path = nil
        fileSize = bytes.count
        let format = format ?? TraceFileFormat.detect(prefix: bytes) ?? .btsnoop
        self.format = format
        switch format {
        case .btsnoop:
            do throws(BtsnoopError) {
                decoder = .btsnoop(TraceDecoder(source: try BtsnoopMemoryReader(bytes: bytes), overrides: overrides))
            } catch {
                throw TraceDamage(.btsnoop(error))
            }
        case .pcapng:
            do throws(CaptureFileError) {
                decoder = .pcapng(TraceDecoder(source: try PcapngMemoryReader(bytes: bytes), overrides: overrides))
            } catch {
                throw TraceDamage(.capture(error))
            }
        case .pcap:
            do throws(CaptureFileError) {
                decoder = .pcap(TraceDecoder(source: try PcapMemoryReader(bytes: bytes), overrides: overrides))
            } catch {
                throw TraceDamage(.capture(error))
            }
        }
    }

    /// Bytes of the trace read so far (in memory: all of them, from the start).
    public var bytesRead: Int {
        switch decoder {
        case .btsnoopFile(let decoder): return decoder.source.bytesRead
        case .pcapngFile(let decoder): return decoder.source.bytesRead
        case .pcapFile(let decoder): return decoder.source.bytesRead
        case .btsnoop, .pcapng, .pcap: return fileSize ?? 0
        }
    }

    /// Reads the whole trace, calling `visit` for every event in order.
    public func run(keepGoing: Bool, visit: (TraceReplayEvent) -> Void) -> Outcome {
        switch decoder {
        case .btsnoopFile(let decoder): return Self.run(decoder, keepGoing: keepGoing, visit: visit)
        case .pcapngFile(let decoder): return Self.run(decoder, keepGoing: keepGoing, visit: visit)
        case .pcapFile(let decoder): return Self.run(decoder, keepGoing: keepGoing, visit: visit)
        case .btsnoop(let decoder): return Self.run(decoder, keepGoing: keepGoing, visit: visit)
        case .pcapng(let decoder): return Self.run(decoder, keepGoing: keepGoing, visit: visit)
        case .pcap(let decoder): return Self.run(decoder, keepGoing: keepGoing, visit: visit)
        }
    }

    /// The replay loop over one concrete source; its errors read as a trace file's, so damage
    /// reads the same from a file and from memory.
    private static func run<Source: TraceFileRecordSource>(
        _ decoder: TraceDecoder<Source>, keepGoing: Bool, visit: (TraceReplayEvent) -> Void
    ) -> Outcome {
        var outcome = Outcome()
        func damaged(_ damage: TraceDamage) -> Bool {
            guard keepGoing, damage.kind != .framing, damage.kind != .io else {
                outcome.stoppedAt = damage
                return false
            }
            outcome.skippedCount += 1
            outcome.skippedByKind[damage.kind, default: 0] += 1
            if outcome.skipped.count < 100 { outcome.skipped.append(damage) }
            return true
        }
        reading: while true {
            let next: TraceDecoderEvent?
            do throws(Source.Failure) {
                next = try decoder.next()
            } catch {
                _ = damaged(TraceDamage(Source.traceFileError(error)))
                break reading
            }
            guard let event = next else { break }
            switch event {
            case .anomaly(let anomaly):
                guard damaged(TraceDamage(anomaly)) else { break reading }
            case .connection(let change):
                let connection = TraceConnection(adapter: change.adapter, handle: change.connection)
                switch change.change {
                case .connected(let peer): visit(.connected(connection, peer: peer, unixMicroseconds: change.unixMicroseconds))
                case .disconnected: visit(.disconnected(connection, unixMicroseconds: change.unixMicroseconds))
                }
            case .att(let att):
                outcome.attPDUs += 1
                if let error = att.error {
                    let damage = TraceDamage(pduError: error, opcode: att.opcode, recordIndex: att.trace.recordIndex,
                                             recordOffset: att.trace.recordOffset)
                    guard damaged(damage) else { break reading }
                    continue
                }
                let sender: ATTSender = att.trace.direction == .tx ? .recordingHost : .remoteDevice
                visit(.att(att, sender: sender, connection: TraceConnection(adapter: att.trace.adapter, handle: att.trace.connection)))
            }
        }
        outcome.records = decoder.statistics.records
        return outcome
    }
}
