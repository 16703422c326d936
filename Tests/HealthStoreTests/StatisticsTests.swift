import HealthTestSupport
import Foundation
import HealthModel
import HealthStore
import Testing

@Suite struct StatisticsTests {
    /// The seed author's day: a watch, a band and two phones all wrote the same walks.
    /// Summing raw samples gives 9780; the merged total is the watch's 6000.
    func seedAuthorsDay() throws -> TemporaryStore {
        let temp = try TemporaryStore()
        try temp.store.write(as: .owner) { tx in
            for (value, from, to) in [(2500.0, "08:00", "09:00"), (1500, "12:00", "13:00"), (2000, "17:00", "18:00")] {
                try tx.save(steps(value, "2026-11-30T\(from):00+01:00", "2026-11-30T\(to):00+01:00"), attributedTo: watch)
            }
            try tx.save(steps(2300, "2026-11-30T08:00:00+01:00", "2026-11-30T09:00:00+01:00"), attributedTo: band)
            try tx.save(steps(900, "2026-11-30T12:00:00+01:00", "2026-11-30T13:00:00+01:00"), attributedTo: phoneA)
            try tx.save(steps(580, "2026-11-30T17:10:00+01:00", "2026-11-30T17:40:00+01:00"), attributedTo: phoneB)
        }
        try temp.store.setSourcePriority(for: .quantity(.stepCount), sources: [watch.id, band.id, phoneA.id, phoneB.id])
        return temp
    }

    let day = at("2026-11-30T00:00:00+01:00")..<at("2026-12-01T00:00:00+01:00")

    @Test func theSeedAuthorsStepsMergeToTheWatchsTotalNotTheSum() throws {
        let temp = try seedAuthorsDay()
        let raw = try temp.store.samples(HealthQuery(type: .stepCount, range: day), as: .owner)
            .compactMap { $0.quantitySample?.quantity.value }.reduce(0, +)
        #expect(raw == 9780)
        let merged = try temp.store.statistics(type: .stepCount, range: day, options: .sum, timeZone: zone("Europe/Berlin"),
                                               as: .owner)
        #expect(merged.count == 1)
        #expect(merged[0].sum == 6000)
    }

    @Test func byTheSourceBreakdownListsEverySourceInPriorityOrder() throws {
        let temp = try seedAuthorsDay()
        let stats = try temp.store.statistics(type: .stepCount, range: day, options: .sum, timeZone: zone("Europe/Berlin"),
                                              bySource: true, as: .owner)
        #expect(stats[0].bySource.map(\.source) == [watch.id, band.id, phoneA.id, phoneB.id])
        #expect(stats[0].bySource.map(\.values.sum) == [6000, 2300, 900, 580])
    }

    @Test func aLowerPrioritySourceFillsTheGaps() throws {
        let temp = try seedAuthorsDay()
        try temp.store.write(as: .owner) {
            try $0.save(steps(300, "2026-11-30T19:00:00+01:00", "2026-11-30T19:30:00+01:00"), attributedTo: phoneB)
        }
        let merged = try temp.store.statistics(type: .stepCount, range: day, options: .sum, timeZone: zone("Europe/Berlin"),
                                               as: .owner)
        #expect(merged[0].sum == 6300)
    }

    @Test func reorderingSourcesChangesWhichOneCounts() throws {
        let temp = try seedAuthorsDay()
        try temp.store.setSourcePriority(for: .quantity(.stepCount), sources: [band.id, phoneA.id, phoneB.id, watch.id])
        let merged = try temp.store.statistics(type: .stepCount, range: day, options: .sum, timeZone: zone("Europe/Berlin"),
                                               as: .owner)
        // 08–09 band 2300; 12–13 phone A 900; 17–18: phone B 580 for 17:10–17:40, the watch fills the other 30 of its 60 minutes (1000).
        #expect(abs(merged[0].sum! - (2300 + 900 + 580 + 2000 * 30 / 60)) < 1e-6)
    }

    @Test func theDefaultOrderIsManualThenDevicesThenAppsNewestFirst() throws {
        let temp = try TemporaryStore()
        let bandDevice = DeviceInfo(name: "Band", hardwareIdentifier: "AA:BB")
        try temp.store.write(as: .owner) { tx in
            try tx.save(steps(1, "2026-11-30T08:00:00Z", "2026-11-30T08:01:00Z"), attributedTo: phoneA)
            try tx.save(steps(1, "2026-11-30T08:00:00Z", "2026-11-30T08:01:00Z", device: bandDevice), attributedTo: band)
            try tx.save(steps(1, "2026-11-30T08:00:00Z", "2026-11-30T08:01:00Z"), attributedTo: phoneB)
            try tx.save(QuantitySample(type: .stepCount, quantity: Quantity(1, .count), start: at("2026-11-30T08:00:00Z"),
                                       end: at("2026-11-30T08:01:00Z"), userEntered: true))
        }
        #expect(try temp.store.sourcePriority(for: .quantity(.stepCount)) == [AppIdentity.owner.id, band.id, phoneB.id, phoneA.id])
    }

    @Test func hourlyBucketsSplitAStraddlingSample() throws {
        let temp = try TemporaryStore()
        try temp.store.write(as: .owner) { try $0.save(steps(100, "2026-11-30T13:57:00Z", "2026-11-30T14:02:00Z")) }
        let stats = try temp.store.statistics(type: .stepCount, range: at("2026-11-30T13:00:00Z")..<at("2026-11-30T16:00:00Z"),
                                              options: .sum, bucket: .hour, timeZone: zone("UTC"), as: .owner)
        #expect(stats.map(\.start) == [at("2026-11-30T13:00:00Z"), at("2026-11-30T14:00:00Z"), at("2026-11-30T15:00:00Z")])
        #expect(abs(stats[0].sum! - 60) < 1e-9)
        #expect(abs(stats[1].sum! - 40) < 1e-9)
        #expect(stats[2].sum == nil)  // empty bucket present, no value
    }

    @Test func dailyTotalsOverADaylightSavingChangeUseA23HourDay() throws {
        let temp = try TemporaryStore()
        // One step sample per local hour, 2026-03-28 .. 2026-03-30 in Berlin (29th has 23 hours).
        try temp.store.write(as: .owner) { tx in
            var time = at("2026-03-28T00:00:00+01:00")
            while time < at("2026-03-31T00:00:00+02:00") {
                try tx.save(QuantitySample(type: .stepCount, quantity: Quantity(10, .count), start: time,
                                           end: time.addingTimeInterval(3600)))
                time = time.addingTimeInterval(3600)
            }
        }
        let stats = try temp.store.statistics(type: .stepCount, range: at("2026-03-28T00:00:00+01:00")..<at("2026-03-31T00:00:00+02:00"),
                                              options: .sum, bucket: .day, timeZone: zone("Europe/Berlin"), as: .owner)
        #expect(stats.map(\.sum) == [240, 230, 240])
        #expect(stats.map { $0.end.timeIntervalSince($0.start) / 3600 } == [24, 23, 24])
    }

    @Test func discreteTypesGiveAverageMinimumMaximumAndMostRecent() throws {
        let temp = try TemporaryStore()
        try temp.store.write(as: .owner) { tx in
            for (bpm, minute, app) in [(60.0, 0, watch), (90, 1, band), (75, 2, watch)] {
                let time = at("2026-11-30T08:00:00Z").addingTimeInterval(Double(minute) * 60)
                try tx.save(QuantitySample(type: .heartRate, quantity: Quantity(bpm, .countPerMinute), start: time, end: time),
                            attributedTo: app)
            }
        }
        let stats = try temp.store.statistics(type: .heartRate, range: at("2026-11-30T08:00:00Z")..<at("2026-11-30T09:00:00Z"),
                                              options: [.average, .minimum, .maximum, .mostRecent], timeZone: zone("UTC"),
                                              bySource: true, as: .owner)
        #expect(stats[0].average == 75 && stats[0].minimum == 60 && stats[0].maximum == 90 && stats[0].mostRecent == 75)
        #expect(stats[0].bySource.first { $0.source == band.id }?.values.average == 90)
    }

    @Test func askingForASumOfADiscreteTypeIsAnError() throws {
        let temp = try TemporaryStore()
        #expect(throws: HealthStoreError.self) {
            try temp.store.statistics(type: .heartRate, range: day, options: .sum, as: .owner)
        }
        #expect(throws: HealthStoreError.self) {
            try temp.store.statistics(type: .stepCount, range: day, options: .average, as: .owner)
        }
    }
}
