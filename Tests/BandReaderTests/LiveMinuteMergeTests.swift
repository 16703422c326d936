import BandProtocol
@testable import BandReader
import Foundation
import HealthModel
import HealthStore
import Testing

/// Every reading received ends up in its minute, whichever stream (connection,
/// reader run) received it; nothing counts twice; the band's history still wins.
@Suite struct LiveMinuteMergeTests {
    static let minute: UInt32 = 1_796_032_800

    func writer(_ store: HealthStore) throws -> SampleWriter {
        try SampleWriter(store: store, deviceIdentifier: "Strapworks/S-1", device: DeviceInfo(name: "Strap", hardwareIdentifier: "S-1"))
    }

    func samples(_ store: HealthStore, _ type: QuantityType) throws -> [QuantitySample] {
        try store.samples(HealthQuery(type: type), as: .owner).compactMap(\.quantitySample)
    }

    /// One stream's readings for the minute: heart rates, steps, RR intervals, first filed at `part` ms.
    func part(_ part: Int64, heartRates: [Int], steps: UInt32 = 0, rr: [UInt16] = [], energy: Int = 0) -> LiveMinute {
        var minute = LiveMinute(start: Self.minute, utcOffsetSeconds: 0)
        minute.part = part
        for bpm in heartRates { minute.heartRate.add(bpm) }
        minute.activity = CounterDelta(steps: steps, distanceDecimetres: steps * 7, energyDecikilocalories: steps)
        minute.rrIntervals = rr
        minute.energyKilojoules = energy
        return minute
    }

    @Test func aSecondStreamInTheSameMinuteAddsItsReadings() throws {
        let directory = TemporaryStoreDirectory()
        let store = try HealthStore(path: directory.path + "/health.sqlite")
        let writer = try writer(store)
        // First connection: 2 readings, 10 steps; the link drops; the second connection: 3 more.
        try writer.writeLive([part(1_796_032_810_000, heartRates: [60, 62], steps: 10, rr: [800, 810])])
        let second = try writer.writeLive([part(1_796_032_840_500, heartRates: [70, 70, 74], steps: 5, rr: [820])])
        #expect(second.replaced == 5)
        let heartRate = try #require(try samples(store, .heartRate).first)
        #expect(heartRate.metadata["bandkit.hr.count"] == "5")
        #expect(heartRate.quantity.value == 67)   // (60+62+70+70+74)/5 = 67.2
        #expect(heartRate.metadata["bandkit.hr.min"] == "60" && heartRate.metadata["bandkit.hr.max"] == "74")
        #expect(heartRate.syncVersion == 2)
        #expect(try samples(store, .stepCount).map(\.quantity.value) == [15])
        #expect(try samples(store, .distanceWalkingRunning).map(\.quantity.value) == [10.5])
        let hrv = try #require(try samples(store, .heartRateVariabilitySDNN).first)
        #expect(hrv.metadata["bandkit.rr.ms"] == "781.2,791.0,800.8")
        #expect(try samples(store, .heartRate).count == 1, "still one sample per minute")
    }

    @Test func aRestartedReaderMergesWithWhatTheStoreHolds() throws {
        let directory = TemporaryStoreDirectory()
        let path = directory.path + "/health.sqlite"
        do {
            let store = try HealthStore(path: path)
            try writer(store).writeLive([part(1_796_032_805_000, heartRates: [80, 82, 84])])
        }
        // A new process: new store connection, new writer, nothing in memory.
        let store = try HealthStore(path: path)
        try writer(store).writeLive([part(1_796_032_850_000, heartRates: [90])])
        let heartRate = try #require(try samples(store, .heartRate).first)
        #expect(heartRate.metadata["bandkit.hr.count"] == "4")
        #expect(heartRate.quantity.value == 84)   // 336 / 4
    }

    @Test func writingTheSameStreamAgainCountsNothingTwice() throws {
        let directory = TemporaryStoreDirectory()
        let store = try HealthStore(path: directory.path + "/health.sqlite")
        let writer = try writer(store)
        let first = part(1_796_032_801_000, heartRates: [60, 64], steps: 10, rr: [800, 810])
        let second = part(1_796_032_830_000, heartRates: [70], steps: 4)
        try writer.writeLive([first])
        try writer.writeLive([second])
        // A replay of both recordings, in either order, and a retried write.
        for minute in [first, second, second, first] {
            let again = try writer.writeLive([minute])
            #expect(again.inserted == 0 && again.replaced == 0)
        }
        #expect(try samples(store, .heartRate).first?.metadata["bandkit.hr.count"] == "3")
        #expect(try samples(store, .stepCount).map(\.quantity.value) == [14])
    }

    @Test func theBandsHistoryStillReplacesAMergedMinuteAndStays() throws {
        let directory = TemporaryStoreDirectory()
        let store = try HealthStore(path: directory.path + "/health.sqlite")
        let writer = try writer(store)
        try writer.writeLive([part(1_796_032_801_000, heartRates: [60], steps: 10)])
        try writer.writeLive([part(1_796_032_830_000, heartRates: [70], steps: 4)])
        let record = MinuteRecord(minuteStart: Self.minute, utcOffset: LocalTimeOffset(quarterHours: 0), flags: [.worn], steps: 20,
                                  distanceDecimetres: 140, energyDecikilocalories: 10,
                                  heartRate: HeartRateSummary(average: 66, minimum: 58, maximum: 75))
        let history = try writer.commitHistory([record], cursor: HistoryCursor(historyID: 1, nextSequence: 1))
        #expect(history.replaced == 4)
        // A third stream's readings for the minute come late: history stays.
        let late = try writer.writeLive([part(1_796_032_850_000, heartRates: [99], steps: 50)])
        #expect(late.inserted == 0 && late.replaced == 0)
        #expect(try samples(store, .stepCount).map(\.quantity.value) == [20])
        #expect(try samples(store, .heartRate).map(\.quantity.value) == [66])
    }

    @Test func manyStreamsInOneMinuteAreFoldedAndStillCountedOnce() throws {
        let directory = TemporaryStoreDirectory()
        let store = try HealthStore(path: directory.path + "/health.sqlite")
        let writer = try writer(store)
        let parts = (0..<(LiveMinuteParts.maximumParts + 4)).map { part(1_796_032_800_000 + Int64($0) * 2000, heartRates: [60 + $0], steps: 1) }
        for minute in parts { try writer.writeLive([minute]) }
        for minute in parts { try writer.writeLive([minute]) }   // all again: folded or not, nothing doubles
        let heartRate = try #require(try samples(store, .heartRate).first)
        #expect(heartRate.metadata["bandkit.hr.count"] == String(parts.count))
        #expect(try samples(store, .stepCount).map(\.quantity.value) == [Double(parts.count)])
        let stored = try #require(LiveMinuteParts(stored: heartRate.metadata[LiveMinuteParts.metadataKey] ?? ""))
        #expect(stored.parts.count == LiveMinuteParts.maximumParts)
    }

    @Test func aLiveSampleWrittenBeforePartsExistedIsKept() throws {
        let directory = TemporaryStoreDirectory()
        let store = try HealthStore(path: directory.path + "/health.sqlite")
        let writer = try writer(store)
        let start = Date(timeIntervalSince1970: TimeInterval(Self.minute))
        let old = QuantitySample(type: .heartRate, quantity: Quantity(70, .countPerMinute), start: start, end: start.addingTimeInterval(60),
                                 device: writer.device, syncIdentifier: writer.syncIdentifier(.heartRate, minute: Self.minute),
                                 syncVersion: 1, metadata: ["bandkit.hr.count": "2", "bandkit.hr.min": "68", "bandkit.hr.max": "72",
                                                            "bandkit.origin": "live"])
        _ = try store.write(as: SampleWriter.app) { try $0.save(old) }
        try writer.writeLive([part(1_796_032_850_000, heartRates: [76])])
        let heartRate = try #require(try samples(store, .heartRate).first)
        #expect(heartRate.metadata["bandkit.hr.count"] == "3")
        #expect(heartRate.quantity.value == 72)   // (140 + 76) / 3
    }

    // MARK: What a strap reports besides the rate: sensor contact, Energy Expended, battery

    static let heartRateHandle: UInt16 = 0x10

    /// A Heart Rate Measurement: flags with contact (nil: not supported), 8-bit rate, energy, RR.
    static func measurement(_ bpm: UInt8, contact: Bool?, energy: UInt16? = nil, rr: [UInt16] = []) -> [UInt8] {
        var flags: UInt8 = 0
        if let contact { flags |= contact ? 0x06 : 0x04 }
        if energy != nil { flags |= 0x08 }
        if !rr.isEmpty { flags |= 0x10 }
        var bytes = [flags, bpm]
        if let energy { bytes += [UInt8(energy & 0xFF), UInt8(energy >> 8)] }
        for interval in rr { bytes += [UInt8(interval & 0xFF), UInt8(interval >> 8)] }
        return bytes
    }

    final class ManualClock {
        var now: Date
        init(_ seconds: UInt32) { now = Date(timeIntervalSince1970: TimeInterval(seconds)) }
        func advance(_ seconds: TimeInterval) { now = now.addingTimeInterval(seconds) }
    }

    /// A plain strap's stream (heart rate only, host time) on a clock the test moves.
    func strapStream(at seconds: UInt32) -> (LiveStream, ManualClock) {
        let clock = ManualClock(seconds)
        let stream = LiveStream(handles: .init(heartRate: Self.heartRateHandle), now: { clock.now }, hostOffset: { 0 }, report: { _ in })
        return (stream, clock)
    }

    @Test func readingsWithoutSkinContactAreLeftOutOfTheMinuteAndCounted() throws {
        let (stream, clock) = strapStream(at: Self.minute + 5)
        for (bpm, contact) in [(70, true), (72, true), (140, false), (150, false), (74, true)] as [(UInt8, Bool)] {
            Self.measurement(bpm, contact: contact, rr: [800]).withUnsafeBytes { _ = stream.handle(Self.heartRateHandle, $0) }
            clock.advance(1)
        }
        let minute = try #require(stream.finish().first)
        #expect(minute.heartRate.count == 3)
        #expect(minute.heartRate.average == 72)
        #expect(minute.heartRate.maximum == 74)
        #expect(minute.heartRate.withoutContact == 2)
        #expect(minute.rrIntervals.count == 2, "the first interval waits for confirmation; no-contact intervals are left out")

        let directory = TemporaryStoreDirectory()
        let store = try HealthStore(path: directory.path + "/health.sqlite")
        try writer(store).writeLive([minute])
        let heartRate = try #require(try samples(store, .heartRate).first)
        #expect(heartRate.quantity.value == 72)
        #expect(heartRate.metadata["bandkit.hr.nocontact"] == "2")
        #expect(heartRate.metadata["bandkit.hr.count"] == "3")
    }

    @Test func energyExpendedBecomesActiveEnergyFromDeltasAcrossAReset() throws {
        let (stream, clock) = strapStream(at: Self.minute + 5)
        // 100 (baseline), 104, 110, reset by the control point to 0, then 3, 9: 4 + 6 + 0 + 3 + 6 = 19 kJ.
        for energy in [100, 104, 110, 0, 3, 9] as [UInt16] {
            Self.measurement(80, contact: true, energy: energy).withUnsafeBytes { _ = stream.handle(Self.heartRateHandle, $0) }
            clock.advance(2)
        }
        #expect(stream.energyExpended == 9)
        let minute = try #require(stream.finish().first)
        #expect(minute.energyKilojoules == 19)
        #expect(minute.activity.isZero)

        let directory = TemporaryStoreDirectory()
        let store = try HealthStore(path: directory.path + "/health.sqlite")
        try writer(store).writeLive([minute])
        let energy = try #require(try samples(store, .activeEnergyBurned).first)
        #expect(abs(try energy.quantity.value(in: .kilojoule) - 19) < 1e-9)
        #expect(try samples(store, .stepCount).isEmpty, "a strap measures no steps")
    }

    @Test func theBandsOwnCountersStayItsEnergyEvenIfItsHeartRateCarriesEnergyExpended() {
        let stream = LiveStream(handles: .init(heartRate: Self.heartRateHandle, liveActivity: 0x20),
                                now: { Date(timeIntervalSince1970: TimeInterval(Self.minute + 5)) }, hostOffset: { 0 }, report: { _ in })
        for energy in [100, 140] as [UInt16] {
            Self.measurement(80, contact: true, energy: energy).withUnsafeBytes { _ = stream.handle(Self.heartRateHandle, $0) }
        }
        #expect(stream.finish().first?.energyKilojoules == 0)
    }

    @Test func theBatteryLevelIsStoredWithTheDevice() throws {
        let directory = TemporaryStoreDirectory()
        let store = try HealthStore(path: directory.path + "/health.sqlite")
        let writer = try writer(store)
        #expect(try writer.storedBattery() == nil)
        let stream = LiveStream(handles: .init(battery: 0x30), now: { Date(timeIntervalSince1970: 1_796_032_812) }, hostOffset: { 0 },
                                report: { _ in })
        [UInt8(87)].withUnsafeBytes { _ = stream.handle(0x30, $0) }
        let update = try #require(stream.takeBatteryUpdate())
        #expect(stream.takeBatteryUpdate() == nil, "taken once")
        try writer.writeLive([], batteryPercent: update.percent, batteryTime: update.time)
        let stored = try #require(try writer.storedBattery())
        #expect(stored.percent == 87)
        #expect(stored.time == Date(timeIntervalSince1970: 1_796_032_812))
    }
}

/// A temporary directory removed when the value goes.
final class TemporaryStoreDirectory {
    let path = NSTemporaryDirectory() + "bandkit-merge-\(UUID().uuidString)"
    init() { try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
    deinit { try? FileManager.default.removeItem(atPath: path) }
}
