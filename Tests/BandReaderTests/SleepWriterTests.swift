import BandProtocol
import BandReader
import Foundation
import HealthAnalysis
import HealthModel
import HealthStore
import Testing

/// The sleep hook of a history sync: closed nights are scored and stored once, recomputing
/// replaces, and the night appears only when the band's history has reached its end.
@Suite struct SleepWriterTests {
    /// 2026-11-30T12:00:00Z: the night of 2026-11-30 in UTC starts here.
    static let noon: UInt32 = 1_796_040_000
    static let utc = TimeZone(identifier: "UTC")!

    final class TemporaryStore {
        let directory = NSTemporaryDirectory() + "bandkit-sleep-\(UUID().uuidString)"
        let store: HealthStore
        init() throws {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            store = try HealthStore(path: directory + "/health.sqlite")
        }
        deinit { try? FileManager.default.removeItem(atPath: directory) }
    }

    static let device = DeviceInfo(name: "Band", hardwareIdentifier: "SN1")

    /// Minute `index` after noon: evening at a desk (a few steps now and then), asleep
    /// 23:00–07:00 at a low pulse, then a morning on the move.
    static func record(_ index: Int) -> MinuteRecord {
        let hour = (12 + index / 60) % 24
        let asleep = hour >= 23 || hour < 7
        let steps: UInt16 = asleep ? 0 : hour < 12 && hour >= 7 ? 60 : (index % 10 == 0 ? 30 : 0)
        let pulse: UInt8 = asleep ? 55 : hour >= 7 && hour < 12 ? 90 : 75
        return MinuteRecord(minuteStart: noon + UInt32(index) * 60, utcOffset: LocalTimeOffset(quarterHours: 0), flags: [.worn],
                            steps: steps, distanceDecimetres: steps * 7, energyDecikilocalories: steps / 2,
                            heartRate: HeartRateSummary(average: pulse, minimum: pulse - 3, maximum: pulse + 3))
    }

    func sleepSamples(_ store: HealthStore) throws -> [CategorySample] {
        try store.samples(HealthQuery(type: .sleepAnalysis), as: .owner).compactMap(\.categorySample)
    }

    @Test func aNightIsScoredWhenHistoryClosesItAndOnlyOnce() throws {
        let temporary = try TemporaryStore()
        let writer = try SampleWriter(store: temporary.store, deviceIdentifier: "BandKit/B1/SN1", device: Self.device)
        // History up to 06:00: the night is still open, nothing is scored.
        let early = (360..<1080).map(Self.record)
        try writer.commitHistory(early, cursor: HistoryCursor(historyID: 1, nextSequence: 720))
        #expect(try sleepSamples(temporary.store).isEmpty)
        // The next sync reaches 12:30 the next day: the night of 2026-11-30 is closed.
        let late = (1080..<1470).map(Self.record)
        try writer.commitHistory(late, cursor: HistoryCursor(historyID: 1, nextSequence: 1110),
                                 previous: HistoryCursor(historyID: 1, nextSequence: 720, lastMinute: early.last!.minuteStart))
        let night = try sleepSamples(temporary.store)
        let inBed = night.filter { $0.value == SleepValue.inBed.rawValue }
        #expect(inBed.count == 1)
        // Asleep 23:00–07:00; onset is scored up to 4 minutes late (Webster's rule (c) after the
        // evening's wake), the end up to 2 minutes early (the pulse's 5-minute median).
        let start = Date(timeIntervalSince1970: TimeInterval(Self.noon) + 11 * 3600)
        let end = Date(timeIntervalSince1970: TimeInterval(Self.noon) + 19 * 3600)
        let onset = inBed[0].start.timeIntervalSince(start), wake = inBed[0].end.timeIntervalSince(end)
        #expect(onset >= 0 && onset <= 240 && abs(wake) <= 120, "\(inBed)")
        #expect(night.allSatisfy { $0.source?.id == SampleWriter.app.id && $0.metadata[SleepWriter.MetadataKey.night] == "2026-11-30" })
        #expect(night.allSatisfy { $0.syncIdentifier?.hasPrefix("BandKit/B1/SN1|sleep-analysis|2026-11-30|") == true })

        // The same history again (a re-sync): nothing new in the change feed, no duplicate night.
        let anchor = try temporary.store.currentAnchor()
        try writer.commitHistory(late, cursor: HistoryCursor(historyID: 1, nextSequence: 1110),
                                 previous: HistoryCursor(historyID: 1, nextSequence: 720, lastMinute: early.last!.minuteStart))
        let changes = try temporary.store.changes(since: anchor, types: [.category(.sleepAnalysis)], as: .owner)
        #expect(changes.samples.isEmpty && changes.deleted.isEmpty)
        #expect(try sleepSamples(temporary.store).map(\.id) == night.map(\.id))
    }

    @Test func recomputingANightReplacesItInsteadOfAddingToIt() throws {
        let temporary = try TemporaryStore()
        let writer = try SampleWriter(store: temporary.store, deviceIdentifier: "BandKit/B1/SN1", device: Self.device)
        try writer.commitHistory((360..<1470).map(Self.record), cursor: HistoryCursor(historyID: 1, nextSequence: 1110))
        let before = try sleepSamples(temporary.store)
        #expect(before.count == 2)  // in bed + one asleep stretch
        // The band's pulse from 02:00 to 02:40 turns out higher (a corrected record): the wearer lay awake.
        let awake = (840..<880).map { index -> QuantitySample in
            let start = Date(timeIntervalSince1970: TimeInterval(Self.noon) + TimeInterval(index * 60))
            return QuantitySample(type: .heartRate, quantity: Quantity(72, .countPerMinute), start: start, end: start.addingTimeInterval(60),
                                  device: Self.device, syncIdentifier: "BandKit/B1/SN1|heart-rate|\(Int(Self.noon) + index * 60)",
                                  syncVersion: SampleWriter.historySyncVersion + 1)
        }
        try temporary.store.write(as: SampleWriter.app) { transaction in for sample in awake { try transaction.save(sample) } }
        let sleep = SleepWriter(store: temporary.store, deviceIdentifier: "BandKit/B1/SN1", device: Self.device)
        let window = try #require(SleepNight.window(named: "2026-11-30", in: Self.utc))
        let write = try sleep.score(night: "2026-11-30", window: window, zone: Self.utc)
        #expect(write.deleted == 2)
        let after = try sleepSamples(temporary.store)
        #expect(after.count == write.inserted)
        #expect(Set(after.map(\.id)).isDisjoint(with: before.map(\.id)))
        #expect(after.sorted { ($0.start, $0.value) < ($1.start, $1.value) }.map(\.value) == [0, 1, 2, 1])  // in bed, asleep, awake, asleep
        #expect(after.filter { $0.value == 0 }.count == 1)
        // Scoring the unchanged night once more writes nothing.
        #expect(try sleep.score(night: "2026-11-30", window: window, zone: Self.utc).unchanged)
    }

    @Test func anotherBandsMinutesAreNotThisBandsNight() throws {
        let temporary = try TemporaryStore()
        let other = try SampleWriter(store: temporary.store, deviceIdentifier: "BandKit/B2/SN2", device: DeviceInfo(name: "Other"))
        try other.commitHistory((360..<1470).map(Self.record), cursor: HistoryCursor(historyID: 1, nextSequence: 1110))
        let sleep = SleepWriter(store: temporary.store, deviceIdentifier: "BandKit/B1/SN1", device: Self.device)
        let window = try #require(SleepNight.window(named: "2026-11-30", in: Self.utc))
        #expect(try sleep.score(night: "2026-11-30", window: window, zone: Self.utc).inserted == 0)
        #expect(try sleepSamples(temporary.store).allSatisfy { $0.syncIdentifier?.hasPrefix("BandKit/B2/SN2|") == true })
    }
}
