import BandLink
import BandReader
import Foundation
import HealthModel
import HealthStore
import Testing

/// Every live reading is on disk when it is reported (``LiveJournal``): the files a kill leaves
/// behind at that moment hold it, and the next run stores it.
@Suite struct LiveJournalTests {
    func minute(_ offset: UInt32, readings: Int, part: Int64 = 7) -> LiveMinute {
        var minute = LiveMinute(start: 1_796_040_000 + offset * 60, utcOffsetSeconds: 0)
        for _ in 0..<readings { minute.heartRate.add(70) }
        minute.part = part
        return minute
    }

    @Test func theNextSessionMovesTheLatestStateOfEachMinuteIntoTheSpool() throws {
        let directory = NSTemporaryDirectory() + "bandkit-journal-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let spool = LiveSpool(path: directory + "/spool/b.spool")
        let journal = LiveJournal(beside: spool)
        for readings in 1...5 { try journal.append([.minute(minute(0, readings: readings))]) }
        try journal.append([.minute(minute(1, readings: 1)), .battery(percent: 80, time: 1)])
        try journal.append([.minute(minute(1, readings: 2)), .battery(percent: 79, time: 2)])
        // Killed here: the journal's lock goes with the process, its file stays.
        journal.close()
        let (moved, _) = try LiveJournal(beside: spool).drain()
        let expected: [SpoolEntry] = [.minute(minute(0, readings: 5)), .minute(minute(1, readings: 2)), .battery(percent: 79, time: 2)]
        #expect(moved.entries == expected)
        #expect(try spool.load().entries == expected)
        #expect(!FileManager.default.fileExists(atPath: journal.path), "drained once")
        #expect(try LiveJournal(beside: spool).drain().moved.entries.isEmpty)
    }

    @Test func aReplacementKeepsOnlyWhatIsUncommittedAndGrowthPastTheBoundCompacts() throws {
        let directory = NSTemporaryDirectory() + "bandkit-journal-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let spool = LiveSpool(path: directory + "/spool/b.spool")
        let journal = LiveJournal(beside: spool)
        journal.compactionSize = 4096
        for readings in 1...500 { try journal.append([.minute(minute(0, readings: readings))]) }
        let size = try #require((FileManager.default.attributesOfItem(atPath: journal.path)[.size] as? NSNumber)?.intValue)
        #expect(size <= 4096 + 200, "compacted as it grew: \(size) bytes")
        try journal.replace(with: [.minute(minute(1, readings: 3))])
        journal.close()
        #expect(try LiveJournal(beside: spool).drain().moved.entries == [.minute(minute(1, readings: 3))])
        try journal.replace(with: [])
        #expect(!FileManager.default.fileExists(atPath: journal.path))
    }

    /// Appends and replacements encode into the journal's one reused buffer: the file holds
    /// exactly the spool format's records, each batch's after the one before.
    @Test func theJournalsBytesAreTheSpoolsRecordsInOrder() throws {
        let directory = NSTemporaryDirectory() + "bandkit-journal-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let journal = LiveJournal(beside: LiveSpool(path: directory + "/b.spool"))
        let batches: [[SpoolEntry]] = [
            [.minute(minute(0, readings: 1))],
            (UInt32(1)...9).map { SpoolEntry.minute(minute($0, readings: Int($0))) },     // larger than the buffer at first
            [.battery(percent: 50, time: 3), .battery(percent: 49, time: 4)],
        ]
        var expected = SpoolFile.header
        for batch in batches {
            try journal.append(batch)
            expected += batch.flatMap(SpoolFile.encode)
            #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: journal.path))) == expected)
        }
        let kept: [SpoolEntry] = (UInt32(0)...9).map { SpoolEntry.minute(minute($0, readings: Int($0) + 1)) }
        try journal.replace(with: kept)
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: journal.path))) == SpoolFile.header + kept.flatMap(SpoolFile.encode))
    }

    /// A second reader of the same band (by mistake) neither moves nor writes the journal of a
    /// session still running: it is told who holds it. Once that session is over, it may.
    @Test func aSecondReaderOfTheBandLeavesARunningSessionsJournalAlone() throws {
        let directory = NSTemporaryDirectory() + "bandkit-journal-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let spool = LiveSpool(path: directory + "/spool/b.spool")
        let running = LiveJournal(beside: spool)
        try running.append([.minute(minute(0, readings: 3))])
        let second = LiveJournal(beside: spool)
        let held = LiveSpool.SpoolError(path: running.lockPath, reason: "another reader of this band holds the journal's lock; its journal is left to it")
        do {
            _ = try second.drain()
            Issue.record("drained a running session's journal")
        } catch { #expect(error == held) }
        do {
            try second.append([.minute(minute(1, readings: 1))])
            Issue.record("appended to a running session's journal")
        } catch { #expect(error == held) }
        do {
            try second.replace(with: [.minute(minute(1, readings: 1))])
            Issue.record("replaced a running session's journal")
        } catch { #expect(error == held) }
        try running.append([.minute(minute(0, readings: 4))])
        #expect(try spool.load().entries.isEmpty, "nothing moved")
        running.close()
        #expect(try second.drain().moved.entries == [.minute(minute(0, readings: 4))])
    }

    /// The files as a SIGKILL would leave them at the moment the 25th reading is reported (the
    /// store and the spool directory, copied from the session's own thread, so no transaction is
    /// half done), put back in place of the run's own, then a new run on them: the store holds
    /// all 25, and the new run's.
    @Test func theFilesAKillLeavesHoldEveryReadingReportedAndTheNextRunStoresThem() throws {
        let directory = NSTemporaryDirectory() + "bandkit-journal-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let killed = directory + "/killed"
        let address = try BandAddress(parsing: "C0:FF:EE:00:00:01")
        let files = FileManager.default
        try files.createDirectory(atPath: killed, withIntermediateDirectories: true)
        var readings = 0
        var copyError: (any Error)?
        // In its own scope, so the first run's store is closed before its files are put back.
        do {
            let first = try HeartRateStrap(period: .milliseconds(20))
            let service = BandReaderService(address: address, keystore: Keystore(path: directory + "/keys.json"),
                                            storePath: directory + "/health.sqlite", stop: StopRequest(), openLink: { _ in first.link },
                                            report: { event in
                guard case .reading = event else { return }
                readings += 1
                guard readings == 25 else { return }
                do {
                    for name in try files.contentsOfDirectory(atPath: directory) where name.hasPrefix("health.sqlite") || name == "spool" {
                        try files.copyItem(atPath: directory + "/" + name, toPath: killed + "/" + name)
                    }
                } catch { copyError = error }
            })
            service.spoolDirectory = directory + "/spool"
            _ = try service.stream(until: ContinuousClock.now.advanced(by: .milliseconds(1500)))
            first.stop()
        }
        #expect(copyError == nil)
        try #require(readings > 25)

        // The files back where they were, as the kill left them (the spool's name follows the store's path).
        for name in try files.contentsOfDirectory(atPath: directory) where name.hasPrefix("health.sqlite") || name == "spool" {
            try files.removeItem(atPath: directory + "/" + name)
        }
        for name in try files.contentsOfDirectory(atPath: killed) {
            try files.copyItem(atPath: killed + "/" + name, toPath: directory + "/" + name)
        }
        let second = try HeartRateStrap(period: .milliseconds(20))
        defer { second.stop() }
        var readingsAfter = 0
        let restarted = BandReaderService(address: address, keystore: Keystore(path: directory + "/keys.json"),
                                          storePath: directory + "/health.sqlite", stop: StopRequest(), openLink: { _ in second.link },
                                          report: { if case .reading = $0 { readingsAfter += 1 } })
        restarted.spoolDirectory = directory + "/spool"
        let outcome = try restarted.stream(until: ContinuousClock.now.advanced(by: .milliseconds(500)))
        #expect(outcome.replayedMinutes >= 1, "the killed run's minute replayed")
        let store = try HealthStore(path: directory + "/health.sqlite")
        let stored = try store.samples(HealthQuery(type: .heartRate), as: .owner).compactMap(\.quantitySample)
            .reduce(0) { $0 + (Int($1.metadata["bandkit.hr.count"] ?? "") ?? 0) }
        #expect(stored == 25 + readingsAfter, "every reading reported before the kill is stored, once")
    }

    /// A strap notifying as fast as the link carries (no pause between measurements): nothing
    /// queues in the reader (each notification is handled as it is read, so the socket's
    /// buffer is the only queue), the journal stays within its bound, and every reading
    /// reported is stored once.
    @Test func aFloodingStrapKeepsTheJournalBoundedAndEveryReading() throws {
        let directory = NSTemporaryDirectory() + "bandkit-journal-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let strap = try HeartRateStrap(period: .zero)
        defer { strap.stop() }
        let spoolDirectory = directory + "/spool"
        var readings = 0
        var largestJournal = 0
        let service = BandReaderService(address: try BandAddress(parsing: "C0:FF:EE:00:00:01"),
                                        keystore: Keystore(path: directory + "/keys.json"), storePath: directory + "/health.sqlite",
                                        stop: StopRequest(), openLink: { _ in strap.link }, report: { event in
            guard case .reading = event else { return }
            readings += 1
            guard readings % 50 == 0, let name = try? FileManager.default.contentsOfDirectory(atPath: spoolDirectory).first(where: { $0.hasSuffix(".journal") }),
                  let size = (try? FileManager.default.attributesOfItem(atPath: spoolDirectory + "/" + name))?[.size] as? NSNumber else { return }
            largestJournal = max(largestJournal, size.intValue)
        })
        service.spoolDirectory = spoolDirectory
        _ = try service.stream(until: ContinuousClock.now.advanced(by: .seconds(2)))
        try #require(readings >= 100, "a flood: \(readings) readings in 2 s")
        #expect(largestJournal > 0 && largestJournal <= LiveJournal(beside: LiveSpool(path: "/x")).compactionSize + 4096)
        let store = try HealthStore(path: directory + "/health.sqlite")
        let stored = try store.samples(HealthQuery(type: .heartRate), as: .owner).compactMap(\.quantitySample)
            .reduce(0) { $0 + (Int($1.metadata["bandkit.hr.count"] ?? "") ?? 0) }
        #expect(stored == readings)
    }
}
