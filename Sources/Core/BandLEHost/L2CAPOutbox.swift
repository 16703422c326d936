import BandHCI
import BandWire

/// The link's outgoing L2CAP PDUs, waiting for controller buffers: a fixed ring of
/// ``slotCount`` PDUs of up to ``slotSize`` bytes, each sent as ACL fragments of the
/// controller's packet length (Core 5.4 Vol 3 Part A §7.2.1: first fragment with boundary flag
/// 0b00, the rest 0b01), one fragment per ACL credit, in order.
///
/// Full means full: ``enqueue(channel:_:)`` refuses a PDU rather than growing, and the caller
/// says so (a notification refused, the way NimBLE returns ENOMEM).
public struct L2CAPOutbox {
    public static let slotCount = 4
    @usableFromInline let memory: UnsafeMutableRawBufferPointer
    public let slotSize: Int
    @usableFromInline var lengths: InlineArray<4, Int> = InlineArray(repeating: 0)
    @usableFromInline var head = 0
    public private(set) var count = 0
    /// Bytes of the head PDU already handed to the controller.
    @usableFromInline var sent = 0

    /// Bytes ``init(memory:slotSize:)`` needs for PDUs of `slotSize` bytes.
    public static func memorySize(slotSize: Int) -> Int { slotCount * slotSize }

    public init(memory: UnsafeMutableRawBufferPointer, slotSize: Int) {
        precondition(memory.count >= Self.memorySize(slotSize: slotSize), "L2CAPOutbox memory too small")
        self.memory = memory
        self.slotSize = slotSize
    }

    /// True when no PDU can be queued now.
    public var isFull: Bool { count == Self.slotCount }

    /// Queues a PDU for `channel` whose payload `body` writes; false (nothing queued) when the
    /// ring is full or the payload does not fit a slot.
    public mutating func enqueue(channel: L2CAPChannelID, _ body: (inout ByteWriter) -> Void) -> Bool {
        guard count < Self.slotCount else { return false }
        let slot = (head + count) % Self.slotCount
        var writer = ByteWriter(UnsafeMutableRawBufferPointer(rebasing: memory[slot * slotSize ..< (slot + 1) * slotSize]))
        L2CAPBasicHeader(payloadLength: 0, channel: channel).encode(into: &writer)
        body(&writer)
        guard !writer.overflowed, writer.count - L2CAPBasicHeader.size <= Int(UInt16.max) else { return false }
        writer.patchUInt16LE(UInt16(writer.count - L2CAPBasicHeader.size), at: 0)
        lengths[slot] = writer.count
        count += 1
        return true
    }

    /// Sends fragments of at most `packetLength` bytes for `handle` while `credits` allow,
    /// writing each ACL packet (H4 indicator included) into `scratch` and handing it to `transmit`.
    public mutating func pump(handle: UInt16, credits: inout ACLCredits, scratch: UnsafeMutableRawBufferPointer,
                              _ transmit: (UnsafeRawBufferPointer) -> Void) {
        while count > 0, credits.available > 0 {
            let start = head * slotSize
            let length = lengths[head]
            let take = min(credits.packetLength, length - sent, scratch.count - 1 - HCIACLHeader.size)
            var writer = ByteWriter(scratch)
            writer.writeUInt8(HCIPacketType.acl.rawValue)
            HCIACLHeader(handle: handle, boundary: sent == 0 ? .firstNonFlushable : .continuing, dataLength: UInt16(take)).encode(into: &writer)
            writer.writeBytes(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(memory)[start + sent ..< start + sent + take]))
            credits.consume()
            sent += take
            if sent == length {
                sent = 0
                head = (head + 1) % Self.slotCount
                count -= 1
            }
            transmit(writer.written)
        }
    }

    /// Drops everything queued (the link ended).
    public mutating func clear() {
        head = 0
        count = 0
        sent = 0
    }
}
