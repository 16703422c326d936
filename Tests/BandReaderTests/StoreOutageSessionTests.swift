import BandReader
import CSQLite
import Foundation
import HealthModel
import HealthStore
import Testing

/// ``BandSession`` performing the outage decisions of ``SessionMachine`` against the simulated
/// band and a real SQLite store, where the machine's scripted conversations
/// (``StoreOutageMachineTests``) cannot reach: that the minutes are really written to the spool
/// file, and replayed from it by the next run.
@Suite(.serialized) struct StoreOutageSessionTests {
    /// Another connection holding the store's write lock (`BEGIN IMMEDIATE`): the reader's next
    /// write waits out SQLite's busy timeout and fails with SQLITE_BUSY, a transient store failure.
    final class WriteLock {
        private var database: OpaquePointer?

        init(path: String) throws {
            guard sqlite3_open_v2(path, &database, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else {
                throw HealthStoreError.misuse("cannot open \(path) to lock it")
            }
            sqlite3_busy_timeout(database, 10_000)
            guard sqlite3_exec(database, "BEGIN IMMEDIATE", nil, nil, nil) == SQLITE_OK else {
                let message = String(cString: sqlite3_errmsg(database))
                sqlite3_close(database)
                database = nil
                throw HealthStoreError.misuse("cannot lock \(path): \(message)")
            }
        }

        func release() {
            guard let database else { return }
            sqlite3_exec(database, "ROLLBACK", nil, nil, nil)
            sqlite3_close(database)
            self.database = nil
        }

        deinit { release() }
    }

    /// What the test does at the session's steps, seen from its report callback (the session's thread).
    final class Script {
        let fixture: ReaderFixture
        var streaming = false
        var lock: WriteLock?
        var lockError: (any Error)?

        init(_ fixture: ReaderFixture) { self.fixture = fixture }

        func observe(_ event: ReaderEvent) {
            switch event {
            case .streaming:
                streaming = true
            case .historyTransferStarted where streaming:
                // The deadline's sync (the only one while streaming: no periodic sync). The live
                // stream is still routed during it: let the band send a couple of minutes of
                // readings, which the sync's wait for the transfer routes into the stream.
                let target = fixture.harness.now.addingTimeInterval(120)
                _ = fixture.harness.waitUntil(timeout: .seconds(60)) { band in Double(band.trueTime.seconds) >= target.timeIntervalSince1970 }
            case .historyComplete where streaming && lock == nil:
                // The sync's commit and acknowledgement are done; its final write (`.closeLive`) comes next.
                do { lock = try WriteLock(path: fixture.storePath) } catch { lockError = error }
            default:
                break
            }
        }
    }

    @Test func theStoreFailingDuringTheDeadlinesFinalWriteSpoolsTheLiveMinutesAndTheNextRunReplaysThem() throws {
        let fixture = try ReaderFixture(ReaderAgainstSimulatedBandTests.configuration(historyDays: 0))
        _ = try #require(try fixture.service().pair())
        let spoolDirectory = fixture.directory + "/spool"
        let script = Script(fixture)
        let service = fixture.service(observe: script.observe)
        service.spoolDirectory = spoolDirectory
        service.historySyncInterval = nil
        let before = fixture.events.count
        let outcome = try service.stream(until: ContinuousClock.now.advanced(by: .seconds(2)))
        defer { script.lock?.release() }
        #expect(script.lockError == nil)
        try #require(script.lock != nil, "the deadline's sync completed while streaming")

        let events = Array(fixture.events[before...])
        // One connection: the failed write did not end the session (without the spool it would
        // have thrown, and the service would have reconnected).
        #expect(events.filter { if case .connecting = $0 { true } else { false } }.count == 1)
        #expect(!events.contains { if case .disconnected = $0 { true } else { false } })
        let complete = try #require(events.lastIndex { if case .historyComplete = $0 { true } else { false } })
        let outages = events[complete...].compactMap { if case .storeUnavailable(let outage) = $0 { outage } else { nil } }
        #expect(outages.count == 1, "the late spool is reported once")
        #expect(outages.first.map { $0.spooledMinutes > 0 } == true)
        #expect(outcome.spooledMinutes > 0, "the readings received during the deadline's sync were spooled")
        #expect(outcome.storeUnavailable?.contains("locked") == true || outcome.storeUnavailable?.contains("busy") == true,
                "\(outcome.storeUnavailable ?? "nil")")

        // They are in the spool file, as minutes.
        let files = try FileManager.default.contentsOfDirectory(atPath: spoolDirectory).filter { $0.hasSuffix(".spool") }
        #expect(files.count == 1, "\(files)")
        let spool = LiveSpool(path: spoolDirectory + "/" + (files.first ?? ""))
        let contents = try spool.load()
        #expect(contents.isClean)
        #expect(contents.minuteCount == outcome.spooledMinutes)

        // The store is back: the next run replays them before its sync, and removes the spool.
        script.lock?.release()
        let next = fixture.service()
        next.spoolDirectory = spoolDirectory
        let synced = try next.sync()
        #expect(synced.replayedMinutes == outcome.spooledMinutes)
        #expect(synced.storeUnavailable == nil)
        #expect(!FileManager.default.fileExists(atPath: spool.path))
    }
}
