import BandHCI
import BandWire

/// Rebuilds L2CAP frames from ACL fragments, in fixed buffers, the way Wireshark's
/// `packet-bthci_acl.c` does.
///
/// State is kept per (adapter, connection handle, direction): both ends of a link may be
/// mid-frame at once. A start fragment (PB 0b00, 0b10 or 0b11) reads the basic L2CAP header
/// (length, CID) and expects `length + 4` bytes; continuations (PB 0b01) append until that
/// many have arrived. A frame that arrives whole in one ACL packet is returned as a view
/// into that packet (no copy); only fragmented frames are copied into a slot buffer.
///
/// Misbehaviour is counted in ``statistics`` and reported with the push that saw it, never
/// silently: a start while a frame is open discards the open one; a continuation with
/// nothing open is dropped; bytes beyond the announced length are dropped; a frame longer
/// than ``frameCapacity`` is consumed but not kept.
///
/// Memory is fixed at creation: `slotCount` buffers of `frameCapacity` bytes (default
/// 32 × 521, for 16 connections each way with ATT_MTU up to 517). When every slot is busy
/// the least recently used frame is evicted (counted).
public final class L2CAPReassembler {
    /// ATT_MTU can be at most 517 (Core 5.4 Vol 3 Part F §3.2.8 via BlueZ `BT_ATT_MAX_LE_MTU`), plus the L2CAP header.
    public static let defaultFrameCapacity = 517 + L2CAPBasicHeader.size
    public static let defaultSlotCount = 32

    /// Who a frame belongs to.
    public struct Key: Hashable, Sendable {
        public var adapter: UInt16
        public var handle: UInt16
        public var direction: TraceDirection
        public init(adapter: UInt16, handle: UInt16, direction: TraceDirection) {
            self.adapter = adapter
            self.handle = handle
            self.direction = direction
        }
    }

    /// What went wrong with the fragments of one key.
    public enum Anomaly: Hashable, Sendable {
        /// A start fragment arrived while a frame was still open; the open one (`received`
        /// of `expected` bytes, `expected` nil if its header was incomplete) was thrown away.
        case incompleteFrameDiscarded(received: Int, expected: Int?)
        /// A continuation fragment with no frame open; its bytes were dropped.
        case continuationWithoutStart(bytes: Int)
        /// A frame announced more than ``frameCapacity`` bytes; it was consumed, not kept.
        case frameTooLong(channel: L2CAPChannelID, length: Int)
        /// A fragment carried bytes beyond the frame's announced length; they were dropped.
        case excessBytes(Int)
        /// Every slot was busy; the least recently used open frame was thrown away.
        case slotEvicted(Key)
    }

    /// Everything that did not go to plan so far.
    public struct Statistics: Hashable, Sendable {
        public var frames = 0
        public var incompleteFramesDiscarded = 0
        public var continuationsWithoutStart = 0
        public var framesTooLong = 0
        public var excessByteEvents = 0
        public var slotsEvicted = 0
        public var framesDroppedOnDisconnect = 0
    }

    /// The result of one ``push(_:boundary:fragment:)``: at most one complete frame, and at
    /// most one anomaly (both can happen: a start that discards an open frame and is whole).
    public struct Outcome {
        /// The complete frame, valid until the next push.
        public var frame: L2CAPFrame?
        public var anomaly: Anomaly?
    }

    private struct Slot {
        var key = Key(adapter: 0, handle: 0, direction: .tx)
        var isOpen = false
        var received = 0
        /// `length + 4` once the 4-byte header is in, else nil.
        var expected: Int?
        /// Too long to keep: count bytes but do not store them.
        var isDiscarding = false
        var lastUse = 0
    }

    public let frameCapacity: Int
    private let storage: UnsafeMutableRawBufferPointer
    /// All per-fragment state, in one struct so a push makes a single access to the class's state.
    // Unchecked: see "Exclusivity" in docs/performance.md (one thread, no callback during an access).
    @exclusivity(unchecked) private var table: Table

    public init(slotCount: Int = L2CAPReassembler.defaultSlotCount, frameCapacity: Int = L2CAPReassembler.defaultFrameCapacity) {
        precondition(slotCount > 0 && frameCapacity >= L2CAPBasicHeader.size)
        self.frameCapacity = frameCapacity
        storage = .allocate(byteCount: slotCount * frameCapacity, alignment: 16)
        table = Table(slots: Array(repeating: Slot(), count: slotCount), frameCapacity: frameCapacity)
    }

    deinit { storage.deallocate() }

    /// Everything that did not go to plan so far.
    public var statistics: Statistics { table.statistics }

    /// Number of frames currently waiting for continuations.
    public var openFrames: Int { table.openCount }

    /// Feeds one ACL packet's data (after the 4-byte ACL header).
    public func push(_ key: Key, boundary: ACLPacketBoundary, fragment: UnsafeRawBufferPointer) -> Outcome {
        table.push(key, boundary: boundary, fragment: fragment, storage: storage)
    }

    /// Forgets both directions of a connection (on Disconnection Complete).
    public func close(adapter: UInt16, handle: UInt16) {
        table.closeSlots { $0.adapter == adapter && $0.handle == handle }
    }

    /// Forgets every connection of an adapter (monitor DEL_INDEX).
    public func close(adapter: UInt16) {
        table.closeSlots { $0.adapter == adapter }
    }

    /// Forgets everything.
    public func reset() {
        table.closeSlots { _ in true }
    }

    private struct Table {
        var slots: [Slot]
        let frameCapacity: Int
        var statistics = Statistics()
        var openCount = 0
        var clock = 0

        init(slots: [Slot], frameCapacity: Int) {
            self.slots = slots
            self.frameCapacity = frameCapacity
        }

        mutating func push(_ key: Key, boundary: ACLPacketBoundary, fragment: UnsafeRawBufferPointer,
                           storage: UnsafeMutableRawBufferPointer) -> Outcome {
            clock &+= 1
            if boundary.startsPDU {
                return start(key, fragment: fragment, storage: storage)
            }
            return `continue`(key, fragment: fragment, storage: storage)
        }

        mutating func closeSlots(where matches: (Key) -> Bool) {
            guard openCount > 0 else { return }
            for i in slots.indices where slots[i].isOpen && matches(slots[i].key) {
                slots[i].isOpen = false
                openCount -= 1
                statistics.framesDroppedOnDisconnect += 1
            }
        }

        mutating func start(_ key: Key, fragment: UnsafeRawBufferPointer, storage: UnsafeMutableRawBufferPointer) -> Outcome {
            var outcome = Outcome()
            if openCount > 0, let open = slotIndex(for: key) {
                outcome.anomaly = .incompleteFrameDiscarded(received: slots[open].received, expected: slots[open].expected)
                statistics.incompleteFramesDiscarded += 1
                slots[open].isOpen = false
                openCount -= 1
            }
            if fragment.count >= L2CAPBasicHeader.size {
                let header = L2CAPReassembler.header(fragment)
                let total = Int(header.payloadLength) + L2CAPBasicHeader.size
                if fragment.count >= total {
                    // Whole frame in one packet: hand out a view, copy nothing.
                    if fragment.count > total {
                        statistics.excessByteEvents += 1
                        outcome.anomaly = outcome.anomaly ?? .excessBytes(fragment.count - total)
                    }
                    if total > frameCapacity {
                        statistics.framesTooLong += 1
                        outcome.anomaly = .frameTooLong(channel: header.channel, length: total)
                        return outcome
                    }
                    statistics.frames += 1
                    outcome.frame = L2CAPFrame(channel: header.channel,
                                               payload: UnsafeRawBufferPointer(rebasing: fragment[L2CAPBasicHeader.size..<total]))
                    return outcome
                }
            }
            let index = freeSlot(outcome: &outcome)
            slots[index] = Slot(key: key, isOpen: true, received: 0, expected: nil, isDiscarding: false, lastUse: clock)
            openCount += 1
            outcome.frame = append(fragment, to: index, storage: storage, outcome: &outcome)
            return outcome
        }

        mutating func `continue`(_ key: Key, fragment: UnsafeRawBufferPointer, storage: UnsafeMutableRawBufferPointer) -> Outcome {
            var outcome = Outcome()
            guard openCount > 0, let index = slotIndex(for: key) else {
                statistics.continuationsWithoutStart += 1
                outcome.anomaly = .continuationWithoutStart(bytes: fragment.count)
                return outcome
            }
            slots[index].lastUse = clock
            outcome.frame = append(fragment, to: index, storage: storage, outcome: &outcome)
            return outcome
        }

        /// Appends to an open slot; completes the frame when its announced length is reached.
        mutating func append(_ fragment: UnsafeRawBufferPointer, to index: Int, storage: UnsafeMutableRawBufferPointer,
                             outcome: inout Outcome) -> L2CAPFrame? {
            let base = storage.baseAddress! + index * frameCapacity
            var bytes = fragment
            // Until the 4-byte header is complete the expected length is unknown (drip-fed headers).
            if slots[index].expected == nil {
                let take = min(L2CAPBasicHeader.size - slots[index].received, bytes.count)
                if take > 0 {
                    (base + slots[index].received).copyMemory(from: bytes.baseAddress!, byteCount: take)
                    slots[index].received += take
                    bytes = UnsafeRawBufferPointer(rebasing: bytes[take...])
                }
                guard slots[index].received == L2CAPBasicHeader.size else { return nil }
                let header = L2CAPReassembler.header(UnsafeRawBufferPointer(start: base, count: L2CAPBasicHeader.size))
                let total = Int(header.payloadLength) + L2CAPBasicHeader.size
                slots[index].expected = total
                slots[index].isDiscarding = total > frameCapacity
            }
            let expected = slots[index].expected!
            let room = expected - slots[index].received
            let take = min(room, bytes.count)
            if take > 0 && !slots[index].isDiscarding {
                (base + slots[index].received).copyMemory(from: bytes.baseAddress!, byteCount: take)
            }
            slots[index].received += take
            if bytes.count > take {
                statistics.excessByteEvents += 1
                outcome.anomaly = outcome.anomaly ?? .excessBytes(bytes.count - take)
            }
            guard slots[index].received == expected else { return nil }
            slots[index].isOpen = false
            openCount -= 1
            let header = L2CAPReassembler.header(UnsafeRawBufferPointer(start: base, count: L2CAPBasicHeader.size))
            if slots[index].isDiscarding {
                statistics.framesTooLong += 1
                outcome.anomaly = .frameTooLong(channel: header.channel, length: expected)
                return nil
            }
            statistics.frames += 1
            return L2CAPFrame(channel: header.channel,
                              payload: UnsafeRawBufferPointer(start: base + L2CAPBasicHeader.size, count: expected - L2CAPBasicHeader.size))
        }

        func slotIndex(for key: Key) -> Int? {
            for i in slots.indices where slots[i].isOpen && slots[i].key == key { return i }
            return nil
        }

        mutating func freeSlot(outcome: inout Outcome) -> Int {
            var oldest = 0
            for i in slots.indices {
                if !slots[i].isOpen { return i }
                if slots[i].lastUse < slots[oldest].lastUse { oldest = i }
            }
            statistics.slotsEvicted += 1
            outcome.anomaly = outcome.anomaly ?? .slotEvicted(slots[oldest].key)
            slots[oldest].isOpen = false
            openCount -= 1
            return oldest
        }
    }

    static func header(_ bytes: UnsafeRawBufferPointer) -> L2CAPBasicHeader {
        L2CAPBasicHeader(payloadLength: UInt16(bytes[0]) | UInt16(bytes[1]) << 8,
                         channel: L2CAPChannelID(rawValue: UInt16(bytes[2]) | UInt16(bytes[3]) << 8))
    }
}

/// A complete L2CAP B-frame: its channel and information payload (a view, valid until the
/// reassembler is next pushed or the source packet's buffer moves on).
public struct L2CAPFrame {
    public var channel: L2CAPChannelID
    public var payload: UnsafeRawBufferPointer
}
