import Foundation
import BandReader
import Testing

/// Each counter rule of LiveCounterTracker, by name.
@Suite struct LiveCounterTrackerTests {
    /// 2026-11-30 10:00:00 UTC, local day 20422 at UTC.
    static let t0: UInt32 = 1_796_032_800
    static let day: UInt16 = 20_787

    func reading(_ t: UInt32, steps: UInt32, distance: UInt32 = 0, energy: UInt32 = 0,
                 epoch: UInt16 = 3, day: UInt16 = day, offset: Int? = 0) -> CounterReading {
        CounterReading(timestamp: t, utcOffsetSeconds: offset, bootEpoch: epoch, localDay: day,
                       steps: steps, distanceDecimetres: distance, energyDecikilocalories: energy)
    }

    @Test func dayFixtureIsConsistent() {
        #expect(reading(Self.t0, steps: 0).isSelfConsistent)
    }

    @Test func firstReadingOnlySetsTheBaseline() {
        var tracker = LiveCounterTracker()
        let (delta, outcome) = tracker.update(with: reading(Self.t0, steps: 5_000, distance: 40_000, energy: 2_000))
        #expect(delta == .zero)
        #expect(outcome == .baseline)
    }

    @Test func growingCountersGiveTheirDifference() {
        var tracker = LiveCounterTracker()
        _ = tracker.update(with: reading(Self.t0, steps: 5_000, distance: 40_000, energy: 2_000))
        let (delta, outcome) = tracker.update(with: reading(Self.t0 + 10, steps: 5_012, distance: 40_090, energy: 2_004))
        #expect(delta == CounterDelta(steps: 12, distanceDecimetres: 90, energyDecikilocalories: 4))
        #expect(outcome == .increase)
    }

    @Test func unchangedCountersGiveZero() {
        var tracker = LiveCounterTracker()
        _ = tracker.update(with: reading(Self.t0, steps: 100))
        #expect(tracker.update(with: reading(Self.t0 + 1, steps: 100)) == (.zero, .increase))
    }

    @Test func midnightResetCountsTheStepsSinceMidnight() {
        var tracker = LiveCounterTracker()
        let beforeMidnight = (UInt32(Self.day) + 1) * 86_400 - 20
        _ = tracker.update(with: reading(beforeMidnight, steps: 9_000, day: Self.day))
        let (delta, outcome) = tracker.update(with: reading(beforeMidnight + 30, steps: 15, day: Self.day + 1))
        #expect(delta.steps == 15)
        #expect(outcome == .midnightReset)
    }

    @Test func midnightResetFollowsTheBandsZoneNotUTC() {
        // At UTC+5:30 the band's midnight is 18:30 UTC; the day field and timestamp agree there.
        var tracker = LiveCounterTracker()
        let offset = 19_800
        let localMidnight = UInt32(Int(UInt32(Self.day) + 1) * 86_400 - offset)
        _ = tracker.update(with: reading(localMidnight - 10, steps: 7_000, day: Self.day, offset: offset))
        let (delta, outcome) = tracker.update(with: reading(localMidnight + 20, steps: 30, day: Self.day + 1, offset: offset))
        #expect(outcome == .midnightReset)
        #expect(delta.steps == 30)
    }

    @Test func yesterdaysTotalArrivingAfterMidnightIsRejected() {
        // IT #1270: after midnight the band still reports yesterday's count under yesterday's day.
        var tracker = LiveCounterTracker()
        let afterMidnight = (UInt32(Self.day) + 1) * 86_400 + 5
        _ = tracker.update(with: reading(afterMidnight, steps: 3, day: Self.day + 1))
        let (delta, outcome) = tracker.update(with: reading(afterMidnight + 5, steps: 9_000, day: Self.day))
        #expect(delta == .zero)
        guard case .rejected = outcome else { Issue.record("got \(outcome)"); return }
    }

    @Test func rebootCountsTheStepsSinceBoot() {
        var tracker = LiveCounterTracker()
        _ = tracker.update(with: reading(Self.t0, steps: 4_000, epoch: 7))
        let (delta, outcome) = tracker.update(with: reading(Self.t0 + 60, steps: 40, epoch: 8))
        #expect(delta.steps == 40)
        #expect(outcome == .reboot)
    }

    @Test func counterShrinkingWithoutResetIsRejectedNeverNegative() {
        var tracker = LiveCounterTracker()
        _ = tracker.update(with: reading(Self.t0, steps: 4_000))
        let (delta, outcome) = tracker.update(with: reading(Self.t0 + 5, steps: 3_990))
        #expect(delta == .zero)
        guard case .rejected = outcome else { Issue.record("got \(outcome)"); return }
        // The rejected reading is the new baseline: the next increase counts from it.
        #expect(tracker.update(with: reading(Self.t0 + 10, steps: 3_995)).0.steps == 5)
    }

    @Test func uint32StepCounterWrapsAround() {
        var tracker = LiveCounterTracker()
        _ = tracker.update(with: reading(Self.t0, steps: UInt32.max - 2))
        let (delta, outcome) = tracker.update(with: reading(Self.t0 + 2, steps: 4))
        #expect(delta.steps == 7)
        #expect(outcome == .wrapped)
    }

    @Test func uint24DistanceCounterWrapsAround() {
        var tracker = LiveCounterTracker()
        _ = tracker.update(with: reading(Self.t0, steps: 0, distance: 0xFF_FFF0))
        let (delta, outcome) = tracker.update(with: reading(Self.t0 + 1, steps: 1, distance: 0x10))
        #expect(delta.distanceDecimetres == 0x20)
        #expect(outcome == .wrapped)
    }

    @Test func corruptedHighByteIsRejectedNotAddedAsMillionsOfSteps() {
        var tracker = LiveCounterTracker()
        _ = tracker.update(with: reading(Self.t0, steps: 5_000))
        let (delta, outcome) = tracker.update(with: reading(Self.t0 + 1, steps: 5_001 | 0x0100_0000))
        #expect(delta == .zero)
        guard case .rejected = outcome else { Issue.record("got \(outcome)"); return }
        // Back to the true value: a shrink, rejected again; nothing inflated on the way.
        #expect(tracker.update(with: reading(Self.t0 + 2, steps: 5_003)).0 == .zero)
        #expect(tracker.update(with: reading(Self.t0 + 3, steps: 5_006)).0.steps == 3)
    }

    @Test func readingWhoseDayContradictsItsTimestampIsRejected() {
        var tracker = LiveCounterTracker()
        _ = tracker.update(with: reading(Self.t0, steps: 5_000))
        let (delta, outcome) = tracker.update(with: reading(Self.t0 + 1, steps: 3, day: Self.day + 9))
        #expect(delta == .zero)
        guard case .rejected = outcome else { Issue.record("got \(outcome)"); return }
    }

    @Test func clockGoingBackIsRejected() {
        var tracker = LiveCounterTracker()
        _ = tracker.update(with: reading(Self.t0, steps: 5_000))
        let (delta, outcome) = tracker.update(with: reading(Self.t0 - 100, steps: 5_010))
        #expect(delta == .zero)
        guard case .rejected = outcome else { Issue.record("got \(outcome)"); return }
    }

    @Test func rebootWithImplausibleCountIsRejected() {
        var tracker = LiveCounterTracker()
        _ = tracker.update(with: reading(Self.t0, steps: 4_000, epoch: 7))
        let (delta, outcome) = tracker.update(with: reading(Self.t0 + 2, steps: 4_000, epoch: 8))
        #expect(delta == .zero)
        guard case .rejected = outcome else { Issue.record("got \(outcome)"); return }
    }
}

@Suite struct BandClockEstimatorTests {
    let host0 = Date(timeIntervalSince1970: 1_000_000)

    @Test func rateIsLearnedFromObservations() {
        var clock = BandClockEstimator()
        clock.observe(5_000, at: host0)
        clock.observe(5_600, at: host0.addingTimeInterval(1))
        #expect(clock.rate == 600)
        #expect(clock.estimate(at: host0.addingTimeInterval(1.5)) == 5_900)
    }

    @Test func oneDamagedTimestampDoesNotMoveTheEstimate() {
        var clock = BandClockEstimator()
        clock.observe(5_000, at: host0)
        clock.observe(5_010, at: host0.addingTimeInterval(10))
        #expect(clock.rate == 1)
        let damaged = clock.observe(5_020 + 32_768, at: host0.addingTimeInterval(20))
        #expect(!damaged)
        let next = clock.observe(5_030, at: host0.addingTimeInterval(30))
        #expect(next)
        #expect(clock.estimate(at: host0.addingTimeInterval(30)) == 5_030)
    }

    @Test func aClockThatReallyJumpedIsFollowedAfterThreeObservations() {
        var clock = BandClockEstimator()
        clock.observe(5_000, at: host0)
        clock.observe(5_001, at: host0.addingTimeInterval(1))
        for i in 1...2 {
            let used = clock.observe(90_000 + UInt32(i), at: host0.addingTimeInterval(1 + Double(i)))
            #expect(!used)
        }
        let third = clock.observe(90_003, at: host0.addingTimeInterval(4))
        #expect(third)
        #expect(clock.estimate(at: host0.addingTimeInterval(4)) == 90_003)
    }
}
