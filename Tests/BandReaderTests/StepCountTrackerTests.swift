import BandReader
import Testing

/// A daily running step total (InfiniTime) into steps that are never negative and never counted
/// twice, as scripted conversations: readings in, outcomes out.
@Suite struct StepCountTrackerTests {
    /// 2026-11-30T12:00:00Z; the watch is at UTC+1, so its local midnight is 23:00Z.
    static let noon: UInt32 = 1_796_040_000
    static let offset = 3600
    static let localMidnight: UInt32 = 1_796_079_600   // 2026-12-01T00:00+01:00
    static let day = Int64((Int(noon) + offset) / 86_400)

    func converse(_ tracker: inout StepCountTracker, _ script: [(total: UInt32, at: UInt32, StepCountTracker.Outcome)],
                  sourceLocation: SourceLocation = #_sourceLocation) {
        for (index, step) in script.enumerated() {
            #expect(tracker.observe(total: step.total, at: step.at, utcOffsetSeconds: Self.offset) == step.2, "step \(index)",
                    sourceLocation: sourceLocation)
        }
    }

    @Test func whileConnectedEachReadingAddsItsGrowth() {
        var tracker = StepCountTracker(stored: StepCountState(total: 100, time: Self.noon - 5, localDay: Self.day))
        converse(&tracker, [
            (100, Self.noon, .unchanged),
            (104, Self.noon + 1, .steps(4)),
            (104, Self.noon + 2, .unchanged),
            (130, Self.noon + 3, .steps(26)),
        ])
        #expect(tracker.last == StepCountState(total: 130, time: Self.noon + 3, localDay: Self.day))
    }

    @Test func localMidnightWhileConnectedCountsTheNewDaysStepsNotANegativeDelta() {
        var tracker = StepCountTracker(stored: StepCountState(total: 9_000, time: Self.localMidnight - 10, localDay: Self.day))
        converse(&tracker, [
            (9_000, Self.localMidnight - 5, .unchanged),
            (9_012, Self.localMidnight - 1, .steps(12)),
            (0, Self.localMidnight, .unchanged),
            (3, Self.localMidnight + 2, .steps(3)),
        ])
        // The reset notification lost: the first value of the new day is all new steps.
        var missed = StepCountTracker(stored: StepCountState(total: 9_012, time: Self.localMidnight - 1, localDay: Self.day))
        converse(&missed, [(9_012, Self.localMidnight - 1, .unchanged), (7, Self.localMidnight + 4, .steps(7))])
    }

    @Test func growthWhileAwayIsOneGapFromTheLastReading() {
        var tracker = StepCountTracker(stored: StepCountState(total: 500, time: Self.noon - 3600, localDay: Self.day))
        converse(&tracker, [(1_700, Self.noon, .gap(steps: 1_200, from: Self.noon - 3600, to: Self.noon, reason: .away)),
                            (1_705, Self.noon + 1, .steps(5))])
        var still = StepCountTracker(stored: StepCountState(total: 500, time: Self.noon - 3600, localDay: Self.day))
        converse(&still, [(500, Self.noon, .unchanged)])
    }

    @Test func aRebootWhileAwayCountsOnlyWhatTheWatchCountedSinceIt() {
        var tracker = StepCountTracker(stored: StepCountState(total: 5_000, time: Self.noon - 3600, localDay: Self.day))
        converse(&tracker, [(240, Self.noon, .gap(steps: 240, from: Self.noon - 3600, to: Self.noon, reason: .rebootWhileAway))])
        var zero = StepCountTracker(stored: StepCountState(total: 5_000, time: Self.noon - 3600, localDay: Self.day))
        converse(&zero, [(0, Self.noon, .unchanged), (2, Self.noon + 1, .steps(2))])
    }

    @Test func midnightWhileAwayCountsTheNewDayFromItsMidnight() {
        var tracker = StepCountTracker(stored: StepCountState(total: 8_000, time: Self.localMidnight - 7200, localDay: Self.day))
        converse(&tracker, [(60, Self.localMidnight + 600,
                             .gap(steps: 60, from: Self.localMidnight, to: Self.localMidnight + 600, reason: .midnightWhileAway))])
        #expect(tracker.last?.localDay == Self.day + 1)
    }

    @Test func theFirstSightOfAWatchIsOneSampleFromItsLocalMidnight() {
        var tracker = StepCountTracker(stored: nil)
        converse(&tracker, [(3_000, Self.noon, .gap(steps: 3_000, from: Self.localMidnight - 86_400, to: Self.noon, reason: .firstSight)),
                            (3_010, Self.noon + 5, .steps(10))])
        var empty = StepCountTracker(stored: nil)
        converse(&empty, [(0, Self.noon, .baseline), (4, Self.noon + 1, .steps(4))])
    }

    @Test func aReconnectComparesWithWhatWasSeenNotWhatWasStoredAtTheStart() {
        var tracker = StepCountTracker(stored: StepCountState(total: 100, time: Self.noon - 60, localDay: Self.day))
        converse(&tracker, [(100, Self.noon, .unchanged), (150, Self.noon + 10, .steps(50))])
        tracker.reconnected()
        // Seen again 20 s later with 150: nothing grew while away; counted once.
        converse(&tracker, [(150, Self.noon + 30, .unchanged), (160, Self.noon + 31, .steps(10))])
    }

    @Test func aClockThatWentBackIsANewBaselineNotACount() {
        var tracker = StepCountTracker(stored: StepCountState(total: 4_000, time: Self.noon, localDay: Self.day))
        converse(&tracker, [(4_100, Self.noon - 86_400, .baseline), (4_110, Self.noon - 86_399, .steps(10))])
    }

    @Test func theStoredStateRoundTripsAndDamagedTextIsNone() {
        let state = StepCountState(total: 4_294_967_295, time: Self.noon, localDay: -3)
        #expect(StepCountState(stored: state.stored) == state)
        for damaged in ["", "1 2", "1 2 3 4", "x 2 3", "-1 2 3", "1 4294967296 3"] {
            #expect(StepCountState(stored: damaged) == nil, "\(damaged)")
        }
    }

    /// A watch whose clock runs ahead of the reader's estimate: its midnight reset arrives while
    /// the reader still stamps readings before midnight. The steps after the reset are counted
    /// live once; the next connection (the watch's new day, read from its clock) counts only
    /// what grew since, not the whole new-day total again as "midnight while away".
    @Test func aResetTheReaderStampedBeforeMidnightIsNotCountedAgainAfterReconnecting() {
        var tracker = StepCountTracker(stored: StepCountState(total: 9_000, time: Self.localMidnight - 600, localDay: Self.day))
        converse(&tracker, [
            (9_000, Self.localMidnight - 300, .unchanged),
            (0, Self.localMidnight - 290, .unchanged),       // the watch's midnight, stamped 290 s early
            (14, Self.localMidnight - 280, .steps(14)),
        ])
        #expect(tracker.last?.localDay == Self.day + 1, "the reset's total belongs to the watch's new day")
        tracker.reconnected()
        converse(&tracker, [(68, Self.localMidnight + 3_600, .gap(steps: 54, from: Self.localMidnight - 280,
                                                                   to: Self.localMidnight + 3_600, reason: .away))])
        // Stored and reloaded (a restarted reader) the same.
        var restarted = StepCountTracker(stored: StepCountState(total: 14, time: Self.localMidnight - 280, localDay: Self.day + 1))
        converse(&restarted, [(68, Self.localMidnight + 3_600, .gap(steps: 54, from: Self.localMidnight - 280,
                                                                     to: Self.localMidnight + 3_600, reason: .away))])
    }

    /// The reader's estimate running ahead of a slow watch: its own midnight comes first, then
    /// the watch's reset; the reset does not push the total into the day after.
    @Test func aSlowWatchsResetAfterTheEstimatedMidnightStaysOnItsDay() {
        var tracker = StepCountTracker(stored: StepCountState(total: 9_000, time: Self.localMidnight - 600, localDay: Self.day))
        converse(&tracker, [
            (9_000, Self.localMidnight - 300, .unchanged),
            (9_010, Self.localMidnight + 30, .steps(10)),    // the watch is still before its midnight
            (2, Self.localMidnight + 90, .steps(2)),
        ])
        #expect(tracker.last?.localDay == Self.day + 1)
    }
}
