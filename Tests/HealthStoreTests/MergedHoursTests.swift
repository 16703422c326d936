import HealthTestSupport
import Foundation
import HealthModel
@testable import HealthStore
import Testing

/// The hourly merged sums must give exactly what sweeping the samples gives. The per-source
/// request (`bySource: true`) always sweeps the samples, so it is the reference here.
@Suite struct MergedHoursTests {
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state ^ (state >> 29)
        }
    }

    /// Overlapping samples of random length (0 s to 3 h) from four sources over three days.
    func randomStore(seed: UInt64, count: Int = 400) throws -> TemporaryStore {
        let temp = try TemporaryStore()
        var random = Generator(state: seed)
        let origin = at("2026-03-28T00:00:00Z")
        try temp.store.write(as: .owner) { tx in
            for index in 0..<count {
                let start = origin.addingTimeInterval(Double(Int.random(in: 0..<(3 * 86_400), using: &random)))
                let length = [0.0, 60, 300, 3600, 10_800][Int.random(in: 0..<5, using: &random)]
                let source = [band, watch, phoneA, phoneB][index % 4]
                try tx.save(QuantitySample(type: .stepCount, quantity: Quantity(Double(Int.random(in: 0..<500, using: &random)), .count),
                                           start: start, end: start.addingTimeInterval(length),
                                           device: source == band ? DeviceInfo(name: "Band") : nil),
                            attributedTo: source)
            }
        }
        return temp
    }

    func expectHoursMatchSamples(_ store: HealthStore, bucket: BucketInterval, zone: String,
                                 range: Range<Date> = at("2026-03-27T22:17:00Z")..<at("2026-03-31T03:00:00Z")) throws {
        let fast = try store.statistics(type: .stepCount, range: range, options: .sum, bucket: bucket, timeZone: TimeZone(identifier: zone)!,
                                        as: .owner)
        let swept = try store.statistics(type: .stepCount, range: range, options: .sum, bucket: bucket, timeZone: TimeZone(identifier: zone)!,
                                         bySource: true, as: .owner)
        #expect(fast.count == swept.count)
        for (a, b) in zip(fast, swept) {
            #expect((a.sum == nil) == (b.sum == nil), "bucket \(a.start)")
            if let x = a.sum, let y = b.sum { #expect(abs(x - y) < 1e-6 * max(1, abs(y)), "bucket \(a.start): \(x) vs \(y)") }
        }
    }

    @Test(arguments: [(BucketInterval.day, "Europe/Berlin"), (.hour, "Asia/Kolkata"), (.day, "Australia/Adelaide"),
                      (.minute, "UTC"), (.week, "America/New_York")])
    func hourlyRowsAgreeWithTheSweep(bucket: BucketInterval, zone: String) throws {
        let temp = try randomStore(seed: 7)
        try expectHoursMatchSamples(temp.store, bucket: bucket, zone: zone)
    }

    /// One transaction over three weeks: merged hours are recomputed a week at a time (memory stays
    /// that of a week of samples), and samples crossing the week borders must still count once.
    @Test(arguments: [true, false])
    func aLongImportRecomputedAWeekAtATimeAgreesWithTheSweep(withDevices: Bool) throws {
        let temp = try TemporaryStore()
        var random = Generator(state: 11)
        let origin = at("2026-03-01T00:00:00Z")
        try temp.store.write(as: .owner) { tx in
            for index in 0..<1500 {
                let start = origin.addingTimeInterval(Double(Int.random(in: 0..<(21 * 86_400), using: &random)))
                let length = [0.0, 60, 3600, 20_000, 86_400][Int.random(in: 0..<5, using: &random)]
                let source = [band, watch, phoneA][index % 3]
                try tx.save(QuantitySample(type: .stepCount, quantity: Quantity(Double(Int.random(in: 0..<500, using: &random)), .count),
                                           start: start, end: start.addingTimeInterval(length),
                                           device: withDevices && source == band ? DeviceInfo(name: "Band") : nil),
                            attributedTo: source)
            }
        }
        for (bucket, zone) in [(BucketInterval.day, "Europe/Berlin"), (.hour, "UTC"), (.week, "America/New_York")] {
            try expectHoursMatchSamples(temp.store, bucket: bucket, zone: zone,
                                        range: at("2026-02-27T00:00:00Z")..<at("2026-03-24T00:00:00Z"))
        }
        #expect(HealthStore.longestRecomputedSpan == 168 * HealthStore.hourMicroseconds)
    }

    @Test func rowsFollowReplacementsDeletionsAndPriorityChanges() throws {
        let temp = try randomStore(seed: 11)
        let victims = try temp.store.samples(HealthQuery(type: .stepCount, limit: 30), as: .owner)
        try temp.store.write(as: .owner) { tx in
            for victim in victims.prefix(15) { try tx.delete(sampleID: victim.id) }
            try tx.save(steps(1000, "2026-03-31T04:30:00Z", "2026-03-31T09:30:00Z", syncID: "s", version: 1), attributedTo: watch)
        }
        // The replacement moves the sample: the hours it left must be recomputed too.
        try temp.store.write(as: .owner) { tx in
            try tx.save(steps(10, "2026-03-31T11:30:00Z", "2026-03-31T12:30:00Z", syncID: "s", version: 2), attributedTo: watch)
        }
        try expectHoursMatchSamples(temp.store, bucket: .hour, zone: "UTC",
                                    range: at("2026-03-28T00:00:00Z")..<at("2026-04-01T00:00:00Z"))
        try temp.store.setSourcePriority(for: .quantity(.stepCount), sources: [phoneB.id, phoneA.id])
        try expectHoursMatchSamples(temp.store, bucket: .day, zone: "Europe/Berlin")
        // A source's first sample with a device moves it up the default order.
        try temp.store.write(as: .owner) { tx in
            try tx.save(steps(1, "2026-01-01T00:00:00Z", "2026-01-01T00:01:00Z", device: DeviceInfo(name: "Phone")), attributedTo: phoneA)
        }
        try expectHoursMatchSamples(temp.store, bucket: .day, zone: "Europe/Berlin")
    }

    @Test func aStoreWithoutRowsRebuildsThemWhenOpened() throws {
        let temp = try randomStore(seed: 3, count: 100)
        let expected = try temp.store.statistics(type: .stepCount, range: at("2026-03-28T00:00:00Z")..<at("2026-03-31T00:00:00Z"),
                                                 options: .sum, bucket: .day, timeZone: zone("UTC"), as: .owner)
        try temp.store.withConnection { connection in
            try connection.execute("DELETE FROM merged_hour; UPDATE merged_hour_state SET complete = 0").get()
        }
        let reopened = try HealthStore(path: temp.path)
        let rebuilt = try reopened.statistics(type: .stepCount, range: at("2026-03-28T00:00:00Z")..<at("2026-03-31T00:00:00Z"),
                                              options: .sum, bucket: .day, timeZone: zone("UTC"), as: .owner)
        #expect(rebuilt == expected)
        #expect(rebuilt.contains { $0.sum != nil })
    }
}
