import BandReader
import Foundation
import HealthStore
import Synchronization
import Testing

/// A gateway's session (`streamOnce`) for a device that connects while the store cannot be
/// opened: the session goes on with the spool, history unacknowledged on the band, and the
/// store gets everything once it can be opened.
@Suite(.serialized) struct StoreUnreachableAtStartTests {
    /// What the test does at the session's steps (on the session's thread).
    final class Script: @unchecked Sendable {
        let storePath: String
        let stop: StopRequest
        var outages: [StoreOutage] = []
        var storeBack = false
        var available = 0
        var committedAfterReturn = 0

        init(storePath: String, stop: StopRequest) {
            self.storePath = storePath
            self.stop = stop
        }

        func observe(_ event: ReaderEvent) {
            switch event {
            case .storeUnavailable(let outage):
                outages.append(outage)
                if !storeBack, outage.spooledMinutes >= 2 {
                    // Live minutes are in the spool: the store comes back (the directory
                    // standing where the store file belongs goes).
                    try? FileManager.default.removeItem(atPath: storePath)
                    storeBack = true
                }
            case .storeAvailable:
                available += 1
            case .historyCommitted(let minutes, _, _) where available > 0:
                committedAfterReturn += minutes
                stop.requestFinish()
            default:
                break
            }
        }
    }

    @Test func aDeviceThatConnectsWhileTheStoreCannotBeOpenedLosesNothing() throws {
        let fixture = try ReaderFixture(ReaderAgainstSimulatedBandTests.configuration(historyDays: 1))
        _ = try #require(try fixture.service().pair())
        // A directory where the store file belongs: the open fails ("is not a regular file")
        // as for a store whose disk is not mounted yet; root cannot open it either.
        try FileManager.default.createDirectory(atPath: fixture.storePath, withIntermediateDirectories: false)
        let stop = StopRequest()
        let script = Script(storePath: fixture.storePath, stop: stop)
        let service = fixture.service(stop: stop, observe: script.observe)
        service.spoolDirectory = fixture.directory + "/spool"
        service.historySyncInterval = nil
        service.storeRetrySchedule = StoreRetrySchedule(initial: .milliseconds(50), maximum: .milliseconds(200), retries: 9)
        let before = fixture.events.count

        let outcome = try service.streamOnce(attempt: 1)

        let events = Array(fixture.events[before...])
        #expect(script.storeBack, "live minutes were spooled while the store could not be opened")
        #expect(script.outages.first?.reason.contains("not a regular file") == true, "\(script.outages.first?.reason ?? "no outage")")
        #expect(script.outages.first?.historyDeferred == true, "the band's history waits for the store, unacknowledged")
        #expect(script.available == 1)
        #expect(outcome.storeUnavailable == nil)
        #expect(outcome.spooledMinutes > 0)
        #expect(outcome.replayedMinutes == outcome.spooledMinutes)
        #expect(script.committedAfterReturn >= 1440, "the owed sync stored the band's day of history once the store opened")
        // The owed sync did not subscribe the live stream a second time.
        #expect(events.filter { if case .streaming = $0 { true } else { false } }.count == 1)
        #expect(!FileManager.default.fileExists(atPath: service.spoolDirectory! + "/" + LiveSpool.fileName(band: "sim:/harness", store: fixture.storePath)))

        try fixture.settleAndSync()
        try ReaderAgainstSimulatedBandTests().expectStoreMatchesTruth(fixture)
    }
}
