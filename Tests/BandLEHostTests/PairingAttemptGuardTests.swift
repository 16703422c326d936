import BandLEHost
import Testing

/// The repeated-attempts guard on its own (Core 5.4 Vol 3 Part H §2.3.6): the wait starts after
/// three wrong passkeys, doubles, is capped, shrinks again when nobody fails, and survives the
/// millisecond clock's wrap.
@Suite struct PairingAttemptGuardTests {
    typealias Guard = PairingAttemptGuard

    @Test func threeFailuresStartTheWaitAndEachFurtherOneDoublesItUpToTheCap() {
        var guarded = Guard()
        #expect(guarded.passkeyFailed(now: 0) == 0)
        #expect(guarded.passkeyFailed(now: 1_000) == 0)
        #expect(guarded.remaining(now: 1_000) == 0)
        #expect(guarded.passkeyFailed(now: 2_000) == 10_000)
        #expect(guarded.remaining(now: 2_000) == 10_000)
        #expect(guarded.remaining(now: 11_999) == 1)
        #expect(guarded.remaining(now: 12_000) == 0)
        var now: UInt32 = 12_000
        var waits: [UInt32] = []
        for _ in 0..<8 {
            let wait = guarded.passkeyFailed(now: now)
            waits.append(wait)
            now += wait
        }
        #expect(waits == [20_000, 40_000, 80_000, 160_000, 320_000, 600_000, 600_000, 600_000])
    }

    @Test func aSuccessClearsEverything() {
        var guarded = Guard()
        for t in 0..<3 { _ = guarded.passkeyFailed(now: UInt32(t)) }
        guarded.succeeded()
        #expect(guarded.remaining(now: 3) == 0)
        #expect(guarded.consecutiveFailures == 0)
        #expect(guarded.passkeyFailed(now: 4) == 0)
    }

    @Test func quietPeriodsHalveTheWaitUntilTheGuardStartsOver() {
        var guarded = Guard()
        var now: UInt32 = 0
        for _ in 0..<5 { now += guarded.passkeyFailed(now: now) }  // waits 10, 20, then 40 s
        #expect(guarded.wait == 40_000)
        // One quiet period after the wait ended: 40 → 20 s, so the next failure waits 40 s again, not 80.
        guarded.advance(now: now + Guard.quietMilliseconds)
        #expect(guarded.wait == 20_000)
        now += Guard.quietMilliseconds
        #expect(guarded.passkeyFailed(now: now) == 40_000)
        now += 40_000
        // Three quiet periods: 40 → 20 → 10 → 5 s, under the first wait: the guard starts over.
        guarded.advance(now: now + 3 * Guard.quietMilliseconds)
        #expect(guarded.consecutiveFailures == 0 && guarded.wait == 0)
        #expect(guarded.passkeyFailed(now: now + 3 * Guard.quietMilliseconds) == 0)
    }

    @Test func wrongPasskeysSpreadOverQuietPeriodsNeverBlock() {
        var guarded = Guard()
        var now: UInt32 = 0
        for _ in 0..<10 {
            #expect(guarded.passkeyFailed(now: now) == 0)
            now += Guard.quietMilliseconds
            guarded.advance(now: now)
        }
    }

    @Test func aWaitThatEndedStaysEndedWhenTheClockWraps() {
        var guarded = Guard()
        let start: UInt32 = 4_294_960_000  // 7.3 s before the clock wraps
        for t in 0..<3 { _ = guarded.passkeyFailed(now: start &+ UInt32(t)) }
        #expect(guarded.remaining(now: start &+ 5_000) > 0)
        #expect(guarded.remaining(now: 20_000) == 0)
        // The host ticks through the following days; 25 days later, pairing is still allowed
        // (a signed difference of the wrapped clock would otherwise read as 24.7 days to wait).
        var now: UInt32 = 20_000
        for _ in 0..<(25 * 24) {
            now &+= 3_600_000
            guarded.advance(now: now)
            #expect(guarded.remaining(now: now) == 0)
        }
    }
}
