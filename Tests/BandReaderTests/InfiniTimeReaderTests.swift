import BandPeers
import BandReader
import Foundation
import HealthModel
import HealthStore
import Testing

/// The reader against a simulated InfiniTime watch over the socket link, in accelerated
/// simulated time: the store must be the watch's truth — per-minute steps and heart rate where
/// the reader was connected, one marked gap sample otherwise, daily totals exact, nothing twice.
@Suite(.serialized) struct InfiniTimeReaderTests {
    static let minute: PeerMilliseconds = 60_000

    /// What differs between the store and the truth, up to `cutoff` (the last reader's end).
    func problems(_ truth: [InfiniTimePeer.MinuteTruth], _ harness: WatchHarness, streaming: [ClosedRange<Date>]) throws -> [String] {
        let (steps, rates) = try harness.stored()
        var problems: [String] = []
        guard let lastEnd = streaming.map(\.upperBound).max() else { return ["never streamed"] }
        let cutoff = Int64(lastEnd.timeIntervalSince1970 * 1000) / Self.minute * Self.minute
        let minutes = truth.filter { $0.start + Self.minute <= cutoff }
        func fullyStreamed(_ start: PeerMilliseconds) -> Bool {
            let from = Date(timeIntervalSince1970: Double(start) / 1000), to = from.addingTimeInterval(60)
            return streaming.contains { $0.lowerBound <= from && to <= $0.upperBound }
        }
        func ms(_ date: Date) -> PeerMilliseconds { PeerMilliseconds((date.timeIntervalSince1970 * 1000).rounded()) }
        // Heart rate: every stored minute is the watch's rate; every fully streamed minute with a reading is stored.
        let storedRates = Dictionary(rates.map { (ms($0.start), $0.quantity.value) }, uniquingKeysWith: { a, _ in a })
        for minute in minutes {
            let stored = storedRates[minute.start]
            if let stored, stored != minute.heartRate.map(Double.init) { problems.append("HR at \(minute.start): stored \(stored), watch \(String(describing: minute.heartRate))") }
            if stored == nil, minute.heartRate != nil, fullyStreamed(minute.start) { problems.append("HR at \(minute.start): streamed but not stored") }
        }
        // Steps: per minute where streamed, never negative, gaps marked.
        let live = steps.filter { $0.metadata["bandkit.origin"] == "live" }
        let gaps = steps.filter { $0.metadata["bandkit.origin"] == "gap" }
        if steps.count != live.count + gaps.count { problems.append("step samples of another origin") }
        if steps.contains(where: { $0.quantity.value < 0 }) { problems.append("negative steps") }
        let liveByMinute = Dictionary(grouping: live, by: { ms($0.start) })
        if liveByMinute.values.contains(where: { $0.count > 1 }) { problems.append("a minute stored twice") }
        for minute in minutes where fullyStreamed(minute.start) {
            let stored = liveByMinute[minute.start]?.first?.quantity.value ?? 0
            if stored != Double(minute.steps) { problems.append("steps at \(minute.start): stored \(stored), watch \(minute.steps)") }
        }
        // Daily totals on the watch's local days (UTC+1), exact.
        func day(_ ms: PeerMilliseconds) -> Int64 { (ms + 3_600_000) / 86_400_000 }
        var storedDays: [Int64: Double] = [:], truthDays: [Int64: Double] = [:]
        for sample in steps where ms(sample.start) < cutoff { storedDays[day(ms(sample.start)), default: 0] += sample.quantity.value }
        for minute in minutes { truthDays[day(minute.start), default: 0] += Double(minute.steps) }
        if storedDays != truthDays { problems.append("daily totals: stored \(storedDays), watch \(truthDays)") }
        return problems
    }

    @Test func aDayCrossingLocalMidnightAReconnectWithinAMinuteAndARestartedReader() throws {
        // 23:56 at UTC+1; ×30: a simulated minute every 2 s.
        let start: PeerMilliseconds = 1_796_079_360_000
        let harness = try WatchHarness(start: start, speed: 30, clockErrorMs: -90_000)
        defer { harness.removeFiles() }
        let first = try harness.stream(until: start + 3 * Self.minute + 30_000)
        // A new reader at once (a restart): it reconnects within the same minute, crosses midnight connected.
        let second = try harness.stream(until: start + 9 * Self.minute)
        let truth = harness.stop()
        #expect(first.events.contains { if case .connected(_, .infinitime) = $0 { true } else { false } })
        #expect(first.events.contains { if case .clockSet = $0 { true } else { false } })
        let found = try problems(truth, harness, streaming: first.streaming + second.streaming)
        #expect(found == [], "\(found.prefix(12))")
        let (steps, _) = try harness.stored()
        #expect(steps.filter { $0.metadata["bandkit.origin"] == "gap" }.allSatisfy { $0.metadata["bandkit.steps.gap"] != nil })
        #expect(truth.contains { $0.stepsToday < $0.steps + 1 && $0.start > start + 3 * Self.minute }, "the watch's count restarted at midnight")
        // Nothing the watch does not measure.
        let store = try HealthStore(path: harness.storePath)
        #expect(try store.samples(HealthQuery(type: .distanceWalkingRunning), as: .owner).isEmpty)
        #expect(try store.samples(HealthQuery(type: .activeEnergyBurned), as: .owner).isEmpty)
    }

    @Test func anHourAwayIsOneGapSampleAndAWatchRebootIsNeitherLostNorNegative() throws {
        // 10:00 at UTC+1, ×60 (readings carry no time: the reader stamps them on arrival, and a
        // faster clock turns milliseconds of scheduling into misfiled seconds). The watch reboots
        // 67 minutes in, while the reader is connected.
        let start: PeerMilliseconds = 1_796_032_800_000
        let harness = try WatchHarness(start: start, speed: 60, reboots: [67 * Self.minute])
        defer { harness.removeFiles() }
        let first = try harness.stream(until: start + 3 * Self.minute)
        harness.wait(until: start + 63 * Self.minute)
        let second = try harness.stream(until: start + 72 * Self.minute)
        let truth = harness.stop()
        #expect(harness.watch.boot == 1)
        let found = try problems(truth, harness, streaming: first.streaming + second.streaming)
        #expect(found == [], "\(found.prefix(12))")
        let gaps = try harness.stored().steps.filter { $0.metadata["bandkit.origin"] == "gap" }
        let away = try #require(gaps.first { $0.metadata["bandkit.steps.gap"] == "away" }, "\(gaps.map(\.metadata))")
        #expect(away.end.timeIntervalSince(away.start) > 55 * 60, "one sample spans the hour away")
        // The reboot dropped the link: the reader came back on its own, and what the watch counted
        // since (a reboot gap, or deltas from 0 when it had counted nothing yet) is in the totals above.
        #expect(second.events.filter { if case .connected = $0 { true } else { false } }.count >= 2)
        #expect(gaps.allSatisfy { ["away", "reboot", "first-sight"].contains($0.metadata["bandkit.steps.gap"] ?? "") }, "\(gaps.map(\.metadata))")
    }

    /// A watch 60× faster than the reader's clock (`band stream --keep-band-clock` against an
    /// accelerated watch) crosses its midnight while connected: the reader re-reads its Current
    /// Time, so the steps after the watch's reset are filed on the watch's new day, once; the
    /// next connection's gap holds only what grew while away, not those steps a second time.
    @Test func aWatchWhoseClockRunsFastCountsNoStepTwiceAcrossItsMidnight() throws {
        // 23:50 at UTC+1.
        let start: PeerMilliseconds = 1_796_079_000_000
        let harness = try WatchHarness(start: start, speed: 60)
        defer { harness.removeFiles() }
        let first = try harness.stream(until: start + 16 * Self.minute, ownClock: .milliseconds(50))
        harness.wait(until: start + 21 * Self.minute)
        let second = try harness.stream(until: start + 26 * Self.minute, ownClock: .milliseconds(50))
        let truth = harness.stop()
        let found = try problems(truth, harness, streaming: first.streaming + second.streaming)
        #expect(found == [], "\(found.prefix(12))")
        let gaps = try harness.stored().steps.filter { $0.metadata["bandkit.origin"] == "gap" }
        #expect(!gaps.contains { $0.metadata["bandkit.steps.gap"] == "midnight" }, "\(gaps.map(\.metadata))")
    }

    /// The disk under the store fills while streaming (every write fails with SQLITE_FULL) and is
    /// freed minutes later: a watch has no history, so its live minutes go to the spool, the
    /// session keeps streaming on the same connection, and once there is room again the spool
    /// is replayed — the store ends up the watch's truth, as if the disk had never filled.
    @Test func aFullDiskWhileStreamingSpoolsTheWatchsMinutesUntilThereIsRoomAgain() throws {
        let vfs = PowerLossVFS.install()
        // 10:00 at UTC+1.
        let start: PeerMilliseconds = 1_796_032_800_000
        let harness = try WatchHarness(start: start, speed: 30)
        defer { vfs.diskFull(under: nil); harness.removeFiles() }
        let spoolDirectory = harness.directory + "/spool"
        var phase = 0   // 0: room, 1: the disk full, 2: room again
        let run = try harness.stream(until: start + 12 * Self.minute, configure: { service in
            service.spoolDirectory = spoolDirectory
            service.storeRetrySchedule = StoreRetrySchedule(initial: .milliseconds(100), maximum: .milliseconds(200), retries: 3)
        }, observe: { _ in
            let now = PeerMilliseconds(harness.now().timeIntervalSince1970 * 1000)
            if phase == 0, now >= start + 2 * Self.minute { vfs.diskFull(under: harness.directory); phase = 1 }
            if phase == 1, now >= start + 8 * Self.minute { vfs.diskFull(under: nil); phase = 2 }
        })
        let truth = harness.stop()
        #expect(phase == 2)
        #expect(run.outcome.spooledMinutes > 0, "live minutes went to the spool while the disk was full")
        #expect(run.outcome.replayedMinutes == run.outcome.spooledMinutes)
        #expect(run.events.contains { if case .storeUnavailable(let outage) = $0 { outage.reason.contains("full") } else { false } })
        #expect(run.events.filter { if case .connecting = $0 { true } else { false } }.count == 1, "one connection throughout")
        let found = try problems(truth, harness, streaming: run.streaming)
        #expect(found == [], "\(found.prefix(12))")
        let left = (try? FileManager.default.contentsOfDirectory(atPath: spoolDirectory)) ?? []
        #expect(!left.contains { $0.hasSuffix(".spool") }, "the spool was replayed and removed: \(left)")
    }
}
