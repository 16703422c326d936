import BandATT
import BandGATT
import BandGATTClient
import BandReader
import BandTrace
import BandWire
import Foundation
import HealthStore

private struct PushKey: Hashable {
    var handle: UInt16
    var type: BluetoothUUID?
}

/// `bandsim replay --into`: a trace fed through the live reader's own handling into a health
/// store, connection by connection (`RecordedSessionFeed`).
///
/// Two passes over the file. The first rebuilds each connection's GATT database and device
/// identity (Device Information may be read anywhere in a trace, and the store writer needs
/// the device before the first sample); the second replays the PDUs in recorded order, each
/// connection through its own feed, as each connection was its own reader session. A
/// reconnection that skipped discovery (a bonded phone) uses the database of the same peer's
/// earlier connection.
///
/// Idempotent: the samples carry the reader's sync identifiers and versions, so a second
/// replay of the same trace into the same store inserts and replaces nothing.
public final class TraceStoreReplay {
    public struct Options: Sendable {
        /// Replay only this HCI connection handle.
        public var connectionHandle: UInt16?
        /// The device's identity for sync identifiers (`--device`): an address or any stable name.
        public var device: String?
        /// The device's name in the store (`--source`).
        public var sourceName: String?
        public var timeZone: TimeZone = .current
        public var keepGoing = false
        public var overrides: [UInt16: BluetoothUUID] = [:]
        /// The trace's container format; nil: detected from its magic.
        public var format: TraceFileFormat?
        public init() {}
    }

    /// One connection's replay.
    public struct ConnectionReport: Sendable {
        public var connection: TraceConnection
        public var deviceIdentifier: String?
        public var outcome: RecordedSessionFeed.Outcome
        /// Why nothing was replayed, if nothing was.
        public var skippedBecause: String?
    }

    public struct Summary: Sendable {
        public var trace = TraceReplayReader.Outcome()
        public var connections: [ConnectionReport] = []
        /// Notifications and indications replayed, per characteristic (UUID text, or the handle).
        public var notifications: [String: Int] = [:]
        public var total: RecordedSessionFeed.Outcome {
            connections.reduce(into: RecordedSessionFeed.Outcome()) { sum, report in
                sum.liveMinutes += report.outcome.liveMinutes
                sum.historyMinutes += report.outcome.historyMinutes
                sum.historyTransfersDiscarded += report.outcome.historyTransfersDiscarded
                sum.samplesInserted += report.outcome.samplesInserted
                sum.samplesReplaced += report.outcome.samplesReplaced
                sum.samplesUnchanged += report.outcome.samplesUnchanged
                sum.samplesDeleted += report.outcome.samplesDeleted
            }
        }
        /// Things the reader's code reported as not used (malformed values, rejected counters).
        public var anomalies: [String] = []
        public var anomalyCount = 0
    }

    public enum Failure: Error, CustomStringConvertible {
        case damaged(TraceDamage, Summary)
        case unidentifiedDevice(TraceConnection)
        case store(String)

        public var description: String {
            switch self {
            case .damaged(let damage, _): return "\(damage)"
            case .unidentifiedDevice(let connection):
                return "the trace does not say which device \(connection) was: no serial number was read, and no connection event names it (a trace recorded at the device's own end names only the reader); name it with --device"
            case .store(let what): return what
            }
        }
    }

    public let path: String
    public let options: Options
    /// Called with (bytes done, bytes total) across both passes.
    public var progress: ((Int, Int?) -> Void)?

    public init(path: String, options: Options) {
        self.path = path
        self.options = options
    }

    /// Replays into `store`. Throws `Failure/damaged` after replaying everything before the
    /// damage (unless `keepGoing` skipped it), so the caller can exit 65 with the summary.
    public func run(into store: HealthStore) throws -> Summary {
        // Pass 1: databases and devices.
        let first = try TraceReplayReader(path: path, format: options.format, overrides: options.overrides)
        let size = first.fileSize
        var recording = TraceRecording(keepsTimelines: false)
        var events = 0
        let firstOutcome = first.run(keepGoing: options.keepGoing) { event in
            recording.consume(event)
            events += 1
            if events & 0xFFF == 0 { progress?(first.bytesRead, size.map { 2 * $0 }) }
        }
        let plan = ReplayPlan(recording: recording, options: options)

        // Pass 2: every connection through its own feed, in recorded order.
        var summary = Summary()
        // Counted by (handle, type) on the hot path, named once at the end.
        var pushCounts: [PushKey: Int] = [:]
        var feeds: [TraceConnection: RecordedSessionFeed] = [:]
        var failure: (any Error)?
        let report: (ReaderEvent) -> Void = { event in
            if case .anomaly(let what) = event {
                summary.anomalyCount += 1
                if summary.anomalies.count < 100 { summary.anomalies.append(what) }
            }
        }
        var resolver = ConnectionResolver()
        let second = try TraceReplayReader(path: path, format: options.format, overrides: options.overrides)
        let secondOutcome = second.run(keepGoing: options.keepGoing) { event in
            guard failure == nil else { return }
            events += 1
            if events & 0xFFF == 0 { progress?((size ?? 0) + second.bytesRead, size.map { 2 * $0 }) }
            do {
                switch event {
                case .connected(let raw, _, _):
                    resolver.connected(raw)
                case .disconnected(let raw, _):
                    let connection = resolver.resolve(raw)
                    if let feed = feeds.removeValue(forKey: connection) {
                        summary.connections.append(ConnectionReport(connection: connection, deviceIdentifier: feed.writer.deviceIdentifier,
                                                                    outcome: try feed.finish()))
                    }
                case .att(let att, let sender, let raw):
                    resolver.sawPDU(raw)
                    let connection = resolver.resolve(raw)
                    guard let opcode = att.opcode else { return }
                    if opcode == .handleValueNotification || opcode == .handleValueIndication, let handle = att.handle {
                        pushCounts[PushKey(handle: handle, type: att.type), default: 0] += 1
                    }
                    guard let chosen = plan.connections[connection] else { return }
                    let fromServer = sender == chosen.side.server
                    let time = Date(timeIntervalSince1970: Double(att.trace.unixMicroseconds) / 1_000_000)
                    let feed: RecordedSessionFeed
                    if let existing = feeds[connection] {
                        feed = existing
                    } else {
                        feed = try chosen.makeFeed(store: store, timeZone: options.timeZone, report: report)
                        feeds[connection] = feed
                    }
                    switch opcode {
                    case .handleValueNotification where fromServer, .handleValueIndication where fromServer:
                        guard let handle = att.handle, let value = att.value else { return }
                        try feed.serverPushed(handle: handle, value: value, at: time)
                    case .readRequest where !fromServer:
                        if let handle = att.handle { feed.clientRead(handle: handle, at: time) }
                    case .readResponse where fromServer:
                        if let handle = att.handle, let value = att.value { feed.readResponse(handle: handle, value: value, at: time) }
                    case .writeRequest where !fromServer, .writeCommand where !fromServer:
                        if let handle = att.handle, let value = att.value { try feed.clientWrote(handle: handle, value: value, at: time) }
                    default:
                        break
                    }
                }
            } catch {
                failure = error
            }
        }
        for (key, count) in pushCounts {
            summary.notifications[key.type.map { "\($0)" } ?? "handle 0x" + String(key.handle, radix: 16), default: 0] += count
        }
        if let failure { throw Failure.store("\(failure)") }
        do {
            for (connection, feed) in feeds.sorted(by: { $0.key < $1.key }) {
                summary.connections.append(ConnectionReport(connection: connection, deviceIdentifier: feed.writer.deviceIdentifier,
                                                            outcome: try feed.finish()))
            }
        } catch {
            throw Failure.store("\(error)")
        }
        for (connection, reason) in plan.skipped {
            summary.connections.append(ConnectionReport(connection: connection, deviceIdentifier: nil,
                                                        outcome: RecordedSessionFeed.Outcome(), skippedBecause: reason))
        }
        summary.connections.sort { $0.connection < $1.connection }
        summary.trace = secondOutcome
        summary.trace.records = max(firstOutcome.records, secondOutcome.records)
        if let damage = secondOutcome.stoppedAt ?? firstOutcome.stoppedAt { throw Failure.damaged(damage, summary) }
        if let unidentified = plan.unidentified { throw Failure.unidentifiedDevice(unidentified) }
        return summary
    }
}
