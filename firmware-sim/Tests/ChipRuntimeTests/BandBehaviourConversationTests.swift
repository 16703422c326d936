import BandFirmware
import BandProtocol
import BandWire
import Testing

/// The band's behaviour over time — determinism, a reset that keeps the history, live counters
/// against the minute records, midnight, the sensor models — on the Linux band and the chip's
/// band. The reader's view comes through ATT, the band's own truth through ``BandUnderTest``
/// (the chip's from its debug messages and flash pages). Linux-only ones stay in
/// BandFirmwareTests/BandBehaviourTests: `--fault` injection (`reboot-at`, `clock-drift`,
/// `battery`), `--history-days`, the state file, a configurable ring size, link congestion.
@Suite("Band behaviour on the Linux band and the chip's band")
struct BandBehaviourConversationTests {
    /// Paired (so Live Activity can be read) after the setup's start.
    static func paired(_ kind: BandKind, _ setup: BandSetup) throws -> (TwinConversation, BandKey) {
        var c = try TwinConversation(kind, setup)
        let key = try #require(try c.pair())
        return (c, key)
    }

    /// The records a band running `name` from Monday 08:00 recorded in `minutes`.
    static func records(_ kind: BandKind, running name: String, minutes: Int) throws -> [MinuteRecord] {
        var c = try TwinConversation(kind, .monday(name))
        _ = try c.advance(seconds: minutes * 60 + 1)
        return c.band.recorded.map(\.record)
    }

    /// Paired, Heart Rate, RSC and Live Activity subscribed, five minutes in 10-second steps:
    /// every notification and every recorded minute.
    static func notifiedMinutes(_ kind: BandKind, seed: UInt64) throws -> ([[UInt8]], [MinuteRecord]) {
        var c = try TwinConversation(kind, .monday("day", seed: seed))
        _ = try c.pair()
        try c.exchange("12 1a00 0100", "13")
        try c.exchange("12 2200 0100", "13")
        try c.send("12 2e00 0100")
        c.expect("13")
        var received: [[UInt8]] = []
        while let pdu = c.next() { received.append(pdu) }   // Live Activity's value at once
        for _ in 0..<30 { received += try c.advance(seconds: 10) }
        return (received, c.band.recorded.map(\.record))
    }

    @Test("Same seed, same conversation: identical notifications and identical minute records", arguments: BandKind.allCases)
    func sameSeedSameBytes(_ kind: BandKind) throws {
        let (first, firstRecords) = try Self.notifiedMinutes(kind, seed: 99)
        let (second, secondRecords) = try Self.notifiedMinutes(kind, seed: 99)
        let (other, _) = try Self.notifiedMinutes(kind, seed: 100)
        #expect(first.count > 600)
        #expect(first == second)
        #expect(firstRecords == secondRecords && firstRecords.count == 5)
        #expect(first != other, "a different seed gives different data")
    }

    @Test("The Linux band and the chip's band with the same seed send the same notifications and record the same minutes")
    func bothBandsSendTheSameBytes() throws {
        let (linux, linuxRecords) = try Self.notifiedMinutes(.linux, seed: 99)
        let (chip, chipRecords) = try Self.notifiedMinutes(.chip, seed: 99)
        #expect(linux.count == chip.count && linux.count > 600)
        if let index = (0..<min(linux.count, chip.count)).first(where: { linux[$0] != chip[$0] }) {
            Issue.record("notification \(index): Linux \(Hex.encode(linux[index])), chip \(Hex.encode(chip[index]))")
        }
        #expect(linuxRecords == chipRecords && linuxRecords.count == 5)
    }

    @Test("Overflow overwrites only the oldest records; the rest are intact and in order; a reader is told the loss", arguments: BandKind.allCases)
    func overflowDropsOnlyOldest(_ kind: BandKind) throws {
        let capacity = ChipBand.historyCapacity   // the Linux band's is set to the chip's
        var c = try TwinConversation.history(kind, minutes: capacity + 50, setup: .monday("day"))
        let all = c.band.recorded
        let ring = c.band.stored()
        #expect(all.count == capacity + 50 && all.map(\.sequence) == Array(0..<UInt32(capacity + 50)))
        #expect(ring.oldest == 50 && ring.next == UInt32(capacity + 50) && ring.records.count == capacity)
        #expect(ring.records == all[50...].map(\.record), "the rest intact and in order")
        let got = try c.fetch(cursor: 0)
        #expect(got.response.gap == 50 && got.response.firstSequence == 50 && got.records == ring.records)
        #expect(got.complete?.crc == got.crc)
    }

    @Test("A reset clears the counters and moves the boot epoch but keeps the history in flash", arguments: BandKind.allCases)
    func resetKeepsHistory(_ kind: BandKind) throws {
        var (c, key) = try Self.paired(kind, .monday("walk"))
        _ = try c.advance(seconds: 10 * 60 + 30)
        let before = c.band.stored()
        let live = try c.liveActivity()
        #expect(live.steps > 0)
        #expect(before.next == 10 && before.records.count == 10)
        try c.reset()
        #expect(try c.authenticate(key: key).0.status == .success, "the key is in flash")
        let after = try c.liveActivity()
        #expect(after.bootEpoch == live.bootEpoch &+ 1)
        // Linux's reboot() counts from the next second on; the chip, configured again by the host,
        // starts as every band starts (the Linux band at its start too): its first second is
        // ticked at once, at most 2 steps at a walk's 110 a minute.
        #expect(kind == .linux ? after.steps == 0 : after.steps <= 2, "nothing counted before the reset (\(after.steps) steps)")
        let kept = c.band.stored()
        #expect(kept.oldest == before.oldest && kept.next == before.next && kept.records == before.records)
        _ = try c.advance(seconds: 120)
        let later = c.band.stored()
        #expect(later.next == before.next + 2)
        #expect(later.record(before.next)?.flags.contains(.partial) == true, "the minute of the reset is partial")
        #expect(later.record(before.next + 1)?.flags.contains(.partial) == false)
    }

    @Test("A band switched off for an hour is the same band: history ID, records, keys; the epoch moves on at boot", arguments: BandKind.allCases)
    func restartedBandContinues(_ kind: BandKind) throws {
        var c = try TwinConversation.history(kind, minutes: 5, setup: .monday("walk"))
        let key = try #require(c.band.stored().readers.first?.key)
        let before = try c.fetch(cursor: 0)
        let epoch = try c.liveActivity().bootEpoch
        let next = c.band.stored().next
        try c.reset(offFor: .seconds(3600))
        #expect(try c.authenticate(key: key).0.status == .success)
        try c.exchange("12 3100 0200", "13")
        try c.exchange("12 3400 0100", "13")
        #expect(try c.liveActivity().bootEpoch == epoch &+ 1)
        _ = try c.advance(seconds: 61)
        #expect(c.band.stored().next == next + 1)
        let after = try c.fetch(cursor: 0)
        #expect(after.response.historyID == before.response.historyID, "the same band's history")
        #expect(Array(after.records.prefix(before.records.count)) == before.records, "the records before the restart, unchanged")
        #expect(after.records.last?.minuteStart == UInt32(BandSetup.monday0800.seconds) + 65 * 60, "the band's clock took the hour")
    }

    @Test("Live counters equal the sum of today's minute records plus the minute in progress", arguments: BandKind.allCases)
    func liveMatchesHistory(_ kind: BandKind) throws {
        var (c, _) = try Self.paired(kind, .monday("walk"))
        _ = try c.advance(seconds: 20 * 60)
        let live = try c.liveActivity()
        let stepsInRecords = c.band.recorded.reduce(0) { $0 + Int($1.record.steps) }
        #expect(c.band.recorded.count == 20)
        #expect(Int(live.steps) >= stepsInRecords)
        #expect(Int(live.steps) - stepsInRecords <= 2, "only the one second of the minute in progress is missing from the records")
    }

    @Test("At the band's local midnight the counters reset and the local day moves on", arguments: BandKind.allCases)
    func midnightReset(_ kind: BandKind) throws {
        // +01:00, so local midnight is 23:00 UTC.
        let start = BandInstant(seconds: CivilTime(year: 2026, month: 11, day: 30, hour: 22, minute: 50).unixSeconds)
        var (c, _) = try Self.paired(kind, BandSetup(start: start, timeZoneQuarterHours: 4, scenario: Scenario.builtIn("walk")!))
        _ = try c.advance(seconds: 9 * 60)
        let before = try c.liveActivity()
        #expect(before.steps > 500)
        _ = try c.advance(seconds: 2 * 60)
        let after = try c.liveActivity()
        #expect(after.localDay == before.localDay + 1)
        #expect(after.bootEpoch == before.bootEpoch)
        #expect(after.steps < 300)
        #expect(after.utcOffset == LocalTimeOffset(quarterHours: 4))
    }

    @Test("Walking: ~110 steps/min, distance = steps × stride, heart rate raised, active energy from ACSM", arguments: BandKind.allCases)
    func walkingIsBelievable(_ kind: BandKind) throws {
        let records = try Self.records(kind, running: "walk", minutes: 10).dropFirst(3)
        #expect(records.count == 7)
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

    @Test("Running is faster, longer-strided and harder on the heart than walking", arguments: BandKind.allCases)
    func runningIsBelievable(_ kind: BandKind) throws {
        let records = try Self.records(kind, running: "run", minutes: 8).dropFirst(4)
        #expect(records.count == 4)
        for record in records {
            #expect((150...185).contains(record.steps))
            #expect(try #require(record.heartRate).average > 125)
            #expect(record.energyDecikilocalories > 80)
        }
    }

    @Test("Asleep: no steps, low heart rate; not worn: no steps, no heart rate, not worn", arguments: BandKind.allCases)
    func restAndOffWrist(_ kind: BandKind) throws {
        let asleep = try Self.records(kind, running: "sleep", minutes: 6).dropFirst(3)
        #expect(asleep.count == 3)
        for record in asleep {
            #expect(record.steps == 0 && record.energyDecikilocalories == 0)
            #expect(try #require(record.heartRate).average < 60)
        }
        let off = try Self.records(kind, running: "not-worn", minutes: 3)
        #expect(off.count == 3)
        for record in off {
            #expect(record.steps == 0 && record.heartRate == nil && !record.worn)
        }
    }
}
