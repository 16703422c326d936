/// How fast a replay runs: a factor on recorded time, or as fast as the peer takes it.
public enum ReplaySpeed: Hashable, Sendable, CustomStringConvertible {
    /// Recorded gaps divided by the factor (1 = real time, 10 = ten times faster).
    case factor(Double)
    /// No waiting at all; only the client's own pace (and the socket's back-pressure) limits it.
    case max

    public static let realTime = ReplaySpeed.factor(1)

    /// Parses `max` or a positive number such as `1`, `2.5`, `60`.
    public init?(argument: String) {
        if argument.lowercased() == "max" { self = .max; return }
        guard let factor = Double(argument), factor.isFinite, factor > 0 else { return nil }
        self = .factor(factor)
    }

    /// The live duration of a recorded gap of `microseconds`.
    public func liveDuration(ofRecorded microseconds: Int64) -> Duration {
        switch self {
        case .max: return .zero
        case .factor(let factor):
            // A damaged timestamp can make a gap of centuries, beyond Duration's Int64
            // nanoseconds: saturate (the wait is then effectively forever) rather than trap.
            let nanoseconds = (Double(microseconds) * 1000 / factor).rounded()
            guard nanoseconds < 0x1p63 else { return .nanoseconds(Int64.max) }
            guard nanoseconds >= -0x1p63 else { return .nanoseconds(Int64.min) }
            return .nanoseconds(Int64(nanoseconds))
        }
    }

    public var description: String {
        switch self {
        case .max: return "max"
        case .factor(let factor): return factor == factor.rounded() ? "\(Int(factor))x" : "\(factor)x"
        }
    }
}
