import BandWire

/// One beat-to-beat interval of a Heart Rate Measurement, in the SIG's unit of 1/1024 second.
///
/// Heart Rate Service 1.0 §3.1.1.5; GATT XML `heart_rate_measurement.xml`: "Resolution of
/// 1/1024 second". Kept raw so a value re-encodes bit for bit; convert with ``seconds``.
public struct RRInterval: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// Units of 1/1024 s.
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// Units per second.
    public static let ticksPerSecond = 1024

    /// The nearest representable interval to `seconds` (clamped to 0…65535/1024 s).
    public init(seconds: Double) {
        let ticks = (seconds * Double(Self.ticksPerSecond)).rounded()
        rawValue = UInt16(max(0, min(Double(UInt16.max), ticks)))
    }

    /// Exact: every raw value is a dyadic fraction, so the Double holds it without rounding.
    public var seconds: Double { Double(rawValue) / Double(Self.ticksPerSecond) }
    public var milliseconds: Double { seconds * 1000 }

    public var description: String { "\(rawValue)/1024 s" }
}

/// The RR-intervals of one measurement, oldest first.
///
/// Small-vector storage: the first ``inlineCapacity`` (16) intervals live inline, and only a
/// measurement with more spills the rest into an array. Sixteen is well above what one
/// notification holds in practice (a notification at the default ATT_MTU of 23 has room for
/// 9; a strap notifying once a second sees at most 4 beats at 240 bpm), so decoding a live or
/// recorded stream never touches the heap, while a 512-byte value with 255 intervals still
/// decodes, at the price of one allocation. The type stays small (48 bytes): a decoded
/// value moves through the pipeline in a few register copies, where the 510-byte inline
/// array it replaced cost a third of the trace decoder's time in `memmove`.
public struct RRIntervals: RandomAccessCollection, Equatable, Sendable, CustomStringConvertible {
    /// The most a Heart Rate Measurement can hold: a 512-byte value with only the flags and
    /// a uint8 heart rate leaves room for (512 − 2) / 2 = 255.
    public static let capacity = 255
    /// Intervals kept inline before the rest spill to the heap.
    public static let inlineCapacity = 16

    @usableFromInline var head: InlineArray<16, UInt16>
    @usableFromInline var headCount: UInt8
    /// Intervals beyond the first sixteen, in order; empty (and unallocated) otherwise.
    @usableFromInline var tail: [UInt16]

    @inlinable
    public init() {
        head = InlineArray(repeating: 0)
        headCount = 0
        tail = []
    }

    public init(_ intervals: some Sequence<RRInterval>) {
        self.init()
        for interval in intervals {
            precondition(append(interval), "more than \(Self.capacity) RR intervals")
        }
    }

    /// Convenience for raw 1/1024 s values.
    public init(raw: some Sequence<UInt16>) {
        self.init(raw.lazy.map(RRInterval.init(rawValue:)))
    }

    @inlinable public var count: Int { Int(headCount) + tail.count }
    @inlinable public var startIndex: Int { 0 }
    @inlinable public var endIndex: Int { count }

    @inlinable
    public subscript(position: Int) -> RRInterval {
        precondition(position >= 0 && position < count, "RR interval index out of range")
        if position < Self.inlineCapacity { return RRInterval(rawValue: head[position]) }
        return RRInterval(rawValue: tail[position - Self.inlineCapacity])
    }

    /// Appends `interval`; false when all ``capacity`` places are taken.
    @inlinable @discardableResult
    public mutating func append(_ interval: RRInterval) -> Bool {
        if headCount < Self.inlineCapacity {
            head[Int(headCount)] = interval.rawValue
            headCount += 1
            return true
        }
        guard count < Self.capacity else { return false }
        tail.append(interval.rawValue)
        return true
    }

    public mutating func removeAll() {
        headCount = 0
        tail.removeAll()
    }

    /// Reads RR-intervals (uint16, 1/1024 s) up to the end of `input`: they are the last field
    /// of a Heart Rate Measurement and run to the end of its value. More than ``capacity`` is an
    /// `invalidValue` at the first one that does not fit; a lone last byte is half an interval,
    /// `truncated` at its offset.
    @inlinable
    public init(parsingToEnd input: inout ByteCursor) throws(ParseError) {
        let available = input.remaining / 2
        guard available <= Self.capacity else {
            try input.skip(2 * Self.capacity, "RR-interval")
            throw input.error(.invalidValue, "RR-interval count")
        }
        let inlineCount = Swift.min(available, Self.inlineCapacity)
        head = InlineArray(repeating: 0)
        for index in 0..<inlineCount { head[index] = input.load(littleEndian: UInt16.self, at: 2 * index) }
        try input.skip(2 * inlineCount, "RR-interval")
        headCount = UInt8(inlineCount)
        tail = []
        if available > inlineCount {
            tail.reserveCapacity(available - inlineCount)
            for _ in inlineCount..<available { tail.append(try input.readUInt16LE("RR-interval")) }
        }
        if !input.isAtEnd { _ = try input.readUInt16LE("RR-interval") }
    }

    /// Calls `body` with each interval's raw value (1/1024 s) in order, without copying the
    /// list (a for-in loop's iterator holds a copy).
    @inlinable @inline(__always)
    public func forEachRawValue<E: Error>(_ body: (UInt16) throws(E) -> Void) throws(E) {
        for index in 0..<Int(headCount) { try body(head[index]) }
        for value in tail { try body(value) }
    }

    public static func == (lhs: RRIntervals, rhs: RRIntervals) -> Bool {
        lhs.elementsEqual(rhs)
    }

    public var description: String { "[" + map { String($0.rawValue) }.joined(separator: ", ") + "]" }
}
