import BandHCI
import BandWire

/// Turns pcap/pcapng packets of the Bluetooth HCI link types into ``TraceRecord``s: the same
/// HCI packets, directions and adapters the btsnoop datalinks give.
///
/// tcpdump's LINKTYPE list (<https://www.tcpdump.org/linktypes.html>) and Wireshark
/// `epan/dissectors/packet-bluetooth.c`, `packet-hci_h4.c`, `packet-hci_mon.c`:
///
/// | link type | pseudo-header | packet type | direction | adapter |
/// |---|---|---|---|---|
/// | 201 H4_WITH_PHDR | u32 BE direction: bit 0 set = received | H4 byte | from the pseudo-header | 0 |
/// | 187 H4 | none | H4 byte | inferred (below) | 0 |
/// | 254 LINUX_MONITOR | u16 BE adapter index, u16 BE opcode | ``MonitorOpcode`` | from the opcode | pseudo-header |
///
/// Link type 187 records no direction. Commands are always host → controller (tx) and events
/// controller → host (rx). ACL packets are told apart by their packet-boundary flag: on LE
/// the host sends first fragments with PB = 00 and the controller delivers them with PB = 10
/// (Core 5.4 Vol 4 Part E §5.4.2); a continuation (PB = 01) takes the direction of the last
/// first fragment on its handle (tx when none was seen). SCO and ISO, which BandKit does not
/// decode, are counted as tx. A trace whose host sends PB = 10 (allowed; Android does it on
/// BR/EDR) gets those packets as rx: for such traces use link type 201.
///
/// Air captures (256, 272) go through ``LLConnectionFollower`` instead: LL data PDUs of the
/// followed connection become L2CAP fragments, CONNECT_IND and LL_TERMINATE_IND connection
/// changes.
public struct CaptureHCIUnwrapper {
    /// Direction of the last first fragment per ACL handle (12 bits), for link type 187.
    private var lastACLDirection: [TraceDirection]
    /// The LE connection followed through air captures (link types 256 and 272).
    public private(set) var follower = LLConnectionFollower()
    /// Whether any packet came from an air capture link type.
    public private(set) var sawAirPackets = false
    /// Packets on link types BandKit does not decode, skipped.
    public private(set) var otherLinkTypePackets = 0
    /// The first such link type, to name in a note.
    public private(set) var firstOtherLinkType: CaptureLinkType?
    /// Where the follower's held CRC-failed PDU lies in the file.
    private var heldPlace: (index: Int, offset: Int)?
    /// A packet's record waiting behind the CRC-failed PDU it acknowledged.
    private var deferred: TraceRecord?

    public init() {
        lastACLDirection = Array(repeating: .tx, count: 0x1000)
    }

    @inlinable
    static func malformed(_ kind: ParseError.Kind, _ offset: Int, _ field: StaticString) -> TraceRecord.Content {
        .malformed(ParseError(kind, at: offset, field: field))
    }

    /// The record `packet` amounts to.
    public mutating func record(_ packet: CapturePacket) -> TraceRecord {
        TraceRecord(index: packet.index, offset: packet.offset, unixMicroseconds: packet.unixMicroseconds,
                    content: content(packet))
    }

    /// The record of a reader's next `packet` (nil: the capture ended, nil returned). An air
    /// capture's follower lets a CRC-failed PDU through only when the next packet acknowledges
    /// it: that earlier PDU's record is returned, and this packet's waits in
    /// ``takeDeferredRecord()``, which the reader empties before reading another packet (so the
    /// deferred record's bytes are still in its buffer).
    public mutating func nextRecord(_ packet: CapturePacket?) -> TraceRecord? {
        guard let packet else {
            if sawAirPackets { follower.dropHeld() }
            return nil
        }
        let holdsBefore = follower.holds
        let record = record(packet)
        guard sawAirPackets else { return record }
        var earlier: TraceRecord?
        if let released = follower.takeAcknowledgedCRCFailure(), let place = heldPlace {
            earlier = TraceRecord(index: place.index, offset: place.offset, unixMicroseconds: released.unixMicroseconds, content: released.content)
        }
        if follower.holds != holdsBefore { heldPlace = (packet.index, packet.offset) }
        guard let earlier else { return record }
        deferred = record
        return earlier
    }

    /// A record ``nextRecord(_:)`` deferred, if any.
    public mutating func takeDeferredRecord() -> TraceRecord? {
        defer { deferred = nil }
        return deferred
    }

    @inline(__always)
    private mutating func content(_ packet: CapturePacket) -> TraceRecord.Content {
        let data = packet.data
        switch packet.linkType {
        case .bluetoothH4WithPseudoHeader:
            guard data.count >= 5 else {
                return data.count < 4 ? Self.malformed(.truncated, packet.dataOffset, "H4 direction pseudo-header")
                                      : Self.malformed(.truncated, packet.dataOffset + 4, "H4 packet type")
            }
            let direction = UInt32(bigEndian: data.loadUnaligned(as: UInt32.self))
            return .packet(TraceHCIPacket(type: HCIPacketType(rawValue: data[4]), direction: direction & 1 == 0 ? .tx : .rx,
                                          adapter: 0, payload: UnsafeRawBufferPointer(rebasing: data[5...]),
                                          payloadOffset: packet.dataOffset + 5))
        case .bluetoothH4:
            guard let first = data.first else { return Self.malformed(.truncated, packet.dataOffset, "H4 packet type") }
            let type = HCIPacketType(rawValue: first)
            let payload = UnsafeRawBufferPointer(rebasing: data[1...])
            return .packet(TraceHCIPacket(type: type, direction: inferDirection(type, payload), adapter: 0,
                                          payload: payload, payloadOffset: packet.dataOffset + 1))
        case .bluetoothLinuxMonitor:
            guard data.count >= 4 else { return Self.malformed(.truncated, packet.dataOffset, "Linux monitor pseudo-header") }
            let adapter = UInt16(bigEndian: data.loadUnaligned(as: UInt16.self))
            let opcode = MonitorOpcode(rawValue: UInt16(bigEndian: data.loadUnaligned(fromByteOffset: 2, as: UInt16.self)))
            guard let (type, direction) = opcode.packet else {
                return opcode == .deleteIndex ? .adapterRemoved(adapter) : .ignored
            }
            return .packet(TraceHCIPacket(type: type, direction: direction, adapter: adapter,
                                          payload: UnsafeRawBufferPointer(rebasing: data[4...]), payloadOffset: packet.dataOffset + 4))
        case .bluetoothLELinkLayerWithPseudoHeader, .nordicBLE:
            sawAirPackets = true
            do throws(ParseError) {
                let air = packet.linkType == .nordicBLE
                    ? try NordicSnifferHeader.parse(data, offset: packet.dataOffset)
                    : try LELinkLayerPseudoHeader.parse(data, offset: packet.dataOffset)
                guard let air else { return .ignored }
                return follower.process(air, unixMicroseconds: packet.unixMicroseconds)
            } catch {
                return .malformed(error)
            }
        default:
            otherLinkTypePackets += 1
            if firstOtherLinkType == nil { firstOtherLinkType = packet.linkType }
            return .ignored
        }
    }

    /// Link type 187's missing direction, from what the packet is (see the type's notes).
    @inline(__always)
    private mutating func inferDirection(_ type: HCIPacketType, _ payload: UnsafeRawBufferPointer) -> TraceDirection {
        switch type {
        case .event: return .rx
        case .acl:
            guard payload.count >= 2 else { return .tx }
            let field = UInt16(payload[0]) | UInt16(payload[1]) << 8
            let handle = Int(field & 0x0FFF)
            switch (field >> 12) & 0b11 {
            case 0b00:
                lastACLDirection[handle] = .tx
                return .tx
            case 0b10:
                lastACLDirection[handle] = .rx
                return .rx
            default:
                return lastACLDirection[handle]
            }
        default: return .tx
        }
    }
}
