import FoundationEssentials
import Testing
@testable import HealthAnalysis

private let base = Date(timeIntervalSince1970: 1_796_050_800)  // 2026-11-30T15:00:00Z
private func at(_ minutes: Int) -> Date { base.addingTimeInterval(TimeInterval(minutes * 60)) }
private func interval(_ value: SleepValue, _ from: Int, _ to: Int, rank: Int = 0, recency: Int64 = 0) -> SleepInterval {
    SleepInterval(start: at(from), end: at(to), value: value, rank: rank, recency: recency)
}

@Suite("Sleep from several sources: priority, each moment once")
struct SleepMergeTests {
    @Test("One source: in bed, asleep, one awakening, efficiency")
    func oneSource() {
        let summary = SleepMerge.summary([
            interval(.inBed, 0, 480),
            interval(.asleepUnspecified, 0, 200), interval(.awake, 200, 230), interval(.asleepUnspecified, 230, 480),
        ])
        #expect(summary.inBed == 480 * 60)
        #expect(summary.asleep == 450 * 60)
        #expect(summary.awake == 30 * 60)
        #expect(summary.awakenings == 1)
        #expect(summary.efficiency == 450.0 / 480.0)
        #expect(summary.timeline.map(\.value) == [.asleepUnspecified, .awake, .asleepUnspecified])
    }

    @Test("Two sources recording the same night count it once; the better-ranked one decides where they overlap")
    func overlapCountedOnce() {
        let band = [interval(.inBed, 0, 480, rank: 0), interval(.asleepUnspecified, 0, 480, rank: 0)]
        // A phone app that thinks the night began an hour earlier and had an awakening the band did not see.
        let phone = [interval(.inBed, -60, 420, rank: 1), interval(.asleepUnspecified, -60, 100, rank: 1),
                     interval(.awake, 100, 140, rank: 1), interval(.asleepUnspecified, 140, 420, rank: 1)]
        let summary = SleepMerge.summary(band + phone)
        #expect(summary.inBed == 540 * 60)       // -60…480, not 480 + 480
        #expect(summary.asleep == 540 * 60)      // the band wins 0…480; the phone fills -60…0
        #expect(summary.awakenings == 0)
        let swapped = SleepMerge.summary(band.map { var s = $0; s.rank = 2; return s } + phone)
        #expect(swapped.asleep == (160 + 280 + 60) * 60)  // phone wins -60…420 (with its awakening), band fills 420…480
        #expect(swapped.awakenings == 1)
    }

    @Test("Equal rank: the more recently written sample wins")
    func recencyBreaksTies() {
        let summary = SleepMerge.summary([interval(.asleepUnspecified, 0, 60, recency: 1), interval(.awake, 0, 60, recency: 2)])
        // Within one source a specific value wins over in bed; between asleep and awake of the
        // same rank the asleep value is preferred (HealthKit apps nest awake inside asleep only by tiling).
        #expect(summary.asleep == 3600)
        let other = SleepMerge.summary([interval(.inBed, 0, 60, rank: 0, recency: 1), interval(.awake, 0, 60, rank: 1, recency: 9)])
        #expect(other.asleep == 0 && other.awake == 0 && other.inBed == 3600)
    }

    @Test("Clipped to a window; empty input gives an empty night")
    func clipping() {
        let summary = SleepMerge.summary([interval(.asleepUnspecified, -100, 100)], clippedTo: at(0)..<at(50))
        #expect(summary.asleep == 50 * 60)
        #expect(summary.start == at(0) && summary.end == at(50))
        let empty = SleepMerge.summary([])
        #expect(empty.inBed == 0 && empty.efficiency == nil && empty.timeline.isEmpty)
    }

    @Test("Sleep stages from another device count as asleep; a gap between two periods is not in bed")
    func stagesAndGaps() {
        let summary = SleepMerge.summary([
            interval(.asleepCore, 0, 60), interval(.asleepDeep, 60, 90), interval(.asleepREM, 90, 120),
            interval(.inBed, 300, 330), interval(.asleepUnspecified, 300, 330),
        ])
        #expect(summary.asleep == 150 * 60)
        #expect(summary.inBed == 150 * 60)
        #expect(summary.awakenings == 0)
    }
}
