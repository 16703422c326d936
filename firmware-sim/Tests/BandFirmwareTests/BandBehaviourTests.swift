import BandFirmware
import BandLink
import BandProtocol
import BandTestSupport
import BandWire
import Testing

/// Runs a band with no reader for `minutes` and returns its records.
private func recordsOf(_ configuration: BandConfiguration, minutes: Int) throws -> [MinuteRecord] {
    let band = try SimulatedBand(configuration: configuration)
    var records: [MinuteRecord] = []
    band.onMinuteRecorded = { _, record in records.append(record) }
    band.advance(by: .seconds(Int64(minutes) * 60 + 1))
    return records
}

@Suite("Band behaviour: determinism, flash, reboots, overflow, counters, models")
struct BandBehaviourTests {
    @Test("Same seed, same conversation: identical notifications and identical minute records")
    func sameSeedSameBytes() throws {
        func run(seed: UInt64) throws -> ([[UInt8]], [MinuteRecord]) {
            let c = try Conversation(testConfiguration(seed: seed, scenario: "day"))
            var records: [MinuteRecord] = []
            c.band.onMinuteRecorded = { _, record in records.append(record) }
            try c.pair()
            try c.exchange("12 1a00 0100", "13")
            try c.exchange("12 2200 0100", "13")
            try c.exchange("12 2e00 0100", "13")
            var received: [[UInt8]] = []
            for _ in 0..<30 {
                c.band.advance(by: .seconds(10))
                received += try c.drain()
            }
            return (received, records)
        }
        let (first, firstRecords) = try run(seed: 99)
        let (second, secondRecords) = try run(seed: 99)
        let (other, _) = try run(seed: 100)
        #expect(first.count > 600)
        #expect(first == second)
        #expect(firstRecords == secondRecords && firstRecords.count == 5)
        #expect(first != other, "a different seed gives different data")
    }

    @Test("A reboot resets the counters and moves the boot epoch but keeps the history in flash")
    func rebootKeepsHistory() throws {
        let c = try Conversation()
        c.band.advance(by: .seconds(10 * 60 + 30))
        let before = c.band.flash.ring
        let epoch = c.band.bootEpoch
        #expect(c.band.liveActivity.steps > 0)
        c.band.reboot()
        #expect(!c.band.isConnected, "the radio drops the link")
        #expect(c.band.bootEpoch == epoch &+ 1)
        #expect(c.band.liveActivity.steps == 0)
        #expect(c.band.flash.ring.oldest == before.oldest && c.band.flash.ring.next == before.next)
        c.band.advance(by: .seconds(120))
        let ring = c.band.flash.ring
        #expect(ring.next == before.next + 2)
        #expect(ring.record(before.next).flags.contains(.partial), "the minute of the reboot is partial")
        #expect(!ring.record(before.next + 1).flags.contains(.partial))
    }

    @Test("reboot-at fault fires at its run time")
    func scheduledReboot() throws {
        var configuration = testConfiguration()
        configuration.faults = [.rebootAt(.seconds(90))]
        let band = try SimulatedBand(configuration: configuration)
        let epoch = band.bootEpoch
        band.advance(by: .seconds(89))
        #expect(band.bootEpoch == epoch)
        band.advance(by: .seconds(2))
        #expect(band.bootEpoch == epoch &+ 1)
    }

    @Test("Overflow overwrites only the oldest records; the rest are intact and in order")
    func overflowDropsOnlyOldest() throws {
        var configuration = testConfiguration()
        configuration.historyCapacity = 100
        let band = try SimulatedBand(configuration: configuration)
        var all: [MinuteRecord] = []
        band.onMinuteRecorded = { _, record in all.append(record) }
        band.advance(by: .seconds(150 * 60 + 1))
        let ring = band.flash.ring
        #expect(all.count == 150)
        #expect(ring.oldest == 50 && ring.next == 150 && ring.count == 100)
        #expect((50..<150).map { ring.record(UInt32($0)) } == Array(all[50...]))
        #expect(ring.overwrittenUnacknowledged == 50)
    }

    @Test("--history-days backfills a week before the start; the minute before the start completes at the first tick")
    func historyBackfill() throws {
        var configuration = testConfiguration(scenario: "day")
        configuration.historyDays = 7
        let band = try SimulatedBand(configuration: configuration)
        let ring = band.flash.ring
        #expect(ring.count == 10_079, "a week of minutes but the one still in progress at the start")
        #expect(ring.record(ring.next - 1).minuteStart == UInt32(testStart.seconds) - 120)
        var stored: [UInt32] = []
        band.replayStoredRecords { sequence, _ in stored.append(sequence) }
        #expect(stored.count == ring.count)
        band.advance(by: .seconds(1))
        #expect(band.flash.ring.record(band.flash.ring.next - 1).minuteStart == UInt32(testStart.seconds) - 60)
    }

    @Test("Flash image round-trips through the state file format; a damaged byte is caught by the CRC")
    func flashImageRoundTrip() throws {
        let c = try Conversation()
        try c.pair()
        c.band.advance(by: .seconds(30 * 60 + 1))
        let image = c.band.flash.serialized()
        let restored = try image.withUnsafeBytes { try FlashImage(parsing: $0, capacity: 10_080) }
        #expect(restored.serialized() == image)
        #expect(restored.ring.count == 30 && restored.keys.entries.count == 1)
        var damaged = image
        damaged[100] ^= 0x01
        #expect(throws: ParseError.self) { try damaged.withUnsafeBytes { try FlashImage(parsing: $0, capacity: 10_080) } }
        #expect(throws: ParseError(.invalidValue, at: 0, field: "magic (not a BandKit flash image, version 1 or 2)")) {
            try Array("not a state file at all".utf8).withUnsafeBytes { try FlashImage(parsing: $0, capacity: 10_080) }
        }
    }

    @Test("A restored band is the same band: history ID, records, keys, and the epoch moves on at boot")
    func restoredBandContinues() throws {
        let first = try SimulatedBand(configuration: testConfiguration())
        first.advance(by: .seconds(5 * 60 + 1))
        let image = first.flash
        var later = testConfiguration()
        later.start = testStart + .seconds(3600)
        let second = try SimulatedBand(configuration: later, flash: image)
        #expect(second.flash.historyID == first.flash.historyID)
        #expect(second.bootEpoch == first.bootEpoch &+ 1)
        second.advance(by: .seconds(61))
        #expect(second.flash.ring.next == first.flash.ring.next + 1)
    }

    @Test("Live counters equal the sum of today's minute records plus the minute in progress")
    func liveMatchesHistory() throws {
        let band = try SimulatedBand(configuration: testConfiguration(scenario: "walk"))
        var records: [MinuteRecord] = []
        band.onMinuteRecorded = { _, record in records.append(record) }
        band.advance(by: .seconds(20 * 60))
        let live = band.liveActivity
        let stepsInRecords = records.reduce(0) { $0 + Int($1.steps) }
        #expect(Int(live.steps) >= stepsInRecords)
        #expect(Int(live.steps) - stepsInRecords <= 2, "only the one second of the minute in progress is missing from the records")
    }

    @Test("At the band's local midnight the counters reset and the local day moves on")
    func midnightReset() throws {
        var configuration = testConfiguration(scenario: "walk")
        configuration.start = BandInstant(seconds: CivilTime(year: 2026, month: 11, day: 30, hour: 22, minute: 50).unixSeconds)
        configuration.timeZoneQuarterHours = 4 // +01:00, so local midnight is 23:00 UTC
        let band = try SimulatedBand(configuration: configuration)
        band.advance(by: .seconds(9 * 60))
        let before = band.liveActivity
        #expect(before.steps > 500)
        band.advance(by: .seconds(2 * 60))
        let after = band.liveActivity
        #expect(after.localDay == before.localDay + 1)
        #expect(after.bootEpoch == before.bootEpoch)
        #expect(after.steps < 300)
        #expect(after.utcOffset == LocalTimeOffset(quarterHours: 4))
    }

    @Test("Walking: ~110 steps/min, distance = steps × stride, heart rate raised, active energy from ACSM")
    func walkingIsBelievable() throws {
        let records = try recordsOf(testConfiguration(scenario: "walk"), minutes: 10).dropFirst(3)
        for record in records {
            #expect((90...130).contains(record.steps))
            let stride = Double(record.distanceDecimetres) / 10 / Double(record.steps)
            #expect((0.6...0.85).contains(stride), "stride \(stride) m")
            let hr = try #require(record.heartRate)
            #expect((80...130).contains(hr.average) && hr.minimum <= hr.average && hr.average <= hr.maximum)
            // 70 kg at ~0.74 m × 110/min ≈ 81 m/min → 0.1 × 81 × 70 × 5 / 1000 ≈ 2.8 kcal/min.
            #expect((20...40).contains(record.energyDecikilocalories))
            #expect(record.worn)
        }
    }

    @Test("Running is faster, longer-strided and harder on the heart than walking")
    func runningIsBelievable() throws {
        let records = try recordsOf(testConfiguration(scenario: "run"), minutes: 8).dropFirst(4)
        for record in records {
            #expect((150...185).contains(record.steps))
            #expect(try #require(record.heartRate).average > 125)
            #expect(record.energyDecikilocalories > 80)
        }
    }

    @Test("Asleep: no steps, low heart rate; not worn: no steps, no heart rate, not worn")
    func restAndOffWrist() throws {
        for record in try recordsOf(testConfiguration(scenario: "sleep"), minutes: 6).dropFirst(3) {
            #expect(record.steps == 0 && record.energyDecikilocalories == 0)
            #expect(try #require(record.heartRate).average < 60)
        }
        for record in try recordsOf(testConfiguration(scenario: "not-worn"), minutes: 3) {
            #expect(record.steps == 0 && record.heartRate == nil && !record.worn)
        }
    }

    @Test("Clock drift makes the band's clock run fast by the given ppm")
    func clockDrift() throws {
        var configuration = testConfiguration()
        configuration.faults = [.clockDrift(500)]
        let band = try SimulatedBand(configuration: configuration)
        band.advance(by: .seconds(10_000))
        let drift = band.clock.now(at: band.trueTime) - band.trueTime
        #expect(drift == .seconds(5))
    }

    @Test("A low battery stops heart-rate measurement at 5 %")
    func lowBattery() throws {
        var configuration = testConfiguration()
        configuration.faults = [.battery(5)]
        let records = try recordsOf(configuration, minutes: 2)
        #expect(records.allSatisfy { $0.heartRate == nil && $0.steps > 0 })
    }
}

@Suite("Link congestion")
struct CongestionTests {
    @Test("A reader that stops reading costs it notifications, not the band its loop or the connection")
    func congestedLinkDropsNotifications() throws {
        let c = try Conversation()
        try c.exchange("12 1a00 0100", "13")
        try c.exchange("12 2200 0100", "13")
        let clock = ContinuousClock()
        let elapsed = clock.measure { c.band.advance(by: .seconds(3600)) }
        #expect(c.band.isConnected)
        #expect(elapsed < .seconds(4), "the band never waited on the full socket")
        #expect(c.log.contains { $0.contains("link congested") })
        let delivered = try c.drain().count
        #expect(delivered > 50, "delivered \(delivered), log: \(c.log.prefix(3))")
    }
}
