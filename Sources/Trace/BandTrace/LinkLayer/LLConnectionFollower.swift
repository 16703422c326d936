import BandHCI
import BandWire

/// Follows one LE connection through an air capture (link types 256 and 272) and turns its
/// data PDUs into the L2CAP fragments and connection changes the HCI path consumes: a state
/// machine fed one captured packet at a time, no I/O.
///
/// - **Which connection.** The latest CONNECT_IND (Core 5.4 Vol 6 Part B §2.3.3.1) names the
///   access address to follow; data PDUs on any other access address are counted and skipped.
///   Each CONNECT_IND starts a new connection with the next handle (1, 2, …); its peer is the
///   advertiser (AdvA), as the central sees it. The channel map and hop increment are kept
///   but not needed: the sniffer already hopped, the capture holds what it heard.
/// - **Direction.** From the sniffer's pseudo-header when it says (272 always; 256 when its
///   PDU type field is 2 or 3). Otherwise inferred: the central transmits first in every
///   connection event (§4.5.1), so a packet more than 3 ms after the previous one on the
///   connection (longer than any packet exchange within an event at 1 Mb/s: 2 × 2.12 ms
///   packets would need 4.4 ms, but events alternate after 150 µs) is the central's, and the
///   others alternate. Central → peripheral is `tx`, peripheral → central is `rx`: directions
///   as the central sees them.
/// - **Retransmissions** (§4.5.9): a packet with the same SN as the last one delivered from
///   its side, when the peer has not acknowledged that one since (its NESN still equals it),
///   is a retransmission and is dropped. Counted.
/// - **CRC failures.** A data PDU whose CRC failed at the sniffer is held until the peer's next
///   packet says what the peer made of it: its NESN moved past the PDU's SN (or the sender went
///   on to a new SN, which it does only once acknowledged) — the peer received it intact and
///   will not see it again — so it is delivered after all, marked
///   (``LinkLayerFragment/crcFailed``; Wireshark decodes such a PDU too), its bytes the
///   sniffer's, possibly damaged; otherwise (the peer asks for it again, the same side sends
///   the same SN again, the connection ends, another CRC failure comes first) it is dropped and
///   the retransmission carries it. Both counted. The delivered one comes out before the
///   packet that acknowledged it (``takeAcknowledgedCRCFailure()``).
/// - **Encryption**: after LL_START_ENC_REQ, or when the sniffer flags a packet encrypted,
///   non-empty PDUs are counted as encrypted and not decoded (their payload is ciphertext + MIC).
/// - **LL_TERMINATE_IND** ends the connection (a disconnection with its error code).
public struct LLConnectionFollower {
    public struct Statistics: Hashable, Sendable {
        public var connections = 0
        public var dataPDUs = 0
        public var emptyPDUs = 0
        public var controlPDUs = 0
        public var retransmissions = 0
        /// CRC-failed PDUs dropped (the peer did not acknowledge them, or nothing said).
        public var crcFailures = 0
        /// CRC-failed PDUs the peer acknowledged, delivered marked.
        public var crcFailedKept = 0
        public var encryptedPDUs = 0
        public var otherAccessAddress = 0
        public var advertisingPDUs = 0
    }

    /// Packets further apart than this start a new connection event (the central's turn).
    public static let connectionEventGapMicroseconds: Int64 = 3_000

    public private(set) var statistics = Statistics()
    /// The connection followed now.
    public private(set) var accessAddress: UInt32?
    public private(set) var handle: UInt16 = 0
    public private(set) var encrypted = false
    /// Per direction (tx = central, rx = peripheral): the SN of the last packet delivered, and
    /// whether the peer has acknowledged it since.
    private var lastSequence: (UInt8?, UInt8?) = (nil, nil)
    private var acknowledged: (Bool, Bool) = (false, false)
    private var lastTime: Int64 = .min
    private var lastDirection: TraceDirection = .rx
    /// A CRC-failed data PDU waiting for the peer's verdict, and one the verdict released.
    private var held: HeldPDU?
    private var released: (content: TraceRecord.Content, unixMicroseconds: Int64)?
    private let storage = HeldPDUStorage()
    /// CRC-failed PDUs held so far (each awaits the next packet's verdict).
    public private(set) var holds = 0

    public init() {}

    /// The CRC-failed PDU the last ``process(_:unixMicroseconds:)`` found acknowledged, with its
    /// capture time: it precedes that call's packet. Its bytes stay valid until the next call.
    public mutating func takeAcknowledgedCRCFailure() -> (content: TraceRecord.Content, unixMicroseconds: Int64)? {
        defer { released = nil }
        return released
    }

    /// What `packet`, captured at `unixMicroseconds`, means for the followed connection.
    public mutating func process(_ packet: LEAirPacket, unixMicroseconds: Int64) -> TraceRecord.Content {
        if packet.accessAddress == LEAirPacket.advertisingAccessAddress {
            return advertising(packet)
        }
        guard packet.accessAddress == accessAddress else {
            statistics.otherAccessAddress += 1
            return .ignored
        }
        guard packet.crc != .invalid else {
            hold(packet, unixMicroseconds: unixMicroseconds)
            return .ignored
        }
        let direction = packet.direction ?? inferredDirection(unixMicroseconds)
        lastTime = unixMicroseconds
        lastDirection = direction
        if let held {
            judge(held, against: LLDataHeader(rawValue: packet.header), from: direction)
            // The held PDU was an acknowledged LL_TERMINATE_IND: this packet follows no connection.
            guard packet.accessAddress == accessAddress else {
                statistics.otherAccessAddress += 1
                return .ignored
            }
        }
        return deliver(packet, direction: direction, crcFailed: false)
    }

    /// Keeps a CRC-failed data PDU (a copy: the capture's buffer moves on) for the peer's verdict.
    private mutating func hold(_ packet: LEAirPacket, unixMicroseconds: Int64) {
        if held != nil { statistics.crcFailures += 1 }
        holds += 1
        // It was on the air: the turn-taking that infers directions counts it.
        let direction = packet.direction ?? inferredDirection(unixMicroseconds)
        lastTime = unixMicroseconds
        lastDirection = direction
        held = HeldPDU(header: packet.header, count: storage.keep(packet.payload), payloadOffset: packet.payloadOffset,
                       direction: direction, encrypted: packet.encrypted, unixMicroseconds: unixMicroseconds)
    }

    /// What the packet after a held CRC-failed PDU says of it: the other side's NESN past its SN,
    /// or the same side sending a new SN (it only moves on once acknowledged, §4.5.9, by a packet
    /// the sniffer missed), acknowledges it (delivered, marked); anything else drops it.
    private mutating func judge(_ pending: HeldPDU, against header: LLDataHeader, from direction: TraceDirection) {
        held = nil
        let sequence = LLDataHeader(rawValue: pending.header).sequence
        let acknowledged = direction == pending.direction ? header.sequence != sequence : header.nextExpectedSequence != sequence
        guard acknowledged else {
            statistics.crcFailures += 1
            return
        }
        let packet = LEAirPacket(accessAddress: accessAddress ?? 0, header: pending.header,
                                 payload: UnsafeRawBufferPointer(rebasing: storage.bytes[..<pending.count]),
                                 payloadOffset: pending.payloadOffset, crc: .invalid, direction: pending.direction, encrypted: pending.encrypted)
        statistics.crcFailedKept += 1
        released = (deliver(packet, direction: pending.direction, crcFailed: true), pending.unixMicroseconds)
    }

    /// A data PDU the connection's sequence numbers let through: its fragment, control action or nothing.
    private mutating func deliver(_ packet: LEAirPacket, direction: TraceDirection, crcFailed: Bool) -> TraceRecord.Content {
        let header = LLDataHeader(rawValue: packet.header)
        let side = direction == .tx ? 0 : 1
        // The peer's NESN acknowledges (or not) what this side's peer sent last.
        if let theirs = sequence(1 - side), header.nextExpectedSequence != theirs { setAcknowledged(1 - side, true) }
        if let mine = sequence(side), mine == header.sequence, !isAcknowledged(side) {
            statistics.retransmissions += 1
            return .ignored
        }
        setSequence(side, header.sequence)
        setAcknowledged(side, false)

        var payload = packet.payload
        var payloadOffset = packet.payloadOffset
        if header.hasCTEInfo, !payload.isEmpty {
            payload = UnsafeRawBufferPointer(rebasing: payload[1...])
            payloadOffset += 1
        }
        if payload.isEmpty {
            statistics.emptyPDUs += 1
            return .ignored
        }
        if encrypted || packet.encrypted {
            statistics.encryptedPDUs += 1
            return .ignored
        }
        switch header.llid {
        case LLDataHeader.llidControl:
            statistics.controlPDUs += 1
            return control(payload, offset: payloadOffset)
        case LLDataHeader.llidStart, LLDataHeader.llidContinuation:
            statistics.dataPDUs += 1
            return .l2capFragment(LinkLayerFragment(
                handle: handle, direction: direction,
                boundary: header.llid == LLDataHeader.llidStart ? .firstFlushable : .continuing,
                fragment: payload, fragmentOffset: payloadOffset, crcFailed: crcFailed))
        default:
            return .malformed(ParseError(.invalidValue, at: packet.payloadOffset - 2, field: "LL data PDU LLID"))
        }
    }

    private mutating func advertising(_ packet: LEAirPacket) -> TraceRecord.Content {
        statistics.advertisingPDUs += 1
        guard packet.header & 0x0F == LLConnectInd.pduType, packet.crc != .invalid else { return .ignored }
        let request: LLConnectInd
        do throws(ParseError) {
            request = try LLConnectInd(header: packet.header, payload: packet.payload, offset: packet.payloadOffset)
        } catch {
            return .malformed(error)
        }
        dropHeld()
        accessAddress = request.accessAddress
        handle = handle == 0x0EFF ? 1 : handle + 1
        encrypted = false
        lastSequence = (nil, nil)
        acknowledged = (false, false)
        lastTime = .min
        statistics.connections += 1
        return .connectionChange(handle: handle, .connected(request.advertiser))
    }

    private mutating func control(_ payload: UnsafeRawBufferPointer, offset: Int) -> TraceRecord.Content {
        switch payload[0] {
        case LLControlOpcode.startEncReq:
            encrypted = true
            return .ignored
        case LLControlOpcode.terminateInd:
            guard payload.count >= 2 else {
                return .malformed(ParseError(.truncated, at: offset + payload.count, field: "LL_TERMINATE_IND error code"))
            }
            let ended = handle
            dropHeld()
            accessAddress = nil
            return .connectionChange(handle: ended, .disconnected(reason: payload[1]))
        default:
            return .ignored
        }
    }

    /// A held CRC-failed PDU whose verdict will not come (the connection changed, the capture ended).
    public mutating func dropHeld() {
        if held != nil { statistics.crcFailures += 1 }
        held = nil
    }

    private func inferredDirection(_ time: Int64) -> TraceDirection {
        if lastTime == .min || time &- lastTime > Self.connectionEventGapMicroseconds || time < lastTime { return .tx }
        return lastDirection.reversed
    }

    private func sequence(_ side: Int) -> UInt8? { side == 0 ? lastSequence.0 : lastSequence.1 }
    private mutating func setSequence(_ side: Int, _ value: UInt8) {
        if side == 0 { lastSequence.0 = value } else { lastSequence.1 = value }
    }
    private func isAcknowledged(_ side: Int) -> Bool { side == 0 ? acknowledged.0 : acknowledged.1 }
    private mutating func setAcknowledged(_ side: Int, _ value: Bool) {
        if side == 0 { acknowledged.0 = value } else { acknowledged.1 = value }
    }
}

/// A piece of an L2CAP message carried by one LL data PDU: what an HCI ACL packet carries,
/// without the HCI header (the connection is the follower's handle).
public struct LinkLayerFragment {
    public var handle: UInt16
    /// tx: central → peripheral; rx: peripheral → central.
    public var direction: TraceDirection
    public var boundary: ACLPacketBoundary
    public var fragment: UnsafeRawBufferPointer
    public var fragmentOffset: Int
    /// The sniffer's CRC check failed, but the peer acknowledged the PDU: the bytes are the
    /// sniffer's copy, possibly damaged.
    public var crcFailed: Bool

    public init(handle: UInt16, direction: TraceDirection, boundary: ACLPacketBoundary, fragment: UnsafeRawBufferPointer, fragmentOffset: Int,
                crcFailed: Bool = false) {
        self.handle = handle
        self.direction = direction
        self.boundary = boundary
        self.fragment = fragment
        self.fragmentOffset = fragmentOffset
        self.crcFailed = crcFailed
    }
}

/// A CRC-failed data PDU awaiting the peer's verdict (its payload in ``HeldPDUStorage``).
struct HeldPDU {
    var header: UInt8
    var count: Int
    var payloadOffset: Int
    var direction: TraceDirection
    var encrypted: Bool
    var unixMicroseconds: Int64
}

/// The held PDU's payload: one buffer of the largest LL payload, allocated once per follower.
/// Owned by one follower; a copy of the follower (its statistics read) shares it but never
/// processes packets.
final class HeldPDUStorage {
    let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: 255, alignment: 1)

    /// Copies `payload` (at most 255 bytes: the length field is one byte) and returns its length.
    func keep(_ payload: UnsafeRawBufferPointer) -> Int {
        let count = min(payload.count, bytes.count)
        if count > 0 { bytes.baseAddress!.copyMemory(from: payload.baseAddress!, byteCount: count) }
        return count
    }

    deinit { bytes.deallocate() }
}
