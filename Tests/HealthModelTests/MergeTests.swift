import HealthTestSupport
import Foundation
import HealthModel
import Testing

/// The merge on its own, in whole minutes for readability.
@Suite struct PriorityMergeTests {
    func sample(_ from: Int64, _ to: Int64, _ value: Double, rank: Int32, recency: Int64 = 0) -> MergeSample {
        MergeSample(start: from * 60_000_000, end: to * 60_000_000, value: value, rank: rank, recency: recency)
    }
    func borders(_ minutes: Int64...) -> [Int64] { minutes.map { $0 * 60_000_000 } }

    @Test func aStraddlingSampleIsSplitInProportionToTime() {
        // 100 steps over 13:57–14:02 → 60 in the 13:00 bucket, 40 in the 14:00 bucket (vital-ios #34).
        let sums = PriorityMerge.sums([sample(13 * 60 + 57, 14 * 60 + 2, 100, rank: 0)],
                                      borders: borders(13 * 60, 14 * 60, 15 * 60))
        #expect(sums.count == 2)
        #expect(abs(sums[0]! - 60) < 1e-9 && abs(sums[1]! - 40) < 1e-9)
    }

    @Test func theBestSourceWinsAndLowerOnesOnlyFillItsGaps() {
        // Watch (rank 0) 0–10 min 100 steps; phone (rank 1) 5–20 min 150 steps.
        // Merged: watch 100 + phone's 10–20 share (100) = 200, not 250.
        let sums = PriorityMerge.sums([sample(0, 10, 100, rank: 0), sample(5, 20, 150, rank: 1)], borders: borders(0, 60))
        #expect(sums == [200])
    }

    @Test func amongEqualRanksTheMostRecentlyWrittenWins() {
        let sums = PriorityMerge.sums([sample(0, 10, 100, rank: 0, recency: 1), sample(0, 10, 70, rank: 0, recency: 2)],
                                      borders: borders(0, 10))
        #expect(sums == [70])
    }

    @Test func bucketsWithoutDataHaveNoValueAndZeroStepsIsAValue() {
        let sums = PriorityMerge.sums([sample(0, 10, 0, rank: 0)], borders: borders(0, 10, 20))
        #expect(sums == [0, nil])
    }

    @Test func samplesReachingOutsideTheRangeCountOnlyTheirInsideShare() {
        let sums = PriorityMerge.sums([sample(-10, 10, 200, rank: 0)], borders: borders(0, 60))
        #expect(sums == [100])
    }

    @Test func perSourceSumsDoNotMerge() {
        let samples = [sample(0, 10, 100, rank: 0), sample(5, 20, 150, rank: 1)]
        let sums = PriorityMerge.sumsBySource(samples, sources: [0, 1], sourceCount: 2, borders: borders(0, 60))
        #expect(sums == [[100], [150]])
    }
}

@Suite struct BucketCalendarTests {
    func hours(_ borders: [Int64]) -> [Double] {
        zip(borders, borders.dropFirst()).map { Double($1 - $0) / 3_600_000_000 }
    }

    @Test(arguments: [
        ("Europe/Berlin", "2026-03-28T00:00:00+01:00", "2026-03-31T00:00:00+02:00", [24.0, 23, 24]),
        ("Europe/Berlin", "2026-10-24T00:00:00+02:00", "2026-10-27T00:00:00+01:00", [24.0, 25, 24]),
        ("America/New_York", "2026-03-07T00:00:00-05:00", "2026-03-10T00:00:00-04:00", [24.0, 23, 24]),
        ("America/New_York", "2026-10-31T00:00:00-04:00", "2026-11-03T00:00:00-05:00", [24.0, 25, 24]),
    ])
    func daysFollowTheLocalCalendarAcrossDaylightSaving(zone name: String, from: String, to: String, expected: [Double]) {
        let borders = BucketCalendar.borders(range: at(from)..<at(to), interval: .day, timeZone: zone(name))
        #expect(hours(borders) == expected)
    }

    @Test func hoursInAHalfHourZoneStartAtHalfPastUTC() {
        // India is UTC+05:30: local hours begin at :30 UTC.
        let borders = BucketCalendar.borders(range: at("2026-11-30T00:00:00Z")..<at("2026-11-30T02:00:00Z"),
                                             interval: .hour, timeZone: zone("Asia/Kolkata"))
        #expect(borders.map { Date(microsecondsSince1970: $0) } ==
                [at("2026-11-30T00:00:00Z"), at("2026-11-30T00:30:00Z"), at("2026-11-30T01:30:00Z"), at("2026-11-30T02:00:00Z")])
    }

    @Test func edgeBucketsAreClippedToTheRange() {
        let borders = BucketCalendar.borders(range: at("2026-11-30T10:30:00Z")..<at("2026-11-30T12:15:00Z"),
                                             interval: .hour, timeZone: zone("UTC"))
        #expect(borders.map { Date(microsecondsSince1970: $0) } ==
                [at("2026-11-30T10:30:00Z"), at("2026-11-30T11:00:00Z"), at("2026-11-30T12:00:00Z"), at("2026-11-30T12:15:00Z")])
    }

    @Test func weeksStartOnMondayAndMonthsOnTheFirst() {
        let weeks = BucketCalendar.borders(range: at("2026-11-25T00:00:00Z")..<at("2026-12-10T00:00:00Z"),
                                           interval: .week, timeZone: zone("UTC"))
        #expect(weeks.map { Date(microsecondsSince1970: $0) } ==
                [at("2026-11-25T00:00:00Z"), at("2026-11-30T00:00:00Z"), at("2026-12-07T00:00:00Z"), at("2026-12-10T00:00:00Z")])
        let months = BucketCalendar.borders(range: at("2026-01-15T00:00:00+01:00")..<at("2026-04-01T00:00:00+02:00"),
                                            interval: .month, timeZone: zone("Europe/Berlin"))
        #expect(months.map { Date(microsecondsSince1970: $0) } ==
                [at("2026-01-15T00:00:00+01:00"), at("2026-02-01T00:00:00+01:00"), at("2026-03-01T00:00:00+01:00"),
                 at("2026-04-01T00:00:00+02:00")])
    }

    @Test func anAnchorSetsThePhaseOfEveryBucket() {
        // A day anchored at 04:00 local: each day starts at 04:00.
        let borders = BucketCalendar.borders(range: at("2026-11-30T00:00:00Z")..<at("2026-12-02T00:00:00Z"), interval: .day,
                                             anchor: at("2026-11-01T04:00:00Z"), timeZone: zone("UTC"))
        #expect(borders.map { Date(microsecondsSince1970: $0) } ==
                [at("2026-11-30T00:00:00Z"), at("2026-11-30T04:00:00Z"), at("2026-12-01T04:00:00Z"), at("2026-12-02T00:00:00Z")])
    }
}
