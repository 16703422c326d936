import BandATT
import BandTrace
import BandWire

/// Everything a replay takes from one trace: the GATT databases it reveals, what each server
/// pushed and when (with the client writes that preceded each push), and who the peers were.
///
/// Built by feeding a ``TraceReplayReader``'s events to ``consume(_:)``; pure state, no I/O.
public struct TraceRecording {
    public private(set) var reconstructor = GATTDatabaseReconstructor()
    public private(set) var timelines: [ATTServerSide: NotificationTimeline] = [:]
    /// The remote device of each connection, when the trace shows it connecting.
    public private(set) var peers: [TraceConnection: LEAddress] = [:]
    /// ATT PDUs per connection.
    public private(set) var pduCounts: [TraceConnection: Int] = [:]
    /// Discovery responses the reconstruction could not read (already counted as damage by
    /// the decoder in practice; kept so nothing is lost silently).
    public private(set) var unreadablePDUs = 0

    private var resolver = ConnectionResolver()
    /// Whether push timelines are kept (`--serve` needs them; `--into` only the databases).
    public let keepsTimelines: Bool

    public init(keepsTimelines: Bool = true) {
        self.keepsTimelines = keepsTimelines
    }

    private func resolve(_ raw: TraceConnection) -> TraceConnection { resolver.resolve(raw) }

    public mutating func consume(_ event: TraceReplayEvent) {
        switch event {
        case .connected(let raw, let peer, let time):
            resolver.connected(raw)
            let connection = resolve(raw)
            peers[connection] = peer
            for server in [ATTSender.remoteDevice, .recordingHost] {
                timelines[ATTServerSide(connection: connection, server: server), default: NotificationTimeline()].connected(at: time)
            }
        case .disconnected(let raw, let time):
            let connection = resolve(raw)
            reconstructor.connectionEnded(connection)
            for server in [ATTSender.remoteDevice, .recordingHost] {
                let side = ATTServerSide(connection: connection, server: server)
                if timelines[side] != nil { timelines[side]!.disconnected(at: time) }
            }
        case .att(let att, let sender, let raw):
            resolver.sawPDU(raw)
            let connection = resolve(raw)
            pduCounts[connection, default: 0] += 1
            let pdu = att.trace.pdu
            let time = att.trace.unixMicroseconds
            do throws(ParseError) {
                try reconstructor.observe(pdu, from: sender, on: connection)
            } catch {
                unreadablePDUs += 1
            }
            guard keepsTimelines, let opcode = att.opcode else { return }
            switch opcode {
            case .handleValueNotification, .handleValueIndication:
                guard let handle = att.handle, let value = att.value else { return }
                timelines[ATTServerSide(connection: connection, server: sender), default: NotificationTimeline()]
                    .serverPushed(handle: handle, value: value, isIndication: opcode == .handleValueIndication, at: time)
            case .writeRequest, .writeCommand, .signedWriteCommand:
                guard let handle = att.handle else { return }
                timelines[ATTServerSide(connection: connection, server: sender.other), default: NotificationTimeline()]
                    .clientWrote(handle: handle, at: time)
            default:
                // Any PDU marks the connection alive at that time, for both possible servers.
                for server in [ATTSender.remoteDevice, .recordingHost] {
                    timelines[ATTServerSide(connection: connection, server: server), default: NotificationTimeline()].saw(at: time)
                }
            }
        }
    }

    /// The server end to impersonate: on `connection` (an HCI handle) if given, else the
    /// reconstructor's preference (most notifications, then largest database, then the
    /// earliest connection, then the remote device). Every tie is broken, so the same trace
    /// always gives the same side (a Set's order differs from run to run).
    public func side(onConnectionHandle handle: UInt16? = nil) -> ATTServerSide? {
        let candidates = Set(reconstructor.sides).union(timelines.keys.filter { !timelines[$0]!.isEmpty })
            .filter { handle == nil || $0.connection.handle == handle }
        func isRemote(_ side: ATTServerSide) -> Int { side.server == .remoteDevice ? 1 : 0 }
        return candidates.max { a, b in
            let left = (timelines[a]?.count ?? 0, reconstructor.database(a).attributeCount, b.connection, isRemote(a))
            let right = (timelines[b]?.count ?? 0, reconstructor.database(b).attributeCount, a.connection, isRemote(b))
            return left < right
        }
    }

    public func database(_ side: ATTServerSide) -> RecordedGATTDatabase { reconstructor.database(side) }
    public func timeline(_ side: ATTServerSide) -> NotificationTimeline { timelines[side] ?? NotificationTimeline() }
}
