import BandProtocol
import BandReader
import Foundation
import HealthModel
import HealthStore
import Testing

/// The spool replayed through the live write path: idempotent (a crash between the store's
/// commit and the file's removal replays the same minutes again, and nothing counts twice), and
/// a stale gateway's spool never overwrites what the band's history already stored (the version
/// rule: history is written above every live version).
@Suite struct SpoolReplayTests {
    func setUp() throws -> (SampleWriterTests.TemporaryStore, SampleWriter, LiveSpool) {
        let temporary = try SampleWriterTests.TemporaryStore()
        let writer = try SampleWriter(store: temporary.store, deviceIdentifier: "BandKit/B1/SN1", device: DeviceInfo(name: "Band", hardwareIdentifier: "SN1"))
        return (temporary, writer, LiveSpool(path: temporary.directory + "/spool/b.spool"))
    }

    func liveMinute(_ offset: UInt32, steps: UInt32, part: Int64 = 1) -> LiveMinute {
        var minute = LiveMinute(start: SampleWriterTests.minute + offset * 60, utcOffsetSeconds: 3600)
        minute.activity = CounterDelta(steps: steps, distanceDecimetres: steps * 7, energyDecikilocalories: steps / 2)
        minute.heartRate.add(90)
        minute.part = part
        return minute
    }

    func replay(_ spool: LiveSpool, into writer: SampleWriter) throws -> Int {
        try spool.replay { (contents) throws(HealthStoreError) in
            let minutes = contents.entries.compactMap { if case .minute(let minute) = $0 { minute } else { nil } }
            do { try writer.writeSpooled(minutes, batteryPercent: nil, batteryTime: nil, stepGaps: []) } catch {
                throw error as? HealthStoreError ?? .misuse("\(error)")
            }
        }.minuteCount
    }

    func steps(_ store: HealthStore) throws -> [Double] {
        try store.samples(HealthQuery(type: .stepCount), as: .owner).compactMap(\.quantitySample)
            .sorted { $0.start < $1.start }.map(\.quantity.value)
    }

    @Test func aReplayRepeatedAfterACrashCountsNothingTwice() throws {
        let (temporary, writer, spool) = try setUp()
        let minutes = [liveMinute(0, steps: 10), liveMinute(1, steps: 20)]
        _ = try spool.append(minutes.map(SpoolEntry.minute))
        let copy = try #require(FileManager.default.contents(atPath: spool.path))
        #expect(try replay(spool, into: writer) == 2)
        // The process died after the commit, before the file was removed: the same file again.
        #expect(FileManager.default.createFile(atPath: spool.path, contents: copy))
        #expect(try replay(spool, into: writer) == 2)
        #expect(try steps(temporary.store) == [10, 20])
    }

    @Test func aStaleGatewaysSpoolDoesNotOverwriteTheBandsHistory() throws {
        let (temporary, writer, spool) = try setUp()
        // Spooled during an outage: provisional live minutes (different from what the band recorded).
        _ = try spool.append([liveMinute(0, steps: 11), liveMinute(1, steps: 22)].map(SpoolEntry.minute))
        // Meanwhile the band's history for those minutes was committed (by this or another gateway).
        let records = (0..<2).map { offset in
            MinuteRecord(minuteStart: SampleWriterTests.minute + UInt32(offset) * 60, utcOffset: LocalTimeOffset(quarterHours: 4), flags: [.worn],
                         steps: UInt16(100 + offset), distanceDecimetres: 700, energyDecikilocalories: 50,
                         heartRate: offset == 0 ? HeartRateSummary(average: 80, minimum: 70, maximum: 95) : nil)
        }
        try writer.commitHistory(records, cursor: HistoryCursor(historyID: 7, nextSequence: 2))
        #expect(try replay(spool, into: writer) == 2, "both minutes were in the spool")
        #expect(try steps(temporary.store) == [100, 101], "the band's record stands")
        let origins = try temporary.store.samples(HealthQuery(type: .stepCount), as: .owner).compactMap(\.quantitySample)
            .map { $0.metadata[SampleWriter.MetadataKey.origin] }
        #expect(origins == ["history", "history"])
        // The live heart rate of a minute the band recorded without one stays deleted.
        let heart = try temporary.store.samples(HealthQuery(type: .heartRate), as: .owner).compactMap(\.quantitySample)
        #expect(heart.allSatisfy { $0.metadata[SampleWriter.MetadataKey.origin] == "history" })
        #expect(!FileManager.default.fileExists(atPath: spool.path), "replayed, then removed")
    }
}
