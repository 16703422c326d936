/// What the recorded server pushed, in order and with its timing, plus the client writes
/// each push followed: the script a replaying server performs.
///
/// Values live in one shared byte arena, so a week of notifications is two arrays, not a
/// million small ones.
public struct NotificationTimeline: Sendable {
    /// "The client had written `handle` `ordinal` times" (1-based), at recorded time
    /// `unixMicroseconds`: the last client write before a push in the trace. A replay
    /// holds the push until the live client has done the same (or a timeout passes), so
    /// answers to a control-point write, or notifications after a CCCD write, keep their
    /// cause.
    public struct WriteGate: Hashable, Sendable {
        public var handle: UInt16
        public var ordinal: Int
        public var unixMicroseconds: Int64
    }

    public struct Push: Hashable, Sendable {
        public var unixMicroseconds: Int64
        public var handle: UInt16
        public var isIndication: Bool
        public var gate: WriteGate?
        var valueStart: Int
        var valueCount: Int
    }

    public private(set) var pushes: [Push] = []
    private var arena: [UInt8] = []
    /// When the recorded connection started (its connection event, or its first PDU).
    public private(set) var startMicroseconds: Int64?
    /// When it ended (its disconnection, or its last PDU).
    public private(set) var endMicroseconds: Int64?
    /// The last client write before the end, so a replay does not hang up mid-exchange.
    public private(set) var endGate: WriteGate?
    private var writeCounts: [UInt16: Int] = [:]
    private var lastWrite: WriteGate?

    public init() {}

    public var count: Int { pushes.count }
    public var isEmpty: Bool { pushes.isEmpty }

    /// The value of `push`.
    public func value(of push: Push) -> ArraySlice<UInt8> {
        arena[push.valueStart..<push.valueStart + push.valueCount]
    }

    /// Calls `body` with a view of `push`'s value (no copy).
    public func withValue<R>(of push: Push, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try arena.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[push.valueStart..<push.valueStart + push.valueCount])) }
    }

    /// The same timeline without the pushes for `handle` (answered live instead); the write
    /// gates of the others are unchanged.
    public func removingPushes(on handle: UInt16) -> NotificationTimeline {
        var copy = self
        copy.pushes.removeAll { $0.handle == handle }
        return copy
    }

    // MARK: Building

    /// Notes any PDU time on the connection (sets start and end when no events do).
    public mutating func saw(at unixMicroseconds: Int64) {
        if startMicroseconds == nil { startMicroseconds = unixMicroseconds }
        endMicroseconds = max(endMicroseconds ?? unixMicroseconds, unixMicroseconds)
    }

    public mutating func connected(at unixMicroseconds: Int64) {
        startMicroseconds = unixMicroseconds
    }

    public mutating func disconnected(at unixMicroseconds: Int64) {
        endMicroseconds = unixMicroseconds
    }

    /// The client wrote `handle` (Write Request or Write Command).
    public mutating func clientWrote(handle: UInt16, at unixMicroseconds: Int64) {
        saw(at: unixMicroseconds)
        let ordinal = writeCounts[handle, default: 0] + 1
        writeCounts[handle] = ordinal
        lastWrite = WriteGate(handle: handle, ordinal: ordinal, unixMicroseconds: unixMicroseconds)
        endGate = lastWrite
    }

    /// The server pushed `value` for `handle`.
    public mutating func serverPushed(handle: UInt16, value: UnsafeRawBufferPointer, isIndication: Bool, at unixMicroseconds: Int64) {
        saw(at: unixMicroseconds)
        pushes.append(Push(unixMicroseconds: unixMicroseconds, handle: handle, isIndication: isIndication,
                           gate: lastWrite, valueStart: arena.count, valueCount: value.count))
        arena.append(contentsOf: value)
    }
}
