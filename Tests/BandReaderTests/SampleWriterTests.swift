import BandProtocol
import BandReader
import Foundation
import HealthModel
import HealthStore
import Testing

/// The store side of deduplication: sync identifiers per device, type and minute; history
/// (version 2) replaces live (version 1); the cursor commits with the records.
@Suite struct SampleWriterTests {
    static let minute: UInt32 = 1_796_032_800

    final class TemporaryStore {
        let directory = NSTemporaryDirectory() + "bandkit-writer-\(UUID().uuidString)"
        let store: HealthStore
        init() throws {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            store = try HealthStore(path: directory + "/health.sqlite")
        }
        deinit { try? FileManager.default.removeItem(atPath: directory) }
    }

    func writer(_ temporary: TemporaryStore, device: String = "BandKit/B1/SN1") throws -> SampleWriter {
        try SampleWriter(store: temporary.store, deviceIdentifier: device, device: DeviceInfo(name: "Band", hardwareIdentifier: "SN1"))
    }

    func record(_ offset: UInt32, steps: UInt16, hr: HeartRateSummary? = HeartRateSummary(average: 80, minimum: 70, maximum: 95)) -> MinuteRecord {
        MinuteRecord(minuteStart: Self.minute + offset * 60, utcOffset: LocalTimeOffset(quarterHours: 4), flags: [.worn],
                     steps: steps, distanceDecimetres: steps * 7, energyDecikilocalories: steps / 2, heartRate: hr)
    }

    func samples(_ store: HealthStore, _ type: QuantityType) throws -> [QuantitySample] {
        try store.samples(HealthQuery(type: type), as: .owner).compactMap(\.quantitySample)
    }

    @Test func historyBatchAndCursorAreStoredTogether() throws {
        let temporary = try TemporaryStore()
        let writer = try writer(temporary)
        #expect(try writer.cursor() == nil)
        let cursor = HistoryCursor(historyID: 0xDEAD_BEEF, nextSequence: 3)
        let outcome = try writer.commitHistory([record(0, steps: 10), record(1, steps: 0, hr: nil), record(2, steps: 30)], cursor: cursor)
        #expect(outcome.inserted == 3 * 3 + 2)
        #expect(try writer.cursor() == HistoryCursor(historyID: 0xDEAD_BEEF, nextSequence: 3, lastMinute: Self.minute + 120))
        let steps = try samples(temporary.store, .stepCount)
        #expect(steps.map(\.quantity.value) == [10, 0, 30])
        #expect(steps.allSatisfy { $0.source?.id == "bandkit.band" && $0.device?.hardwareIdentifier == "SN1" })
        let heartRates = try samples(temporary.store, .heartRate)
        #expect(heartRates.count == 2)
        #expect(heartRates.first?.metadata["bandkit.hr.min"] == "70")
        #expect(heartRates.first?.metadata["bandkit.hr.max"] == "95")
        #expect(heartRates.first?.timeZone?.secondsFromGMT() == 3600)
    }

    @Test func resyncingTheSameHistoryChangesNothing() throws {
        let temporary = try TemporaryStore()
        let writer = try writer(temporary)
        let batch = [record(0, steps: 10), record(1, steps: 20)]
        _ = try writer.commitHistory(batch, cursor: HistoryCursor(historyID: 1, nextSequence: 2))
        let again = try writer.commitHistory(batch, cursor: HistoryCursor(historyID: 1, nextSequence: 2))
        #expect(again.inserted == 0 && again.replaced == 0)
        #expect(try samples(temporary.store, .stepCount).count == 2)
    }

    @Test func historyReplacesTheProvisionalLiveMinute() throws {
        let temporary = try TemporaryStore()
        let writer = try writer(temporary)
        var live = LiveMinute(start: Self.minute, utcOffsetSeconds: 3600)
        live.activity = CounterDelta(steps: 7, distanceDecimetres: 50, energyDecikilocalories: 3)
        live.heartRate.add(75)
        try writer.writeLive([live])
        #expect(try samples(temporary.store, .stepCount).map(\.quantity.value) == [7])
        let outcome = try writer.commitHistory([record(0, steps: 12)], cursor: HistoryCursor(historyID: 1, nextSequence: 1))
        #expect(outcome.replaced == 4)
        #expect(try samples(temporary.store, .stepCount).map(\.quantity.value) == [12])
        #expect(try samples(temporary.store, .heartRate).map(\.quantity.value) == [80])
    }

    @Test func liveMinuteNeverOverwritesHistory() throws {
        let temporary = try TemporaryStore()
        let writer = try writer(temporary)
        _ = try writer.commitHistory([record(0, steps: 12)], cursor: HistoryCursor(historyID: 1, nextSequence: 1))
        var live = LiveMinute(start: Self.minute, utcOffsetSeconds: 3600)
        live.activity = CounterDelta(steps: 99)
        let outcome = try writer.writeLive([live])
        #expect(outcome.unchanged == 3)
        #expect(try samples(temporary.store, .stepCount).map(\.quantity.value) == [12])
    }

    @Test func liveHeartRateInAMinuteHistorySaysWasUnmeasuredIsDeleted() throws {
        let temporary = try TemporaryStore()
        let writer = try writer(temporary)
        var live = LiveMinute(start: Self.minute + 60, utcOffsetSeconds: 3600)
        live.heartRate.add(75)
        try writer.writeLive([live])
        let outcome = try writer.commitHistory([record(0, steps: 5), record(1, steps: 0, hr: nil)],
                                               cursor: HistoryCursor(historyID: 1, nextSequence: 2))
        #expect(outcome.deleted == 1)
        #expect(try samples(temporary.store, .heartRate).map(\.start) == [Date(timeIntervalSince1970: TimeInterval(Self.minute))])
    }

    @Test func liveMinuteTheBandNeverRecordedIsDeletedOnceHistoryPassesIt() throws {
        // The band rebooted during minute 1 and lost it; the reader had streamed it live.
        let temporary = try TemporaryStore()
        let writer = try writer(temporary)
        _ = try writer.commitHistory([record(0, steps: 5)], cursor: HistoryCursor(historyID: 1, nextSequence: 1))
        var live = LiveMinute(start: Self.minute + 60, utcOffsetSeconds: 3600)
        live.activity = CounterDelta(steps: 40, distanceDecimetres: 300, energyDecikilocalories: 20)
        live.heartRate.add(100)
        live.rrIntervals = [600, 610]
        try writer.writeLive([live])
        let previous = try writer.cursor()
        let outcome = try writer.commitHistory([record(2, steps: 7)], cursor: HistoryCursor(historyID: 1, nextSequence: 2), previous: previous)
        #expect(outcome.deleted == 4)
        #expect(try samples(temporary.store, .stepCount).map(\.quantity.value) == [5, 7])
        #expect(try samples(temporary.store, .heartRateVariabilitySDNN).count == 1, "HRV is live-only and stays")
    }

    @Test func aBatchWhoseClockWentBackIsStoredNotATrap() throws {
        // A band restarted with its clock 26 minutes earlier than its last stored minute (seen in
        // the dashboard check: one record left from boot 1, then boot 2's minutes): the batch is
        // not in time order. The reader trapped building the span first..<last.
        let temporary = try TemporaryStore()
        let writer = try writer(temporary)
        var live = LiveMinute(start: Self.minute + 60, utcOffsetSeconds: 3600)
        live.activity = CounterDelta(steps: 40)
        try writer.writeLive([live])
        let outcome = try writer.commitHistory([record(26, steps: 3), record(0, steps: 5), record(2, steps: 7)],
                                               cursor: HistoryCursor(historyID: 1, nextSequence: 3))
        #expect(outcome.minutes == 3)
        #expect(outcome.deleted == 3, "the live minute 1 (steps, distance, energy) lies inside the batch's span and the band has no record of it")
        #expect(try samples(temporary.store, .stepCount).map(\.quantity.value) == [5, 7, 3])
    }

    @Test func liveMinuteAfterTheBatchIsLeftForTheNextSync() throws {
        let temporary = try TemporaryStore()
        let writer = try writer(temporary)
        var live = LiveMinute(start: Self.minute + 180, utcOffsetSeconds: 3600)
        live.activity = CounterDelta(steps: 9)
        try writer.writeLive([live])
        let outcome = try writer.commitHistory([record(0, steps: 5), record(1, steps: 6)], cursor: HistoryCursor(historyID: 1, nextSequence: 2))
        #expect(outcome.deleted == 0)
        #expect(try samples(temporary.store, .stepCount).map(\.quantity.value) == [5, 6, 9])
    }

    @Test func twoBandsDoNotShareSyncIdentifiers() throws {
        let temporary = try TemporaryStore()
        _ = try writer(temporary, device: "A").commitHistory([record(0, steps: 1)], cursor: HistoryCursor(historyID: 1, nextSequence: 1))
        _ = try writer(temporary, device: "B").commitHistory([record(0, steps: 2)], cursor: HistoryCursor(historyID: 2, nextSequence: 1))
        #expect(try samples(temporary.store, .stepCount).map(\.quantity.value).sorted() == [1, 2])
        #expect(try writer(temporary, device: "A").cursor()?.historyID == 1)
        #expect(try writer(temporary, device: "B").cursor()?.historyID == 2)
    }

    @Test func rrIntervalsBecomeAnHRVSampleWithTheIntervalsInMetadata() throws {
        let temporary = try TemporaryStore()
        let writer = try writer(temporary)
        var live = LiveMinute(start: Self.minute, utcOffsetSeconds: 0)
        live.heartRate.add(60)
        live.rrIntervals = [1024, 1024 + 64, 1024 - 64]   // 1000, 1062.5, 937.5 ms
        try writer.writeLive([live])
        let hrv = try #require(try samples(temporary.store, .heartRateVariabilitySDNN).first)
        #expect(abs(hrv.quantity.value - 62.5) < 1e-9)
        #expect(hrv.metadata["bandkit.rr.ms"] == "1000.0,1062.5,937.5")
    }

    @Test func cursorTextRoundTripsAndRejectsGarbage() {
        let cursor = HistoryCursor(historyID: 0x0000_00AB, nextSequence: 4_000_000_000)
        #expect(cursor.stored == "v1 000000ab 4000000000")
        #expect(HistoryCursor(stored: cursor.stored) == cursor)
        let withMinute = HistoryCursor(historyID: 1, nextSequence: 2, lastMinute: 1_796_032_800)
        #expect(withMinute.stored == "v1 00000001 2 1796032800")
        #expect(HistoryCursor(stored: withMinute.stored) == withMinute)
        for bad in ["", "v2 000000ab 1", "v1 ab 1", "v1 000000ab -1", "v1 000000ab 1 x", "v1 000000ab 1 2 3", "v1 0000zzzz 1"] {
            #expect(HistoryCursor(stored: bad) == nil, "\(bad)")
        }
    }
}
