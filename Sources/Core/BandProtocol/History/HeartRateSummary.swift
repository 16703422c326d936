/// Average, lowest and highest heart rate over one minute, in beats per minute.
///
/// Invariant: `0 < minimum <= average <= maximum`; ``MinuteRecord`` refuses anything else on the
/// wire, and a minute without measurements has no summary at all (never 0 or 255 as a value).
public struct HeartRateSummary: Hashable, Sendable {
    public var average: UInt8
    public var minimum: UInt8
    public var maximum: UInt8

    public init(average: UInt8, minimum: UInt8, maximum: UInt8) {
        self.average = average
        self.minimum = minimum
        self.maximum = maximum
    }

    public var isConsistent: Bool { minimum > 0 && minimum <= average && average <= maximum }
}
