/// One minute of a wearer's night as the sleep scorer sees it: what the band recorded.
///
/// `steps` is the minute's step count (0 when the band recorded the minute and no step);
/// `heartRate` the minute's average pulse in beats per minute, nil when the band measured none,
/// which on a band means it was not worn (no skin contact) or the minute is missing.
public struct SleepEpoch: Hashable, Sendable {
    public var steps: Double?
    public var heartRate: Double?

    public init(steps: Double?, heartRate: Double?) {
        self.steps = steps
        self.heartRate = heartRate
    }

    /// A minute the band has no usable record of: never scored asleep.
    public static let missing = SleepEpoch(steps: nil, heartRate: nil)

    /// Worn and recorded: the pulse is what shows a band on a wrist.
    public var isWorn: Bool { heartRate != nil }
}

/// What the scorer decided for one minute.
public enum SleepState: UInt8, Hashable, Sendable {
    case asleep
    case awake
    /// Not worn or not recorded: neither asleep nor awake, and never part of a sleep period.
    case unknown
}
