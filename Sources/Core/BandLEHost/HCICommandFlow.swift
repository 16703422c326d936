import BandHCI
import BandWire

/// HCI command flow control (Core 5.4 Vol 4 Part E §4.4): the host may send only as many
/// commands as the controller's last Command Complete or Command Status allowed
/// (Num_HCI_Command_Packets; one after power-on or Reset), so commands wait here in a fixed
/// ring of ``slotCount`` encoded packets until the controller has room.
///
/// Every sent command is outstanding until its Command Complete or Command Status; the oldest
/// outstanding one has a deadline, so a controller that never answers is reported
/// (``LEHostError/controllerTimedOut(_:)``) instead of hanging the host.
public struct HCICommandFlow {
    public static let slotCount = 4
    /// An H4 command with up to 64 parameter bytes (LE Generate DHKey's public key).
    public static let slotSize = 1 + 3 + 64
    /// How long a controller may take to answer a command.
    public static let timeoutMilliseconds: UInt32 = 2_000

    @usableFromInline let slots: UnsafeMutableRawBufferPointer
    @usableFromInline var lengths: InlineArray<4, Int> = InlineArray(repeating: 0)
    @usableFromInline var head = 0
    @usableFromInline var queued = 0
    /// Commands the controller will take now.
    public private(set) var credits = 1
    /// Opcodes sent and not yet answered, oldest first (at most ``slotCount``).
    @usableFromInline var outstanding: InlineArray<4, UInt16> = InlineArray(repeating: 0)
    public private(set) var outstandingCount = 0
    @usableFromInline var deadline: UInt32 = 0

    /// Bytes ``init(memory:)`` needs.
    public static let memorySize = slotCount * slotSize

    public init(memory: UnsafeMutableRawBufferPointer) {
        precondition(memory.count >= Self.memorySize, "HCICommandFlow needs \(Self.memorySize) bytes")
        slots = memory
    }

    /// Queues `command`; false when the ring is full or the command does not fit a slot.
    public mutating func enqueue<Command: HCICommandParameters>(_ command: Command) -> Bool {
        guard queued < Self.slotCount else { return false }
        let slot = (head + queued) % Self.slotCount
        var writer = ByteWriter(UnsafeMutableRawBufferPointer(rebasing: slots[slot * Self.slotSize ..< (slot + 1) * Self.slotSize]))
        command.encodeCommand(into: &writer)
        guard !writer.overflowed else { return false }
        lengths[slot] = writer.count
        queued += 1
        return true
    }

    /// Commands waiting for credits.
    public var queuedCount: Int { queued }

    /// Sends what the controller will take now through `transmit`, oldest first.
    public mutating func pump(now: UInt32, _ transmit: (UnsafeRawBufferPointer) -> Void) {
        while queued > 0, credits > 0, outstandingCount < Self.slotCount {
            let start = head * Self.slotSize
            let packet = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(slots)[start ..< start + lengths[head]])
            if outstandingCount == 0 { deadline = now &+ Self.timeoutMilliseconds }
            outstanding[outstandingCount] = UInt16(packet[1]) | UInt16(packet[2]) << 8
            outstandingCount += 1
            credits -= 1
            head = (head + 1) % Self.slotCount
            queued -= 1
            transmit(packet)
        }
    }

    /// A Command Complete or Command Status for `opcode` allowing `allowed` more commands:
    /// true when it answers a command this host sent (an opcode of 0 only updates the credits,
    /// a controller's way of saying it is ready).
    public mutating func answered(_ opcode: HCIOpcode, allowed: UInt8, now: UInt32) -> Bool {
        credits = Int(allowed)
        guard opcode.rawValue != 0 else { return false }
        for i in 0..<outstandingCount where outstanding[i] == opcode.rawValue {
            for j in i..<(outstandingCount - 1) { outstanding[j] = outstanding[j + 1] }
            outstandingCount -= 1
            deadline = now &+ Self.timeoutMilliseconds
            return true
        }
        return false
    }

    /// The oldest unanswered command once its deadline has passed (wrapping millisecond clock).
    public func overdue(now: UInt32) -> HCIOpcode? {
        guard outstandingCount > 0, Int32(bitPattern: now &- deadline) >= 0 else { return nil }
        return HCIOpcode(rawValue: outstanding[0])
    }

    /// Back to the state after power-on: nothing queued or outstanding, one credit.
    public mutating func reset() {
        queued = 0
        head = 0
        outstandingCount = 0
        credits = 1
    }
}
