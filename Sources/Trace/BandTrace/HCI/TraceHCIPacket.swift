import BandHCI
import BandWire

/// The HCI packet a btsnoop record carries, with the datalink's framing removed: a view.
///
/// How each datalink says what the packet is and which way it went [WS `wiretap/btsnoop.c`,
/// BZ `src/shared/btsnoop.c`, AN `snoop_logger.cc`]:
///
/// | datalink | packet type | direction | adapter |
/// |---|---|---|---|
/// | 1001 H1 | flags bit 1: 1 = command/event, 0 = ACL | flags bit 0: 1 = received | 0 |
/// | 1002 H4 | first data byte (`HCIPacketType`) | flags bit 0: 1 = received | 0 |
/// | 2001 monitor | flags bits 0–15 (``MonitorOpcode``) | from the opcode | flags bits 16–31 |
public struct TraceHCIPacket {
    public var type: HCIPacketType
    public var direction: TraceDirection
    public var adapter: UInt16
    /// The HCI packet after any H4 byte.
    public var payload: UnsafeRawBufferPointer
    /// File offset of `payload`'s first byte, so parse errors inside it point into the file.
    public var payloadOffset: Int

    public init(type: HCIPacketType, direction: TraceDirection, adapter: UInt16, payload: UnsafeRawBufferPointer, payloadOffset: Int) {
        self.type = type
        self.direction = direction
        self.adapter = adapter
        self.payload = payload
        self.payloadOffset = payloadOffset
    }

    /// The packet in `record`, or nil when the record carries none (monitor bookkeeping such
    /// as NEW_INDEX or SYSTEM_NOTE). Throws only for an H4 record with no type byte.
    @inlinable
    public static func unwrap(_ record: BtsnoopRecord, datalink: BtsnoopDatalink) throws(ParseError) -> TraceHCIPacket? {
        let dataOffset = record.offset + BtsnoopRecordHeader.size
        let flags = record.flags
        switch datalink {
        case .h4:
            guard let first = record.data.first else {
                throw ParseError(.truncated, at: dataOffset, field: "H4 packet type")
            }
            return TraceHCIPacket(type: HCIPacketType(rawValue: first),
                                  direction: flags & 1 == 0 ? .tx : .rx, adapter: 0,
                                  payload: UnsafeRawBufferPointer(rebasing: record.data[1...]), payloadOffset: dataOffset + 1)
        case .h1:
            let direction: TraceDirection = flags & 1 == 0 ? .tx : .rx
            let type: HCIPacketType = flags & 2 == 0 ? .acl : (direction == .tx ? .command : .event)
            return TraceHCIPacket(type: type, direction: direction, adapter: 0, payload: record.data, payloadOffset: dataOffset)
        default:
            guard let (type, direction) = MonitorOpcode(rawValue: UInt16(truncatingIfNeeded: flags)).packet else { return nil }
            return TraceHCIPacket(type: type, direction: direction, adapter: UInt16(truncatingIfNeeded: flags >> 16),
                                  payload: record.data, payloadOffset: dataOffset)
        }
    }

    /// The btsnoop flags word for this packet in `datalink`, and whether the H4 byte must be
    /// written in front of the payload. Nil when the datalink cannot express the packet.
    public static func recordFraming(type: HCIPacketType, direction: TraceDirection, adapter: UInt16,
                                     datalink: BtsnoopDatalink) -> (flags: UInt32, h4Byte: UInt8?)? {
        let directionBit: UInt32 = direction == .rx ? 1 : 0
        switch datalink {
        case .h4:
            let commandOrEvent: UInt32 = type == .command || type == .event ? 2 : 0
            return (directionBit | commandOrEvent, type.rawValue)
        case .h1:
            switch type {
            case .acl: return (directionBit, nil)
            case .command where direction == .tx: return (2, nil)
            case .event where direction == .rx: return (3, nil)
            default: return nil
            }
        case .linuxMonitor:
            guard let opcode = MonitorOpcode(carrying: type, direction: direction) else { return nil }
            return (UInt32(adapter) << 16 | UInt32(opcode.rawValue), nil)
        default:
            return nil
        }
    }
}
