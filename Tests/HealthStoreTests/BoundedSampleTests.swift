import Foundation
import HealthModel
import HealthTestSupport
import Testing
@testable import HealthStore

/// No single sample the store accepts can blow up its rollups or its queries: the store
/// refuses times outside the documented bounds, and the largest accepted sample costs a
/// bounded number of merged hours and a bounded look-back, whatever the store's history.
@Suite struct BoundedSampleTests {
    @Test func theStoreRefusesTimesOutsideTheBoundsWhateverTheWriter() throws {
        let temp = try TemporaryStore()
        for (from, to) in [("0000-01-01T00:00:00Z", "9999-12-31T23:59:59Z"), ("2026-11-01T00:00:00Z", "2026-11-08T00:00:01Z"),
                           ("2100-01-01T00:00:00Z", "2100-01-01T00:01:00Z")] {
            #expect(throws: HealthStoreError.self, "\(from) – \(to)") {
                try temp.store.write(as: .owner) { try $0.save(steps(10, from, to), attributedTo: phoneA) }
            }
        }
        #expect(try temp.store.samples(HealthQuery(type: .stepCount), as: .owner).isEmpty)
    }

    /// `days` of 10-minute step samples from 2026-01-01, then the largest sample a step count
    /// may be (the maximum value over the maximum duration), ending where the queried day starts.
    func store(days: Int, largest: Bool) throws -> TemporaryStore {
        let temp = try TemporaryStore()
        let origin = at("2026-01-01T00:00:00Z")
        try temp.store.write(as: .owner) { transaction in
            for slot in 0..<(days * 144) {
                let start = origin.addingTimeInterval(Double(slot) * 600)
                try transaction.save(QuantitySample(type: .stepCount, quantity: Quantity(100, .count), start: start,
                                                    end: start.addingTimeInterval(600)), attributedTo: band)
            }
        }
        if largest {
            let range = QuantityType.stepCount.plausibleRange
            let end = origin.addingTimeInterval(Double(days - 1) * 86_400)
            try temp.store.write(as: .owner) { transaction in
                try transaction.save(QuantitySample(type: .stepCount, quantity: Quantity(range.values.upperBound, .count),
                                                    start: end.addingTimeInterval(-range.maximumDuration), end: end),
                                     attributedTo: phoneA)
            }
        }
        return temp
    }

    func mergedHourRows(_ store: HealthStore) throws -> Int64 {
        try store.withConnection { try $0.scalar("SELECT count(*) FROM merged_hour").get() ?? 0 }
    }

    /// VM steps of a one-day sum over the store's last day, starting half past midnight so that
    /// its edges go back to the samples (the path the maximum duration widens).
    func oneDayQueryCost(_ store: HealthStore, days: Int) throws -> (steps: Int, sum: Double?) {
        let from = at("2026-01-01T00:30:00Z").addingTimeInterval(Double(days - 1) * 86_400)
        _ = store.withConnection { $0.takeVirtualMachineSteps() }
        let stats = try store.statistics(type: .stepCount, range: from..<from.addingTimeInterval(86_400), options: .sum,
                                         bucket: nil, timeZone: zone("UTC"), bySource: false, as: .owner)
        return (store.withConnection { $0.takeVirtualMachineSteps() }, stats.first?.values.sum)
    }

    @Test func theLargestAcceptedSampleCostsBoundedRollupsAndABoundedLookBack() throws {
        let baseline = try store(days: 20, largest: false)
        let short = try store(days: 20, largest: true)
        let long = try store(days: 40, largest: true)

        // Rollups: the week-long sample adds no hour row beyond the 7 × 24 it covers (here all
        // already held by the band's samples), and the type's maximum duration is the bound.
        #expect(try mergedHourRows(short.store) == mergedHourRows(baseline.store))
        let maxDuration = try short.store.withConnection { connection in
            try connection.scalar("SELECT max(max_duration_us) FROM sample_type").get() ?? 0
        }
        #expect(maxDuration == 7 * 86_400 * 1_000_000)

        // Queries: a one-day sum costs the same whether the store holds 20 or 40 days before
        // it; the look-back is the week, not the history. (An unbounded sample made this one
        // scan every row of the type: a 30 s query in the review.)
        let (baseCost, baseSum) = try oneDayQueryCost(baseline.store, days: 20)
        let (shortCost, shortSum) = try oneDayQueryCost(short.store, days: 20)
        let (longCost, longSum) = try oneDayQueryCost(long.store, days: 40)
        #expect(baseSum == 14_100 && shortSum == baseSum && longSum == baseSum, "the week-long sample ends before the range: \(String(describing: baseSum)) \(String(describing: shortSum)) \(String(describing: longSum))")
        #expect(longCost <= shortCost + shortCost / 20, "cost grew with the history: \(shortCost) → \(longCost) VM steps")
        // And what the week costs over a baseline without it: about a week of rows, not more.
        let rowsInAWeek = 7 * 144
        #expect(shortCost - baseCost < rowsInAWeek * 200, "\(baseCost) → \(shortCost) VM steps")
        print("one-day sum, VM steps: baseline \(baseCost), with the largest sample \(shortCost), 40 days of history \(longCost)")
    }
}
