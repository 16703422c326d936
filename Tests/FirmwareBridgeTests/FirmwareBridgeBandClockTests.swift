import FirmwareBridge
import Testing
import UARTFraming

/// The band's time across a firmware reset: the chip keeps no clock across it and the host tells
/// it the time (0x10) — the band's own time as the chip last reported it, never the host's wall
/// time × speed, which runs ahead of a chip whose SysTick QEMU delivers late.
@Suite struct FirmwareBridgeBandClockTests {
    /// A band that starts half a minute into a minute (`--start …:30`), Unix seconds.
    private let start: Int64 = 1_796_256_030

    private func fromFirmware(_ bridge: inout FirmwareBridge, _ bytes: [UInt8]) -> [FirmwareBridge.Action] {
        bytes.withUnsafeBytes { bridge.received(fromFirmware: $0) }
    }
    private let booted = booting()

    /// Debug 0x87 for minute `sequence` starting at `minuteStart` (the rest of the record zero).
    private func minute(_ sequence: UInt32, startingAt minuteStart: Int64) -> [UInt8] {
        let at = UInt32(minuteStart)
        let record: [UInt8] = [UInt8(at & 0xFF), UInt8(at >> 8 & 0xFF), UInt8(at >> 16 & 0xFF), UInt8(at >> 24)] + [UInt8](repeating: 0, count: 12)
        return FirmwareBridge.frame(.debug, [0x87, UInt8(sequence & 0xFF), UInt8(sequence >> 8 & 0xFF), 0, 0] + record)
    }

    /// The chip as QEMU runs it on a loaded host: its band clock starts at the 0x10 time and runs
    /// at `pace` of the speed asked for; it closes a minute (0x87) whenever its clock passes a
    /// minute boundary, the minute it started in included, as BandCore does. A reset loses its
    /// clock and the minute it had not closed; its sequence numbers come from flash.
    private struct SlowChip {
        var pace: Double
        var sequence: UInt32 = 0
        var bandMilliseconds: Int64? = nil
        var openMinute: Int64? = nil

        mutating func configure(_ actions: [FirmwareBridge.Action]) {
            for case .configureFirmware(let bandStart) in actions {
                bandMilliseconds = bandStart * 1000
                openMinute = bandStart / 60 * 60
            }
        }
        /// Runs `realSeconds` at `speed` band seconds per real second asked for: the minutes it closes.
        mutating func run(realSeconds: Int64, speed: Int64) -> [(sequence: UInt32, start: Int64)] {
            guard var now = bandMilliseconds, var open = openMinute else { return [] }
            now += Int64(Double(realSeconds * speed * 1000) * pace)
            var closed: [(UInt32, Int64)] = []
            while now >= (open + 60) * 1000 {
                closed.append((sequence, open))
                sequence += 1
                open += 60
            }
            bandMilliseconds = now
            openMinute = open
            return closed
        }
        mutating func reset() { bandMilliseconds = nil; openMinute = nil }
    }

    @Test func aChipWhoseClockRanAtHalfSpeedResumesAfterItsLastMinuteWithNoGap() {
        var bridge = FirmwareBridge(bandStart: start)
        var chip = SlowChip(pace: 0.5)
        chip.configure(fromFirmware(&bridge, booted))
        var starts: [Int64] = []
        // 20 real minutes at 60×: the host's reckoning says 20 band hours; the chip ran 10.
        for (sequence, minuteStart) in chip.run(realSeconds: 1_200, speed: 60) {
            _ = fromFirmware(&bridge, minute(sequence, startingAt: minuteStart))
            starts.append(minuteStart)
        }
        let lastEnd = starts.last! + 60
        #expect(bridge.bandTimeReported == lastEnd)
        // The chip resets (a watchdog, say): it is configured at the end of its last minute, not
        // at the start + 20 min × 60 the host's clock would give.
        chip.reset()
        let boot = fromFirmware(&bridge, booted)
        #expect(boot.contains(.configureFirmware(bandStart: lastEnd)))
        #expect(!boot.contains(.configureFirmware(bandStart: start + 1_200 * 60)), "not wall time × speed")
        chip.configure(boot)
        for (sequence, minuteStart) in chip.run(realSeconds: 120, speed: 60) {
            _ = fromFirmware(&bridge, minute(sequence, startingAt: minuteStart))
            starts.append(minuteStart)
        }
        #expect(starts.count > 600 + 50)
        #expect(zip(starts, starts.dropFirst()).allSatisfy { $1 == $0 + 60 },
                "the next minute after boot follows the last minute before it: no gap, no minute twice, never back")
        #expect(bridge.counters.minuteGaps == 0 && bridge.counters.minutesBackInTime == 0)
    }

    @Test func everyResetResumesWhereTheChipsClockWasAskedForOrNot() {
        var bridge = FirmwareBridge(bandStart: start, rebootAt: .init(bandStart: start, after: [300]))
        var chip = SlowChip(pace: 0.7)
        chip.configure(fromFirmware(&bridge, booted))
        var starts: [Int64] = []
        var resets = 0
        // reboot-at=5m (the bridge's), then two resets nobody asked for, one before the chip
        // closed a minute: each boot resumes at the chip's own time.
        for round in 0..<4 {
            var resetAsked = false
            for (sequence, minuteStart) in chip.run(realSeconds: round == 2 ? 1 : 20, speed: 30) where !resetAsked {
                let actions = fromFirmware(&bridge, minute(sequence, startingAt: minuteStart))
                starts.append(minuteStart)
                resetAsked = actions.contains(.toFirmware(FirmwareBridge.frame(.link, [0x0A])))
            }
            if round == 3 { break }
            if resetAsked || round > 0 {
                chip.reset()
                resets += 1
                let before = bridge.lastConfiguredStart!
                let boot = fromFirmware(&bridge, booted)
                let expected = max(before, starts.last.map { $0 + 60 } ?? before)
                #expect(boot.contains(.configureFirmware(bandStart: expected)), "boot \(resets + 1): \(boot)")
                chip.configure(boot)
            }
        }
        #expect(resets == 3 && bridge.counters.resetsRequested == 1)
        #expect(zip(starts, starts.dropFirst()).allSatisfy { $1 == $0 + 60 }, "\(starts.map { $0 - starts[0] })")
        #expect(bridge.counters.minuteGaps == 0 && bridge.counters.minutesBackInTime == 0)
    }

    @Test func aResetBeforeTheFirstMinuteRestartsAtThePreviousStartNotEarlier() {
        var bridge = FirmwareBridge(bandStart: start)
        #expect(fromFirmware(&bridge, booted).contains(.configureFirmware(bandStart: start)))
        // The chip ran 40 band seconds and reset: it closed no minute; the minute it had open is
        // lost and starts again, from the same start (nothing recorded twice, nothing skipped).
        let boot = fromFirmware(&bridge, booted)
        #expect(boot == [.log("firmware: booted (boot 2 seen by this bridge)"), flashLog(),
                         .log("bridge: the band resumes at \(start) (Unix s, 0:00:00 after its start): its previous start; no minute recorded since"),
                         .configureFirmware(bandStart: start)])
    }

    @Test func minutesInFlashWhoseReportTheResetCutOffAreNotRecordedAgain() {
        var bridge = FirmwareBridge(bandStart: start)
        _ = fromFirmware(&bridge, booted)
        let first = start / 60 * 60
        for index in 0..<10 { _ = fromFirmware(&bridge, minute(UInt32(index), startingAt: first + 60 * Int64(index))) }
        // Minutes 10 and 11 were durable in flash, their 0x87 still in the chip's outbox, when a
        // hard fault reset it: the flash report's next minute (12) says so. The band resumes after
        // them, so minute 12 does not take minute 10's time.
        let boot = fromFirmware(&bridge, booting(boot: 2, next: 12))
        #expect(boot.contains(.log("bridge: 2 minute(s) in the chip's flash after minute 9 were never reported (the reset cut off their 0x87)")))
        #expect(boot.contains(.configureFirmware(bandStart: first + 12 * 60)))
        _ = fromFirmware(&bridge, minute(12, startingAt: first + 12 * 60))
        #expect(bridge.counters.minuteGaps == 1, "the truth has a gap where the unreported minutes are; the band's ring has none")
        // A next minute far past the last reported one is another ring (a flash file from an
        // earlier run), not lost reports: the band resumes at its own last minute.
        let other = fromFirmware(&bridge, booting(boot: 3, next: 5_000))
        #expect(other.contains(.configureFirmware(bandStart: first + 13 * 60)))
    }

    /// A host started again on the same flash file and the same `--start`: the chip's flash holds
    /// minutes up to 3 h after the start; the band resumes after the newest, never back in time.
    @Test func aFirstBootWhoseFlashHoldsLaterMinutesResumesAfterTheNewest() {
        var bridge = FirmwareBridge(bandStart: start)
        let newest = UInt32(start + 3 * 3600)
        let boot = fromFirmware(&bridge, booting(boot: 4, next: 181, newest: newest))
        #expect(boot.contains(.configureFirmware(bandStart: Int64(newest) + 60)), "\(boot)")
        // A flash whose newest minute is before the start (an old file, a later --start): the start.
        var later = FirmwareBridge(bandStart: start)
        #expect(fromFirmware(&later, booting(boot: 2, next: 10, newest: UInt32(start - 3600))).contains(.configureFirmware(bandStart: start)))
        // After a reset too, the flash's newest minute wins over an older reported one.
        _ = fromFirmware(&bridge, FirmwareBridge.frame(.link, [0x80]))
        let reset = fromFirmware(&bridge, FirmwareBridge.frame(.debug, [0x86] + [5, 0, 0, 0, 181 + 2, newest + 120].flatMap { (v: UInt32) in
            (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) }
        }))
        #expect(reset.contains(.configureFirmware(bandStart: Int64(newest) + 180)), "\(reset)")
    }

    @Test func aBootIsConfiguredOnlyOnceItsFlashReportCameAndNoReaderIsTakenBefore() {
        var bridge = FirmwareBridge(bandStart: start)
        #expect(fromFirmware(&bridge, FirmwareBridge.frame(.link, [0x80])) == [.log("firmware: booted (boot 1 seen by this bridge)")])
        #expect(bridge.resetInProgress, "booted, not yet configured")
        #expect(bridge.readerDidConnect() == [], "announced once the band runs")
        #expect(fromFirmware(&bridge, FirmwareBridge.frame(.debug, [0x86, 1, 2])) ==
                [.log("firmware: flash report of 3 bytes, not 25; configuring without it: 86 01 02"),
                 .configureFirmware(bandStart: start), .toFirmware(FirmwareBridge.frame(.link, [0x02]))])
        #expect(!bridge.resetInProgress && bridge.readerConnected)
    }

    @Test func minutesThatDoNotFollowAreCountedAndLoggedButStillTruth() {
        var bridge = FirmwareBridge(bandStart: start)
        _ = fromFirmware(&bridge, booted)
        let first = start / 60 * 60
        #expect(fromFirmware(&bridge, minute(0, startingAt: first)).count == 1)
        #expect(fromFirmware(&bridge, minute(1, startingAt: first + 60)).count == 1, "the next minute follows")
        let gap = fromFirmware(&bridge, minute(2, startingAt: first + 240))
        #expect(gap.count == 2 && gap.last == .log("bridge: minute 2 starts at \(first + 240), 120 s after the previous minute's end: a gap in the band's minutes"))
        let twice = fromFirmware(&bridge, minute(3, startingAt: first + 240))
        #expect(twice.last == .log("bridge: minute 3 starts at \(first + 240), 60 s before the previous minute's end: the band's time went back"))
        if case .minuteRecorded(let sequence, _) = twice.first { #expect(sequence == 3) } else { Issue.record("truth first: \(twice)") }
        #expect(bridge.counters.minuteGaps == 1 && bridge.counters.minutesBackInTime == 1)
        // The band's time never goes back: an earlier minute does not move it.
        _ = fromFirmware(&bridge, minute(4, startingAt: first))
        #expect(bridge.bandTimeReported == first + 300 && bridge.counters.minutesBackInTime == 2)
        #expect(fromFirmware(&bridge, booted).contains(.configureFirmware(bandStart: first + 300)))
    }
}
