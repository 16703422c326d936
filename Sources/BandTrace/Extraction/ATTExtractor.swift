import BandHCI
import BandWire

/// Turns btsnoop records into ATT PDUs: unwraps the datalink framing, follows connections
/// from HCI events, reassembles L2CAP frames from ACL fragments, and keeps the ones on the
/// ATT channel (CID 4).
///
/// Cheap on what it skips: commands, SCO/ISO and events other than (Enhanced) LE Connection
/// Complete and Disconnection Complete are recognised by their first one or two bytes and
/// never parsed; advertising reports cost one comparison. Nothing is allocated per record
/// once every connection has been seen.
public final class ATTExtractor {
    /// What one record amounted to. Both may be set (a frame completed and something was wrong).
    public struct Output {
        public var event: Event?
        public var anomaly: TraceAnomaly?
    }

    public enum Event {
        case att(ATTTraceEvent)
        case connection(ConnectionTraceEvent)
    }

    private struct ConnectionKey: Hashable {
        var adapter: UInt16
        var handle: UInt16
    }

    public let reassembler: L2CAPReassembler
    private var peers: [ConnectionKey: LEAddress] = [:]
    /// The last lookup in `peers`: PDUs come in long runs on one connection.
    private var lastPeer: (key: ConnectionKey, peer: LEAddress?)?
    /// L2CAP frames on channels other than ATT (signaling, SMP), counted and skipped.
    public private(set) var otherChannelFrames = 0

    public init(reassembler: L2CAPReassembler = L2CAPReassembler()) {
        self.reassembler = reassembler
    }

    /// The peer of a live connection, if its connection event was in the trace.
    public func peer(adapter: UInt16, connection: UInt16) -> LEAddress? {
        peers[ConnectionKey(adapter: adapter, handle: connection)]
    }

    @inline(__always)  // into the trace decoder: its Output (~140 bytes) is then built in place, not copied
    public func process(_ record: BtsnoopRecord, datalink: BtsnoopDatalink) -> Output {
        var output = Output()
        let packet: TraceHCIPacket
        do throws(ParseError) {
            guard let unwrapped = try TraceHCIPacket.unwrap(record, datalink: datalink) else {
                if datalink == .linuxMonitor, UInt16(truncatingIfNeeded: record.flags) == MonitorOpcode.deleteIndex.rawValue {
                    forget(adapter: UInt16(truncatingIfNeeded: record.flags >> 16))
                }
                return output
            }
            packet = unwrapped
        } catch {
            output.anomaly = TraceAnomaly(kind: .malformedPacket(error), recordIndex: record.index, recordOffset: record.offset)
            return output
        }
        do throws(ParseError) {
            switch packet.type {
            case .acl:
                try acl(packet, record: record, output: &output)
            case .event:
                try event(packet, record: record, output: &output)
            default:
                break
            }
        } catch {
            output.anomaly = TraceAnomaly(kind: .malformedPacket(error), recordIndex: record.index, recordOffset: record.offset)
        }
        return output
    }

    private func acl(_ packet: TraceHCIPacket, record: BtsnoopRecord, output: inout Output) throws(ParseError) {
        var cursor = ByteCursor(packet.payload, baseOffset: packet.payloadOffset)
        let header = try HCIACLHeader(parsing: &cursor)
        let length = Int(header.dataLength)
        // A record cut to a snap length is reported like any other short packet: its
        // fragment cannot be reassembled correctly.
        if length > cursor.remaining {
            throw ParseError(.truncated, at: cursor.offset + cursor.remaining, field: "ACL data")
        }
        if length < cursor.remaining {
            throw ParseError(.trailingBytes, at: cursor.offset + length, field: "ACL data")
        }
        let fragment = cursor.readRemaining()
        let key = L2CAPReassembler.Key(adapter: packet.adapter, handle: header.handle, direction: packet.direction)
        let outcome = reassembler.push(key, boundary: header.boundary, fragment: fragment)
        if let anomaly = outcome.anomaly {
            output.anomaly = TraceAnomaly(kind: .reassembly(anomaly, connection: header.handle, direction: packet.direction),
                                          recordIndex: record.index, recordOffset: record.offset)
        }
        guard let frame = outcome.frame else { return }
        guard frame.channel == .att else {
            otherChannelFrames += 1
            return
        }
        let connection = ConnectionKey(adapter: packet.adapter, handle: header.handle)
        let peer: LEAddress?
        if let last = lastPeer, last.key == connection {
            peer = last.peer
        } else {
            peer = peers[connection]
            lastPeer = (connection, peer)
        }
        output.event = .att(ATTTraceEvent(unixMicroseconds: record.unixMicroseconds, direction: packet.direction,
                                          adapter: packet.adapter, connection: header.handle, peer: peer,
                                          pdu: frame.payload, recordIndex: record.index, recordOffset: record.offset))
    }

    private func event(_ packet: TraceHCIPacket, record: BtsnoopRecord, output: inout Output) throws(ParseError) {
        let payload = packet.payload
        // Decide from the first bytes alone; most events (advertising reports above all) stop here.
        guard payload.count >= 3 else { return }
        let code = HCIEventCode(rawValue: payload[0])
        let isConnection = code == .leMeta
            && (payload[2] == LEMetaSubevent.connectionComplete.rawValue || payload[2] == LEMetaSubevent.enhancedConnectionComplete.rawValue)
        guard isConnection || code == .disconnectionComplete else { return }

        var cursor = ByteCursor(payload, baseOffset: packet.payloadOffset)
        let header = try HCIEventHeader(parsing: &cursor)
        var parameters = try cursor.readCursor(Int(header.parameterLength), "event parameters")
        let change: ConnectionTraceEvent.Change
        let handle: UInt16
        if code == .disconnectionComplete {
            let event = try DisconnectionComplete(parsing: &parameters)
            guard event.status == 0 else { return }
            handle = event.handle
            change = .disconnected(reason: event.reason)
            reassembler.close(adapter: packet.adapter, handle: handle)
            peers[ConnectionKey(adapter: packet.adapter, handle: handle)] = nil
            lastPeer = nil
        } else {
            let status: UInt8, peer: LEAddress
            if payload[2] == LEMetaSubevent.connectionComplete.rawValue {
                let event = try LEConnectionComplete(parsing: &parameters)
                (status, handle, peer) = (event.status, event.handle, event.peer)
            } else {
                let event = try LEEnhancedConnectionComplete(parsing: &parameters)
                (status, handle, peer) = (event.status, event.handle, event.peer)
            }
            guard status == 0 else { return }
            // A handle reused without a disconnection in the trace: the old frames are stale.
            reassembler.close(adapter: packet.adapter, handle: handle)
            peers[ConnectionKey(adapter: packet.adapter, handle: handle)] = peer
            lastPeer = nil
            change = .connected(peer)
        }
        output.event = .connection(ConnectionTraceEvent(unixMicroseconds: record.unixMicroseconds, adapter: packet.adapter,
                                                        connection: handle, change: change, recordIndex: record.index))
    }

    private func forget(adapter: UInt16) {
        reassembler.close(adapter: adapter)
        for key in peers.keys where key.adapter == adapter { peers[key] = nil }
        lastPeer = nil
    }
}
