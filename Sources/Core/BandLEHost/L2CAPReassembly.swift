import BandHCI
import BandWire

/// Rebuilds one link's L2CAP PDUs from the controller's ACL fragments (Core 5.4 Vol 3 Part A
/// §7.2, Vol 4 Part E §5.4.2) in one caller-owned buffer of ``capacity`` bytes.
///
/// A start fragment (boundary flag 0b00, 0b10 or 0b11) opens a PDU of 4 + its basic header's
/// length; continuations (0b01) append until that many bytes are in. The header itself may be
/// split. What does not fit the rules is dropped whole and reported, never guessed at:
///
/// | fragments | outcome |
/// |---|---|
/// | start while a PDU is open | the open PDU dropped (``L2CAPDrop/Reason/interrupted``), the new one kept |
/// | continuation with no PDU open | dropped (``L2CAPDrop/Reason/continuationWithoutStart``) |
/// | more bytes than the header announced | the PDU dropped (``L2CAPDrop/Reason/longerThanAnnounced``) |
/// | announced length beyond ``capacity`` | its fragments consumed and dropped (``L2CAPDrop/Reason/tooLong``) |
///
/// Cost is bounded: each fragment is copied at most once, and a too-long PDU is skipped
/// without being stored.
public struct L2CAPReassembly {
    @usableFromInline let buffer: UnsafeMutableRawBufferPointer
    /// Bytes of the open PDU received so far (header included); 0 when none is open.
    public private(set) var received = 0
    /// Header + payload the open PDU announced; nil until its header is complete.
    public private(set) var announced: Int?
    /// True while the open PDU is too long to keep and its fragments are being skipped.
    @usableFromInline var skipping = false

    /// Longest PDU (basic header included) kept.
    public var capacity: Int { buffer.count }

    public init(buffer: UnsafeMutableRawBufferPointer) {
        precondition(buffer.count >= L2CAPBasicHeader.size + ATTMinimum.mtu, "an L2CAP buffer must hold a 23-byte ATT PDU")
        self.buffer = buffer
    }

    /// Adds one ACL fragment; `complete` is called with the channel and payload of a PDU
    /// this fragment finished (a view valid during the call). Returns what had to be dropped.
    public mutating func push(_ fragment: UnsafeRawBufferPointer, boundary: ACLPacketBoundary,
                              complete: (L2CAPChannelID, UnsafeRawBufferPointer) -> Void) -> L2CAPDrop? {
        var dropped: L2CAPDrop?
        if boundary.startsPDU {
            if received > 0 { dropped = L2CAPDrop(reason: .interrupted, length: received) }
            received = 0
            announced = nil
            skipping = false
        } else if received == 0 {
            return L2CAPDrop(reason: .continuationWithoutStart, length: fragment.count)
        }
        var bytes = fragment[...]
        // The basic header first, which a start fragment may carry only part of.
        if announced == nil {
            let take = min(bytes.count, L2CAPBasicHeader.size - received)
            copy(UnsafeRawBufferPointer(rebasing: bytes.prefix(take)))
            bytes = bytes.dropFirst(take)
            guard received == L2CAPBasicHeader.size else { return dropped }
            let total = L2CAPBasicHeader.size + (Int(buffer[0]) | Int(buffer[1]) << 8)
            announced = total
            skipping = total > buffer.count
        }
        let total = announced ?? 0
        guard received + bytes.count <= total else {
            let length = received + bytes.count
            abandon()
            return L2CAPDrop(reason: .longerThanAnnounced, length: length)
        }
        if skipping { received += bytes.count } else { copy(UnsafeRawBufferPointer(rebasing: bytes)) }
        guard received == total else { return dropped }
        defer { abandon() }
        if skipping { return L2CAPDrop(reason: .tooLong, length: total) }
        let channel = L2CAPChannelID(rawValue: UInt16(buffer[2]) | UInt16(buffer[3]) << 8)
        complete(channel, UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[L2CAPBasicHeader.size ..< total]))
        return dropped
    }

    /// The channel and payload of the PDU the last ``push(_:boundary:complete:)`` completed, read
    /// from the buffer (valid until the next push).
    public var lastPDU: (channel: L2CAPChannelID, payload: UnsafeRawBufferPointer) {
        let total = L2CAPBasicHeader.size + (Int(buffer[0]) | Int(buffer[1]) << 8)
        let channel = L2CAPChannelID(rawValue: UInt16(buffer[2]) | UInt16(buffer[3]) << 8)
        return (channel, UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[L2CAPBasicHeader.size ..< min(total, buffer.count)]))
    }

    /// Forgets an open PDU (the link ended).
    public mutating func abandon() {
        received = 0
        announced = nil
        skipping = false
    }

    @usableFromInline
    mutating func copy(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        (buffer.baseAddress! + received).copyMemory(from: base, byteCount: bytes.count)
        received += bytes.count
    }
}

/// The smallest ATT_MTU, which every L2CAP buffer must carry (Core 5.4 Vol 3 Part F §3.2.8).
enum ATTMinimum {
    static let mtu = 23
}

/// A PDU (or fragment) ``L2CAPReassembly`` dropped, and why.
public struct L2CAPDrop: Equatable, Sendable {
    public enum Reason: Equatable, Sendable {
        /// A new start fragment arrived before the open PDU was complete.
        case interrupted
        /// A continuation fragment with no PDU open.
        case continuationWithoutStart
        /// The fragments carried more bytes than the basic header announced.
        case longerThanAnnounced
        /// The announced PDU is longer than the reassembly buffer.
        case tooLong
    }

    public var reason: Reason
    /// Bytes of the PDU dropped (as far as they had arrived).
    public var length: Int
}
