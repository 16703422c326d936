/// How long to wait before the next connection attempt: jittered exponential backoff.
///
/// Attempt *n* (0-based) waits a random time in `[(1 − jitter)·d, d]` where
/// `d = min(maximum, initial · 2ⁿ)`. The jitter keeps a fleet of readers (or one reader and a
/// band that reboots on a timer) from reconnecting in lock-step; the cap keeps a band that
/// walked out of range from being polled once an hour. Peers use fixed 60 s or 2 min timers
/// (reference/peers.md), which is both slow after a blip and noisy when the band is gone.
///
/// A connection that came up and did real work (``succeeded()``) resets the sequence.
public struct ReconnectBackoff: Sendable {
    public var initial: Duration
    public var maximum: Duration
    /// Fraction of each delay that is randomised, 0…1.
    public var jitter: Double
    public private(set) var attempt: Int = 0

    public init(initial: Duration = .milliseconds(500), maximum: Duration = .seconds(60), jitter: Double = 0.5) {
        precondition(initial > .zero && maximum >= initial, "backoff needs 0 < initial ≤ maximum")
        precondition((0...1).contains(jitter), "jitter is a fraction 0…1")
        self.initial = initial
        self.maximum = maximum
        self.jitter = jitter
    }

    /// The delay before the next attempt; advances the sequence.
    public mutating func nextDelay<R: RandomNumberGenerator>(using generator: inout R) -> Duration {
        let ceiling = ceilingDelay(forAttempt: attempt)
        attempt += 1
        let fraction = 1 - jitter * Double.random(in: 0..<1, using: &generator)
        return ceiling * fraction
    }

    public mutating func nextDelay() -> Duration {
        var generator = SystemRandomNumberGenerator()
        return nextDelay(using: &generator)
    }

    /// The un-jittered delay of attempt `n`.
    public func ceilingDelay(forAttempt n: Int) -> Duration {
        var delay = initial
        for _ in 0..<min(n, 62) {
            delay = delay * 2
            if delay >= maximum { return maximum }
        }
        return min(delay, maximum)
    }

    /// The last connection worked: the next failure starts again from `initial`.
    public mutating func succeeded() { attempt = 0 }
}
