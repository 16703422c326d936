import BandHCI
import BandWire

/// Turns trace records (btsnoop, pcap, pcapng) into ATT PDUs: unwraps the datalink framing, follows connections
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
    // Unchecked: see "Exclusivity" in docs/performance.md (one thread, no callback during an access).
    @exclusivity(unchecked) private var peers: [ConnectionKey: LEAddress] = [:]
    /// The last lookup in `peers`: PDUs come in long runs on one connection.
    @exclusivity(unchecked) private var lastPeer: (key: ConnectionKey, peer: LEAddress?)?
    /// Air-capture frames (per connection and direction) in reassembly that hold a CRC-failed PDU.
    @exclusivity(unchecked) private var crcFailedFrames: Set<L2CAPReassembler.Key> = []
    /// L2CAP frames on channels other than ATT (signaling, SMP), counted and skipped.
    @exclusivity(unchecked) public private(set) var otherChannelFrames = 0

    public init(reassembler: L2CAPReassembler = L2CAPReassembler()) {
        self.reassembler = reassembler
    }

    /// The peer of a live connection, if its connection event was in the trace.
    public func peer(adapter: UInt16, connection: UInt16) -> LEAddress? {
        peers[ConnectionKey(adapter: adapter, handle: connection)]
    }

    /// A btsnoop record through its datalink's framing: ``process(_:)`` of the record it amounts to.
    @inline(__always)
    public func process(_ record: BtsnoopRecord, datalink: BtsnoopDatalink) -> Output {
        process(TraceRecord(record, datalink: datalink))
    }

    /// One record of any container (btsnoop, pcap, pcapng), its framing already removed.
    @inline(__always)  // into the trace decoder: its Output (~140 bytes) is then built in place, not copied
    public func process(_ record: TraceRecord) -> Output {
        var output = Output()
        let packet: TraceHCIPacket
        switch record.content {
        case .packet(let unwrapped):
            packet = unwrapped
        case .adapterRemoved(let adapter):
            forget(adapter: adapter)
            return output
        case .ignored:
            return output
        case .malformed(let error):
            output.anomaly = TraceAnomaly(kind: .malformedPacket(error), recordIndex: record.index, recordOffset: record.offset)
            return output
        case .l2capFragment(let piece):
            // A frame with a CRC-failed fragment in it is marked as such when it completes.
            let key = L2CAPReassembler.Key(adapter: 0, handle: piece.handle, direction: piece.direction)
            if !crcFailedFrames.isEmpty, piece.boundary != .continuing { crcFailedFrames.remove(key) }
            if piece.crcFailed { crcFailedFrames.insert(key) }
            reassemble(adapter: 0, handle: piece.handle, direction: piece.direction, boundary: piece.boundary,
                       fragment: piece.fragment, viewpoint: .central, record: record, output: &output)
            if case .att(var event)? = output.event, !crcFailedFrames.isEmpty, crcFailedFrames.remove(key) != nil {
                event.crcFailed = true
                output.event = .att(event)
            }
            return output
        case .connectionChange(let handle, let change):
            connectionChanged(adapter: 0, handle: handle, change: change, record: record, output: &output)
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

    private func acl(_ packet: TraceHCIPacket, record: TraceRecord, output: inout Output) throws(ParseError) {
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
        reassemble(adapter: packet.adapter, handle: header.handle, direction: packet.direction, boundary: header.boundary,
                   fragment: cursor.readRemaining(), viewpoint: .recordingHost, record: record, output: &output)
    }

    /// One fragment of an L2CAP frame (from an HCI ACL packet or an LL data PDU) into the
    /// reassembler; a completed ATT frame becomes the output's event.
    @inline(__always)
    private func reassemble(adapter: UInt16, handle: UInt16, direction: TraceDirection, boundary: ACLPacketBoundary,
                            fragment: UnsafeRawBufferPointer, viewpoint: TraceViewpoint, record: TraceRecord, output: inout Output) {
        let key = L2CAPReassembler.Key(adapter: adapter, handle: handle, direction: direction)
        let outcome = reassembler.push(key, boundary: boundary, fragment: fragment)
        if let anomaly = outcome.anomaly {
            output.anomaly = TraceAnomaly(kind: .reassembly(anomaly, connection: handle, direction: direction),
                                          recordIndex: record.index, recordOffset: record.offset)
        }
        guard let frame = outcome.frame else { return }
        guard frame.channel == .att else {
            otherChannelFrames += 1
            return
        }
        let connection = ConnectionKey(adapter: adapter, handle: handle)
        let peer: LEAddress?
        if let last = lastPeer, last.key == connection {
            peer = last.peer
        } else {
            peer = peers[connection]
            lastPeer = (connection, peer)
        }
        output.event = .att(ATTTraceEvent(unixMicroseconds: record.unixMicroseconds, direction: direction,
                                          adapter: adapter, connection: handle, peer: peer,
                                          pdu: frame.payload, recordIndex: record.index, recordOffset: record.offset,
                                          viewpoint: viewpoint))
    }

    private func event(_ packet: TraceHCIPacket, record: TraceRecord, output: inout Output) throws(ParseError) {
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

    /// A connection an air capture's link layer showed starting or ending.
    private func connectionChanged(adapter: UInt16, handle: UInt16, change: ConnectionTraceEvent.Change,
                                   record: TraceRecord, output: inout Output) {
        reassembler.close(adapter: adapter, handle: handle)
        crcFailedFrames = crcFailedFrames.filter { $0.handle != handle }
        switch change {
        case .connected(let peer): peers[ConnectionKey(adapter: adapter, handle: handle)] = peer
        case .disconnected: peers[ConnectionKey(adapter: adapter, handle: handle)] = nil
        }
        lastPeer = nil
        output.event = .connection(ConnectionTraceEvent(unixMicroseconds: record.unixMicroseconds, adapter: adapter,
                                                        connection: handle, change: change, recordIndex: record.index))
    }

    private func forget(adapter: UInt16) {
        reassembler.close(adapter: adapter)
        for key in peers.keys where key.adapter == adapter { peers[key] = nil }
        lastPeer = nil
    }
}
