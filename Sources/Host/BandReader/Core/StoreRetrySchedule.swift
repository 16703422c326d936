/// How a `band sync` retries an unreachable store before giving up: the first delay, the longest
/// (delays double in between) and the number of retries. A stream never gives up.
///
/// The standard schedule (1 s, doubling to 60 s, 9 retries: about 4 minutes) rides out a server
/// restart. Tests that need the give-up shorten it through ``environmentVariable``, which `band`
/// reads (see docs/deployment.md): `BANDKIT_STORE_RETRY=INITIAL_MS,MAXIMUM_MS,RETRIES`.
public struct StoreRetrySchedule: Equatable, Sendable {
    public var initial: Duration
    public var maximum: Duration
    public var retries: Int

    public static let standard = StoreRetrySchedule(initial: .seconds(1), maximum: .seconds(60), retries: 9)
    public static let environmentVariable = "BANDKIT_STORE_RETRY"
    /// Bounds on what the variable may set: a delay of 1 ms to 10 min, at most 1,000 retries.
    static let delayRange: ClosedRange<Int> = 1...600_000
    static let retryRange: ClosedRange<Int> = 0...1_000

    public init(initial: Duration, maximum: Duration, retries: Int) {
        self.initial = initial
        self.maximum = maximum
        self.retries = retries
    }

    /// Reads `INITIAL_MS,MAXIMUM_MS,RETRIES` (e.g. `200,400,3`); fails with the reason when the
    /// text is not three whole numbers within bounds, the first delay no longer than the longest.
    public static func parse(_ text: String) -> Result<StoreRetrySchedule, ScheduleProblem> {
        let fields = text.split(separator: ",", omittingEmptySubsequences: false)
        guard fields.count == 3, let initial = Int(fields[0]), let maximum = Int(fields[1]), let retries = Int(fields[2]) else {
            return .failure(ScheduleProblem(reason: "expected INITIAL_MS,MAXIMUM_MS,RETRIES (three whole numbers)"))
        }
        guard delayRange.contains(initial), delayRange.contains(maximum) else {
            return .failure(ScheduleProblem(reason: "delays must be \(delayRange.lowerBound)…\(delayRange.upperBound) ms"))
        }
        guard initial <= maximum else { return .failure(ScheduleProblem(reason: "the first delay is longer than the longest")) }
        guard retryRange.contains(retries) else {
            return .failure(ScheduleProblem(reason: "retries must be \(retryRange.lowerBound)…\(retryRange.upperBound)"))
        }
        return .success(StoreRetrySchedule(initial: .milliseconds(initial), maximum: .milliseconds(maximum), retries: retries))
    }

    public struct ScheduleProblem: Error, Equatable, CustomStringConvertible {
        public var reason: String
        public var description: String { reason }
    }

    /// The delays, without jitter (one gateway's retries synchronise with nothing).
    var backoff: ReconnectBackoff { ReconnectBackoff(initial: initial, maximum: maximum, jitter: 0) }
}
