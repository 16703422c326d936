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

/// The Linux band's behaviour the chip has no feature for: `--fault` injection (`reboot-at`,
/// `clock-drift`, `battery`), `--history-days`, the state file, a configurable ring size. The
/// rest (determinism, a reset keeping the history, live counters, midnight, the sensor models)
/// runs on both bands in ChipRuntimeTests/BandBehaviourConversationTests.
@Suite("Band behaviour: faults, backfill, state file, ring size (Linux band)")
struct BandBehaviourTests {
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
    /// A band that waited on the full socket would never come back from `advance` (the reader
    /// never reads): the time limit turns that into a failure; the congestion drops show it sent
    /// without waiting.
    @Test("A reader that stops reading costs it notifications, not the band its loop or the connection", .timeLimit(.minutes(1)))
    func congestedLinkDropsNotifications() throws {
        let c = try Conversation()
        try c.exchange("12 1a00 0100", "13")
        try c.exchange("12 2200 0100", "13")
        c.band.advance(by: .seconds(3600))
        #expect(c.band.isConnected)
        #expect(c.log.contains { $0.contains("link congested, 1000 notification(s) dropped so far") },
                "the band dropped what the socket would not take instead of waiting: \(c.log.suffix(3))")
        let delivered = try c.drain().count
        #expect(delivered > 50, "delivered \(delivered), log: \(c.log.prefix(3))")
    }
}
