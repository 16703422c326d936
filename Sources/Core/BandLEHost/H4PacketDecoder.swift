import BandHCI
import BandWire

/// Splits the byte stream from a controller's UART into HCI packets (Core 5.4 Vol 4 Part A §2,
/// the H4 transport): an indicator byte, then a command, ACL, SCO, event or ISO packet whose
/// header says how long it is.
///
/// Streaming and allocation-free: bytes are copied into a caller-owned buffer of
/// ``capacity`` bytes as they arrive, in any split; ``decode(_:)`` returns
/// ``H4DecodeStep/needMoreData`` until a whole packet is there. The packet (without its
/// indicator) is then ``packet``, valid until the next call.
///
/// | what arrives | outcome |
/// |---|---|
/// | an event or ACL packet that fits | ``H4DecodeStep/packet(_:)`` |
/// | a packet longer than ``capacity`` | consumed, then ``H4DecodeStep/dropped(_:)`` (``H4Drop/Reason/tooLong``) |
/// | SCO, ISO or command packets (never sent to a host) | consumed, then dropped (``H4Drop/Reason/unexpectedType``) |
/// | a byte that is no indicator | dropped at once (``H4Drop/Reason/unknownIndicator``): the stream is out of step, and the next byte is tried as an indicator |
public struct H4PacketDecoder {
    /// Longest packet (header and parameters, no indicator) the buffer holds.
    public var capacity: Int { buffer.count }
    @usableFromInline let buffer: UnsafeMutableRawBufferPointer
    /// The indicator of the packet being read; nil between packets.
    @usableFromInline var type: HCIPacketType?
    /// Bytes of the current packet read so far (header included).
    @usableFromInline var filled = 0
    /// Header size of the current packet, then header + payload once the header is in.
    @usableFromInline var expected = 0
    @usableFromInline var headerRead = false
    /// Bytes of the stream consumed so far, for drop reports.
    public private(set) var streamOffset = 0
    @usableFromInline var packetStart = 0

    /// `buffer` holds one packet: at least 2 + 255 bytes (the longest event).
    public init(buffer: UnsafeMutableRawBufferPointer) {
        precondition(buffer.count >= 2 + 255, "an H4 receive buffer must hold the longest event (257 bytes)")
        self.buffer = buffer
    }

    /// The last packet ``decode(_:)`` returned, without its indicator.
    public var packet: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[0..<min(filled, buffer.count)])
    }

    /// Consumes bytes from `input` until a packet is complete, one is dropped, or the input ends.
    public mutating func decode(_ input: inout ByteCursor) -> H4DecodeStep {
        if type == nil, filled > 0 { filled = 0 }
        while !input.isAtEnd {
            guard let current = type else {
                let indicator = HCIPacketType(rawValue: input.bytes[input.position])
                try? input.skip(1)
                streamOffset += 1
                guard let header = Self.headerSize(indicator) else {
                    return .dropped(H4Drop(reason: .unknownIndicator, type: indicator, length: 1, streamOffset: streamOffset - 1))
                }
                type = indicator
                packetStart = streamOffset - 1
                filled = 0
                expected = header
                headerRead = false
                continue
            }
            let take = min(input.remaining, expected - filled)
            let chunk = (try? input.readBytes(take)) ?? UnsafeRawBufferPointer(start: nil, count: 0)
            streamOffset += take
            // Bytes past the buffer are counted, not kept: a packet too long is consumed whole.
            if filled < buffer.count, let base = chunk.baseAddress {
                let keep = min(take, buffer.count - filled)
                (buffer.baseAddress! + filled).copyMemory(from: base, byteCount: keep)
            }
            filled += take
            guard filled == expected else { continue }
            if !headerRead {
                headerRead = true
                expected += Self.payloadLength(current, header: UnsafeRawBufferPointer(buffer))
                if filled < expected { continue }
            }
            type = nil
            let drop: H4Drop.Reason? = current != .event && current != .acl ? .unexpectedType : (filled > buffer.count ? .tooLong : nil)
            if let drop {
                let length = filled
                filled = 0
                return .dropped(H4Drop(reason: drop, type: current, length: length, streamOffset: packetStart))
            }
            return .packet(current)
        }
        return .needMoreData
    }

    /// True between packets: no partial packet is held.
    public var isIdle: Bool { type == nil }

    /// Forgets a partial packet (after an HCI Reset, or a UART break).
    public mutating func reset() {
        type = nil
        filled = 0
    }

    static func headerSize(_ type: HCIPacketType) -> Int? {
        switch type {
        case .command: return 3
        case .acl: return 4
        case .sco: return 3
        case .event: return 2
        case .iso: return 4
        default: return nil
        }
    }

    /// The payload length the header announces (the header is at the start of `header`).
    static func payloadLength(_ type: HCIPacketType, header: UnsafeRawBufferPointer) -> Int {
        switch type {
        case .command, .sco: return Int(header[2])
        case .event: return Int(header[1])
        case .acl: return Int(header[2]) | Int(header[3]) << 8
        default: return (Int(header[2]) | Int(header[3]) << 8) & 0x3FFF  // ISO: 14-bit length
        }
    }
}

/// What one ``H4PacketDecoder/decode(_:)`` call came to.
public enum H4DecodeStep: Equatable, Sendable {
    /// The input ended inside a packet (or between packets).
    case needMoreData
    /// A whole packet of this type is in ``H4PacketDecoder/packet``.
    case packet(HCIPacketType)
    /// Bytes were consumed and thrown away, for the reason given.
    case dropped(H4Drop)
}

/// Bytes an ``H4PacketDecoder`` threw away, and why.
public struct H4Drop: Equatable, Sendable {
    public enum Reason: Equatable, Sendable {
        /// A byte that is not an H4 packet indicator (0x01…0x05).
        case unknownIndicator
        /// A packet longer than the receive buffer.
        case tooLong
        /// A packet a controller does not send a peripheral host (command) or the host does not use (SCO, ISO).
        case unexpectedType
    }

    public var reason: Reason
    /// The indicator (for an unknown one, the byte itself).
    public var type: HCIPacketType
    /// Bytes dropped, indicator excluded (1 for an unknown indicator).
    public var length: Int
    /// Where the dropped bytes start in the stream.
    public var streamOffset: Int
}
