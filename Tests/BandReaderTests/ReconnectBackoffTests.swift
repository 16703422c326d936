import BandReader
import BandTestSupport
import SeededRandom
import Testing

@Suite struct ReconnectBackoffTests {
    @Test func ceilingDoublesUpToTheMaximum() {
        let backoff = ReconnectBackoff(initial: .milliseconds(500), maximum: .seconds(10), jitter: 0.5)
        #expect((0..<7).map { backoff.ceilingDelay(forAttempt: $0) } ==
                [.milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(10), .seconds(10)])
        #expect(backoff.ceilingDelay(forAttempt: 10_000) == .seconds(10))
    }

    @Test func everyDelayLiesWithinTheJitterBand() {
        var backoff = ReconnectBackoff(initial: .milliseconds(100), maximum: .seconds(5), jitter: 0.5)
        var generator = SplitMix64(state: 42)
        for attempt in 0..<20 {
            let ceiling = backoff.ceilingDelay(forAttempt: attempt)
            let delay = backoff.nextDelay(using: &generator)
            #expect(delay <= ceiling && delay >= ceiling * 0.5, "attempt \(attempt): \(delay) outside \(ceiling * 0.5)…\(ceiling)")
        }
    }

    @Test func delaysAreJitteredNotLockStep() {
        var generator = SplitMix64(state: 7)
        var delays = Set<Duration>()
        for _ in 0..<10 {
            var backoff = ReconnectBackoff(initial: .seconds(1), maximum: .seconds(60), jitter: 0.5)
            delays.insert(backoff.nextDelay(using: &generator))
        }
        #expect(delays.count > 5)
    }

    @Test func successStartsTheSequenceAgain() {
        var backoff = ReconnectBackoff(initial: .seconds(1), maximum: .seconds(60), jitter: 0)
        var generator = SplitMix64(state: 1)
        _ = backoff.nextDelay(using: &generator)
        _ = backoff.nextDelay(using: &generator)
        #expect(backoff.nextDelay(using: &generator) == .seconds(4))
        backoff.succeeded()
        #expect(backoff.nextDelay(using: &generator) == .seconds(1))
    }
}
