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

/// Streams a btsnoop trace through BandTrace's decoder (HCI, L2CAP reassembly, ATT, handle →
/// UUID), applying the replay's damage policy:
///
/// - without `keepGoing`, the first damage ends the read; everything before it has been
///   delivered, and ``Outcome/stoppedAt`` says where (the caller exits 65);
/// - with `keepGoing`, a malformed packet or ATT PDU is skipped and counted, and a file cut
///   off inside its last record counts as one skipped record; broken btsnoop framing still
///   ends the read (there is no sync marker to find the next record by).
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

    public let path: String
    private let decoder: TraceDecoder<TraceFileReader>
    /// Size of the file, for progress (nil when it cannot be known, e.g. a pipe).
    public let fileSize: Int?

    /// Opens `path` (btsnoop, pcapng or pcap: `format`, or detected from its magic) and reads
    /// its header (a bad header is framing damage at offset 0).
    public init(path: String, format: TraceFileFormat? = nil, overrides: [UInt16: BluetoothUUID] = [:]) throws(TraceDamage) {
        self.path = path
        do throws(TraceFileError) {
            decoder = try TraceDecoder(path: path, format: format, overrides: overrides)
        } catch {
            throw TraceDamage(error)
        }
        var status = stat()
        fileSize = stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG ? Int(status.st_size) : nil
    }

    /// The container format being read.
    public var format: TraceFileFormat { decoder.source.format }
    /// Bytes of the file consumed so far.
    public var bytesRead: Int { decoder.source.bytesRead }

    /// Reads the whole trace, calling `visit` for every event in order.
    public func run(keepGoing: Bool, visit: (TraceReplayEvent) -> Void) -> Outcome {
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
            do throws(TraceFileError) {
                next = try decoder.next()
            } catch {
                _ = damaged(TraceDamage(error))
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
