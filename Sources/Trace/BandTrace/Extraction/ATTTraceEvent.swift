import BandWire

/// One ATT PDU found in a trace: when, which way, on which connection, and its bytes.
///
/// `pdu` is a view into the reader's or reassembler's buffer, valid until the producer is
/// advanced; the whole ATT PDU, opcode first (Core 5.4 Vol 3 Part F §3.3).
public struct ATTTraceEvent {
    /// Record time as Unix microseconds.
    public var unixMicroseconds: Int64
    /// tx: sent by the host that recorded the trace; rx: received by it.
    public var direction: TraceDirection
    public var adapter: UInt16
    /// HCI connection handle.
    public var connection: UInt16
    /// The peer, when the trace shows the connection being made.
    public var peer: LEAddress?
    public var pdu: UnsafeRawBufferPointer
    /// The btsnoop record that completed the PDU.
    public var recordIndex: Int
    public var recordOffset: Int
    /// Whose `direction` this is: the host that recorded an HCI trace, or, in an air capture,
    /// the connection's central (tx = central → peripheral).
    public var viewpoint: TraceViewpoint
    /// An air capture's PDU the sniffer received with a failed CRC but the peer acknowledged
    /// (``LLConnectionFollower``): its bytes may be damaged.
    public var crcFailed = false

    public init(unixMicroseconds: Int64, direction: TraceDirection, adapter: UInt16, connection: UInt16, peer: LEAddress?,
                pdu: UnsafeRawBufferPointer, recordIndex: Int, recordOffset: Int, viewpoint: TraceViewpoint = .recordingHost) {
        self.unixMicroseconds = unixMicroseconds
        self.direction = direction
        self.adapter = adapter
        self.connection = connection
        self.peer = peer
        self.pdu = pdu
        self.recordIndex = recordIndex
        self.recordOffset = recordOffset
        self.viewpoint = viewpoint
    }

    /// The ATT opcode, nil for an empty L2CAP payload.
    @inlinable public var opcode: UInt8? { pdu.first }
}

/// Who a trace's directions are relative to.
public enum TraceViewpoint: UInt8, Hashable, Sendable {
    /// An HCI trace: tx = sent by the host that recorded it.
    case recordingHost
    /// An air capture (link types 256, 272): tx = sent by the connection's central.
    case central
}

/// A connection coming or going, as the trace's HCI events tell it.
public struct ConnectionTraceEvent: Hashable, Sendable {
    public enum Change: Hashable, Sendable {
        case connected(LEAddress)
        case disconnected(reason: UInt8)
    }
    public var unixMicroseconds: Int64
    public var adapter: UInt16
    public var connection: UInt16
    public var change: Change
    public var recordIndex: Int
}

/// Something in a trace that is wrong but does not stop decoding: reported, then skipped.
public struct TraceAnomaly: Hashable, Sendable, CustomStringConvertible {
    public enum Kind: Hashable, Sendable {
        /// An HCI packet whose own fields do not add up (ParseError offsets are file offsets).
        case malformedPacket(ParseError)
        /// Fragments that did not form frames.
        case reassembly(L2CAPReassembler.Anomaly, connection: UInt16, direction: TraceDirection)
    }

    public var kind: Kind
    public var recordIndex: Int
    public var recordOffset: Int

    public var description: String {
        let place = "record \(recordIndex) at byte offset \(recordOffset)"
        switch kind {
        case .malformedPacket(let error):
            return "\(place): malformed HCI packet: \(error)"
        case .reassembly(let anomaly, let connection, let direction):
            let link = "connection 0x\(String(connection, radix: 16)) \(direction)"
            switch anomaly {
            case .incompleteFrameDiscarded(let received, let expected):
                return "\(place): \(link): new L2CAP frame started while one was incomplete (\(received) of \(expected.map(String.init) ?? "?") bytes); the incomplete one was discarded"
            case .continuationWithoutStart(let bytes):
                return "\(place): \(link): ACL continuation (\(bytes) bytes) with no frame started; dropped"
            case .frameTooLong(let channel, let length):
                return "\(place): \(link): L2CAP frame of \(length) bytes on CID 0x\(String(channel.rawValue, radix: 16)) exceeds the reassembly buffer; dropped"
            case .excessBytes(let count):
                return "\(place): \(link): \(count) bytes beyond the L2CAP length; dropped"
            case .slotEvicted(let key):
                return "\(place): \(link): too many frames open; dropped the incomplete frame of connection 0x\(String(key.handle, radix: 16)) \(key.direction)"
            }
        }
    }
}
