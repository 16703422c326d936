import BandProtocol
import BandReader
import Foundation
import HealthModel
import HealthStore
import Testing

/// A minute the band recorded more than once (a clock or zone change inside it, a boot with the
/// clock inside it): the store keeps one sample per type holding all its records together, and
/// syncing the same records again counts none of them twice.
@Suite struct RepeatedMinuteTests {
    typealias Store = SampleWriterTests.TemporaryStore
    static let minute = SampleWriterTests.minute

    func writer(_ temporary: Store) throws -> SampleWriter {
        try SampleWriterTests().writer(temporary)
    }

    /// Record of minute `offset`; `partial` as the band flags the second record of a minute.
    func record(_ offset: UInt32, steps: UInt16, hr: (UInt8, UInt8, UInt8)? = nil, partial: Bool = false) -> MinuteRecord {
        MinuteRecord(minuteStart: Self.minute + offset * 60, utcOffset: LocalTimeOffset(quarterHours: 4),
                     flags: partial ? [.worn, .partial] : [.worn],
                     steps: steps, distanceDecimetres: steps * 7, energyDecikilocalories: steps / 2,
                     heartRate: hr.map { HeartRateSummary(average: $0.1, minimum: $0.0, maximum: $0.2) })
    }

    func values(_ store: HealthStore, _ type: QuantityType) throws -> [Double] {
        try store.samples(HealthQuery(type: type), as: .owner).compactMap(\.quantitySample).map(\.quantity.value)
    }

    @Test func twoRecordsOfOneMinuteInOneBatchAreAddedUp() throws {
        let temporary = try Store()
        let writer = try writer(temporary)
        // 47 steps before the change, 27 after it, then the next minute.
        let batch = [record(0, steps: 47, hr: (70, 80, 95)), record(0, steps: 27, hr: (90, 101, 110), partial: true), record(1, steps: 5)]
        try writer.commitHistory(batch, cursor: HistoryCursor(historyID: 1, nextSequence: 3))
        #expect(try values(temporary.store, .stepCount) == [74, 5])
        #expect(try values(temporary.store, .distanceWalkingRunning) == [51.8, 3.5])
        #expect(try values(temporary.store, .activeEnergyBurned) == [3.6, 0.2])
        let heartRate = try #require(try temporary.store.samples(HealthQuery(type: .heartRate), as: .owner).first?.quantitySample)
        #expect(heartRate.quantity.value == 90.5)
        #expect(heartRate.metadata["bandkit.hr.min"] == "70" && heartRate.metadata["bandkit.hr.max"] == "110")
        // The statistics see the whole minute once.
        let day = Date(timeIntervalSince1970: TimeInterval(Self.minute))..<Date(timeIntervalSince1970: TimeInterval(Self.minute + 3600))
        let sum = try temporary.store.statistics(type: .stepCount, range: day, options: .sum, timeZone: TimeZone(identifier: "UTC")!,
                                                 as: .owner).first?.values.sum
        #expect(sum == 79)
    }

    @Test func theSecondRecordInALaterBatchIsAddedToTheStoredMinute() throws {
        let temporary = try Store()
        let writer = try writer(temporary)
        try writer.commitHistory([record(0, steps: 47, hr: (70, 80, 95))], cursor: HistoryCursor(historyID: 1, nextSequence: 1))
        let outcome = try writer.commitHistory([record(0, steps: 27, hr: (90, 100, 110), partial: true)],
                                               cursor: HistoryCursor(historyID: 1, nextSequence: 2))
        #expect(outcome.replaced == 4)
        #expect(try values(temporary.store, .stepCount) == [74])
        #expect(try values(temporary.store, .heartRate) == [90])
    }

    @Test func syncingTheSameRecordsAgainCountsNoneTwice() throws {
        let temporary = try Store()
        let writer = try writer(temporary)
        let first = [record(0, steps: 47, hr: (70, 80, 95))]
        let second = [record(0, steps: 27, partial: true), record(1, steps: 5)]
        try writer.commitHistory(first, cursor: HistoryCursor(historyID: 1, nextSequence: 1))
        try writer.commitHistory(second, cursor: HistoryCursor(historyID: 1, nextSequence: 3))
        // A replay of the whole recording (the cursor stays where it is), and each batch again.
        for _ in 0..<2 {
            let again = try writer.commitHistory(first + second, cursor: HistoryCursor(historyID: 1, nextSequence: 3), firstSequence: 0)
            #expect(again.inserted == 0 && again.replaced == 0)
            try writer.commitHistory(second, cursor: HistoryCursor(historyID: 1, nextSequence: 3), firstSequence: 1)
            try writer.commitHistory(first, cursor: HistoryCursor(historyID: 1, nextSequence: 3), firstSequence: 0)
        }
        #expect(try values(temporary.store, .stepCount) == [74, 5])
        #expect(try values(temporary.store, .heartRate) == [80])
    }

    @Test func threeRecordsOfOneMinuteAcrossThreeBatches() throws {
        let temporary = try Store()
        let writer = try writer(temporary)
        for (index, steps) in [UInt16(10), 20, 30].enumerated() {
            try writer.commitHistory([record(0, steps: steps, partial: index > 0)],
                                     cursor: HistoryCursor(historyID: 1, nextSequence: UInt32(index + 1)))
        }
        #expect(try values(temporary.store, .stepCount) == [60])
        let all = try writer.commitHistory([record(0, steps: 10), record(0, steps: 20, partial: true), record(0, steps: 30, partial: true)],
                                           cursor: HistoryCursor(historyID: 1, nextSequence: 3), firstSequence: 0)
        #expect(all.inserted == 0 && all.replaced == 0)
        #expect(try values(temporary.store, .stepCount) == [60])
    }

    @Test func bothRecordsReplaceTheProvisionalLiveMinuteAndLiveNeverOverwritesThem() throws {
        let temporary = try Store()
        let writer = try writer(temporary)
        var live = LiveMinute(start: Self.minute, utcOffsetSeconds: 3600)
        live.activity = CounterDelta(steps: 60, distanceDecimetres: 400, energyDecikilocalories: 30)
        try writer.writeLive([live])
        try writer.commitHistory([record(0, steps: 47), record(0, steps: 27, partial: true)], cursor: HistoryCursor(historyID: 1, nextSequence: 2))
        live.part = 99
        try writer.writeLive([live])
        let steps = try #require(try temporary.store.samples(HealthQuery(type: .stepCount), as: .owner).first?.quantitySample)
        #expect(steps.quantity.value == 74 && steps.metadata["bandkit.origin"] == "history")
    }

    @Test func aMinuteWithOneRecordIsStoredAsBefore() throws {
        let temporary = try Store()
        let writer = try writer(temporary)
        try writer.commitHistory([record(0, steps: 47, hr: (70, 80, 95))], cursor: HistoryCursor(historyID: 1, nextSequence: 1))
        let samples = try temporary.store.samples(HealthQuery(type: .stepCount), as: .owner).compactMap(\.quantitySample)
        #expect(samples.map(\.syncVersion) == [SampleWriter.historySyncVersion])
        #expect(samples.first?.metadata == ["bandkit.origin": "history"])
    }
}
