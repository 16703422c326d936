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

/// The RR-intervals of one measurement, oldest first, stored inline (no heap).
///
/// Capacity 255: a 512-byte value holding only the flags, a uint8 heart rate and intervals
/// has room for (512 − 2) / 2 = 255 of them.
public struct RRIntervals: RandomAccessCollection, Equatable, Sendable, CustomStringConvertible {
    public static let capacity = 255

    @usableFromInline var storage: InlineArray<255, UInt16>
    public private(set) var count: Int

    public init() {
        storage = InlineArray(repeating: 0)
        count = 0
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

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    // Inlinable and read through a borrowed span: an opaque cross-module getter (or the
    // InlineArray subscript on a temporary) copied all 510 bytes of storage per element.
    @inlinable
    public subscript(position: Int) -> RRInterval {
        precondition(position >= 0 && position < count, "RR interval index out of range")
        return RRInterval(rawValue: storage.span[position])
    }

    /// Appends `interval`; false when all 255 places are taken.
    @discardableResult
    public mutating func append(_ interval: RRInterval) -> Bool {
        guard count < Self.capacity else { return false }
        storage[count] = interval.rawValue
        count += 1
        return true
    }

    public mutating func removeAll() { count = 0 }

    public static func == (lhs: RRIntervals, rhs: RRIntervals) -> Bool {
        lhs.elementsEqual(rhs)
    }

    public var description: String { "[" + map { String($0.rawValue) }.joined(separator: ", ") + "]" }
}
