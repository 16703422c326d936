import BandATT
import BandReader
import BandReplay
import BandTestSupport
import BandTrace
import BandWire
import Foundation
import HealthModel
import HealthStore
import Testing

/// A store in a fresh temporary directory.
final class TemporaryStore {
    let path = ReplayFixtures.temporaryPath("health.sqlite")
    let store: HealthStore
    init() throws { store = try HealthStore(path: path) }

    func samples(_ type: QuantityType) throws -> [QuantitySample] {
        try store.samples(HealthQuery(type: type), as: .owner).compactMap(\.quantitySample).sorted { $0.start < $1.start }
    }
}

/// What the generator put in each minute, worked out from its own sample list and the record
/// times in the file (not from BandReplay, BandGATT or the reader): the expected store content.
private struct ExpectedMinute: Equatable {
    var average: Int
    var minimum: Int
    var maximum: Int
    var rrCount: Int
}

private func expectedHeartRateMinutes(trace path: String, seed: UInt64 = SyntheticHeartRateTrace.Configuration().seed) throws -> [UInt32: ExpectedMinute] {
    let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    var times: [Int64] = []
    try bytes.withUnsafeBytes { raw in
        var source = try BtsnoopMemoryReader(bytes: raw)
        let extractor = ATTExtractor()
        while let record = try source.next() {
            if case .att(let event)? = extractor.process(record, datalink: source.datalink).event,
               event.pdu.count >= 3, event.pdu[0] == 0x1B,
               UInt16(event.pdu[1]) | UInt16(event.pdu[2]) << 8 == SyntheticHeartRateTrace.heartRateMeasurementHandle {
                times.append(event.unixMicroseconds)
            }
        }
    }
    var minutes: [UInt32: (sum: Int, count: Int, minimum: Int, maximum: Int, rr: Int)] = [:]
    for (index, time) in times.enumerated() {
        let sample = SyntheticHeartRateTrace.heartRateSample(index, seed: seed)
        // Sensor contact "not detected": left out of the minute, with its RR (a strap off the
        // skin measures noise, not a pulse).
        if sample.contact == false { continue }
        let minute = UInt32(time / 1_000_000 / 60 * 60)
        var entry = minutes[minute] ?? (0, 0, .max, 0, 0)
        entry.sum += Int(sample.bpm)
        entry.count += 1
        entry.minimum = min(entry.minimum, Int(sample.bpm))
        entry.maximum = max(entry.maximum, Int(sample.bpm))
        entry.rr += sample.rrIntervals.count
        minutes[minute] = entry
    }
    return minutes.mapValues { ExpectedMinute(average: ($0.sum * 2 + $0.count) / ($0.count * 2), minimum: $0.minimum, maximum: $0.maximum, rrCount: $0.rr) }
}

@Suite(.serialized) struct TraceStoreReplayTests {
    @Test func aHeartRateStrapTraceBecomesTheMinuteSamplesItsNotificationsAddUpTo() throws {
        let (path, _) = try ReplayFixtures.syntheticHeartRateTrace(notifications: 400)
        let temporary = try TemporaryStore()
        let summary = try TraceStoreReplay(path: path, options: .init()).run(into: temporary.store)
        #expect(summary.notifications["2a37"] == 400)
        let expected = try expectedHeartRateMinutes(trace: path)
        #expect(summary.total.liveMinutes == expected.count)

        let heartRates = try temporary.samples(.heartRate)
        #expect(heartRates.count == expected.count)
        for sample in heartRates {
            let minute = UInt32(sample.start.timeIntervalSince1970)
            let want = try #require(expected[minute], "a heart-rate sample for minute \(minute) that the trace does not have")
            #expect(sample.quantity.value == Double(want.average))
            #expect(sample.metadata[SampleWriter.MetadataKey.heartRateMinimum] == String(want.minimum))
            #expect(sample.metadata[SampleWriter.MetadataKey.heartRateMaximum] == String(want.maximum))
            #expect(sample.end.timeIntervalSince(sample.start) == 60)
            #expect(sample.source?.id == SampleWriter.app.id)
            #expect(sample.syncIdentifier == "\(SyntheticHeartRateTrace.band.address)|\(QuantityType.heartRate.identifier)|\(minute)")
        }
        let variability = try temporary.samples(.heartRateVariabilitySDNN)
        #expect(variability.count == expected.values.filter { $0.rrCount >= 2 }.count)
    }

    @Test func replayingTheSameTraceTwiceChangesNothingTheSecondTime() throws {
        let (path, _) = try ReplayFixtures.syntheticHeartRateTrace(notifications: 200)
        let temporary = try TemporaryStore()
        let first = try TraceStoreReplay(path: path, options: .init()).run(into: temporary.store)
        #expect(first.total.samplesInserted > 0)
        let anchor = try temporary.store.currentAnchor()
        let before = try temporary.samples(.heartRate) + temporary.samples(.heartRateVariabilitySDNN)

        let second = try TraceStoreReplay(path: path, options: .init()).run(into: temporary.store)
        #expect(second.total.samplesInserted == 0)
        #expect(second.total.samplesReplaced == 0)
        #expect(second.total.samplesDeleted == 0)
        #expect(second.total.samplesUnchanged == first.total.samplesInserted)
        let feed = try temporary.store.changes(since: anchor, as: .owner)
        #expect(feed.samples.isEmpty && feed.deleted.isEmpty, "no change reached the change feed")
        #expect(try temporary.samples(.heartRate) + temporary.samples(.heartRateVariabilitySDNN) == before)
    }

    @Test func deviceAndSourceFlagsOverrideWhatTheTraceSays() throws {
        let (path, _) = try ReplayFixtures.syntheticHeartRateTrace(notifications: 70)
        let temporary = try TemporaryStore()
        var options = TraceStoreReplay.Options()
        options.device = "strap-7"
        options.sourceName = "Chest strap"
        _ = try TraceStoreReplay(path: path, options: options).run(into: temporary.store)
        let samples = try temporary.samples(.heartRate)
        #expect(!samples.isEmpty)
        #expect(samples.allSatisfy { $0.syncIdentifier?.hasPrefix("strap-7|") == true })
        #expect(samples.allSatisfy { $0.device?.name == "Chest strap" && $0.device?.hardwareIdentifier == "strap-7" })
    }

    @Test func theDeviceNameReadFromTheTraceIsStored() throws {
        let (path, _) = try ReplayFixtures.syntheticHeartRateTrace(notifications: 70)
        let temporary = try TemporaryStore()
        _ = try TraceStoreReplay(path: path, options: .init()).run(into: temporary.store)
        #expect(try temporary.samples(.heartRate).allSatisfy { $0.device?.name == "BandKit Band" })
    }
}
