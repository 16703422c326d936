import BandFirmware
import BandLink
import BandProtocol
import BandReader
import Foundation
import HealthModel
import HealthStore
import Synchronization
import Testing

/// The reader under faults: links cut at every point, reboots, lost and damaged notifications,
/// a wrong key. The store must end up equal to the band's truth, or untouched.
@Suite(.serialized) struct ReaderFaultTests {
    static let start = ReaderAgainstSimulatedBandTests.start

    func expectStoreMatchesTruth(_ fixture: ReaderFixture, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let store = try fixture.openStore()
        let truth = fixture.harness.truth
        let check = try TruthCheck(truth: truth, store: store)
        #expect(check.problems == [], sourceLocation: sourceLocation)
        #expect(try TruthCheck.dailyTotalProblems(truth: truth, store: store) == [], sourceLocation: sourceLocation)
        #expect(try TruthCheck.workoutProblems(truth: truth, store: store) == [], sourceLocation: sourceLocation)
    }

    @Test func syncSurvivesTheLinkBeingCutAfterEveryPDUTheBandSends() throws {
        let fixture = try ReaderFixture(ReaderAgainstSimulatedBandTests.configuration())
        _ = try #require(try fixture.service().pair())
        fixture.harness.pause()
        let attempts = Atomic<Int>(0)
        let harness = fixture.harness
        let service = BandReaderService(address: .simulator(path: "/harness"), keystore: fixture.keystore, storePath: fixture.storePath,
                                        stop: StopRequest(),
                                        openLink: { _ in
                                            // Connection n is cut after the band's n-th PDU: every phase, every packet.
                                            let n = attempts.add(1, ordering: .relaxed).newValue
                                            return CuttingBearer(try harness.openLink(), after: n)
                                        },
                                        report: { _ in })
        service.now = { harness.now }
        service.timeZone = TimeZone(identifier: "UTC")!
        service.backoff = ReconnectBackoff(initial: .microseconds(100), maximum: .microseconds(200), jitter: 0.5)
        let outcome = try service.sync(attempts: 1_000)
        #expect(outcome.historyMinutes >= 0)
        #expect(attempts.load(ordering: .relaxed) > 60, "the cuts reached through discovery, authentication and the transfer")
        try expectStoreMatchesTruth(fixture)
        let cursor = try SampleWriter(store: fixture.openStore(), deviceIdentifier: "BandKit/BK-1 (simulated)/" + (fixture.keystore.band("sim:/harness")?.device.serialNumber ?? ""),
                                      device: DeviceInfo()).cursor()
        #expect(cursor?.nextSequence == UInt32(fixture.harness.truth.count))
        // The day's walks and run, fetched over hundreds of cut connections, are one workout each
        // (expectStoreMatchesTruth compared them with the band's sessions).
        #expect(try fixture.openStore().workouts(as: .owner).count >= 4)
    }

    @Test func streamSurvivesADisconnectAndARebootAndLosesNoMinute() throws {
        var configuration = ReaderAgainstSimulatedBandTests.configuration(faults: [.disconnectAt(.seconds(240)), .rebootAt(.seconds(600))])
        configuration.seed = 23
        let fixture = try ReaderFixture(configuration)
        _ = try #require(try fixture.service().pair())
        _ = try fixture.service().stream(until: ContinuousClock.now.advanced(by: .seconds(3)))
        try fixture.settleAndSync()
        #expect(fixture.harness.log.contains { $0.contains("rebooted") }, "the band rebooted during the stream")
        let connects = fixture.events.filter { if case .connecting = $0 { true } else { false } }.count
        #expect(connects >= 4, "pair, stream, reconnect after the disconnect and after the reboot, final sync")
        try expectStoreMatchesTruth(fixture)
    }

    @Test func droppedAndCorruptedNotificationsNeverReachTheStore() throws {
        var configuration = ReaderAgainstSimulatedBandTests.configuration(faults: [.drop(0.01), .corrupt(0.01)])
        configuration.seed = 5
        let fixture = try ReaderFixture(configuration)
        _ = try #require(try fixture.service().pair())
        _ = try fixture.service().sync(attempts: 50)
        _ = try fixture.service().stream(until: ContinuousClock.now.advanced(by: .seconds(2)))
        try fixture.settleAndSync()
        let discarded = fixture.events.filter { if case .historyDiscarded = $0 { true } else { false } }.count
        #expect(discarded > 0, "some transfers were damaged and fetched again")
        try expectStoreMatchesTruth(fixture)
    }

    /// With 5 % of notifications carrying a flipped bit, no RR interval the
    /// store keeps is implausible and no minute's SDNN is absurd (before the plausibility rules:
    /// RR values of 32,893.6 ms and SDNN up to 5,575 ms).
    @Test func corruptedRRIntervalsNeverBecomeHRV() throws {
        var configuration = ReaderAgainstSimulatedBandTests.configuration(historyDays: 0, faults: [.corrupt(0.05)])
        configuration.seed = 17
        let fixture = try ReaderFixture(configuration)
        _ = try #require(try fixture.service().pair())
        _ = try fixture.service().stream(until: ContinuousClock.now.advanced(by: .seconds(3)))
        let store = try fixture.openStore()
        let hrv = try store.samples(HealthQuery(type: .heartRateVariabilitySDNN), as: .owner).compactMap(\.quantitySample)
        #expect(hrv.count >= 3, "the stream produced HRV minutes to check")
        let rejected = fixture.events.filter { if case .anomaly(let what) = $0 { what.hasPrefix("RR intervals not used") } else { false } }
        #expect(!rejected.isEmpty, "some damaged intervals were seen and excluded")
        for sample in hrv {
            let intervals = (sample.metadata[SampleWriter.MetadataKey.rrIntervals] ?? "").split(separator: ",").compactMap { Double($0) }
            #expect(!intervals.isEmpty)
            #expect(intervals.allSatisfy { (240...2000).contains($0) }, "implausible RR stored: \(intervals)")
            #expect(sample.quantity.value < 250, "absurd SDNN \(sample.quantity)")
        }
        let heartRates = try store.samples(HealthQuery(type: .heartRate), as: .owner).compactMap(\.quantitySample)
        for sample in heartRates {
            #expect((25...250).contains(sample.quantity.value), "implausible heart rate \(sample.quantity)")
        }
    }

    struct NoBand: Error {}

    /// What `band stream --for` needs to tell a quiet failure from a stream —
    /// connections made and minutes committed over every attempt, not only the last.
    @Test func streamCountsConnectionsAndCommittedMinutesAcrossAttempts() throws {
        let fixture = try ReaderFixture(ReaderAgainstSimulatedBandTests.configuration())
        _ = try #require(try fixture.service().pair())
        let dead = BandReaderService(address: .simulator(path: "/nowhere"), keystore: fixture.keystore, storePath: fixture.storePath,
                                     stop: StopRequest(), openLink: { _ in throw NoBand() }, report: { _ in })
        dead.backoff = ReconnectBackoff(initial: .milliseconds(5), maximum: .milliseconds(20), jitter: 0.5)
        let never = try dead.stream(until: ContinuousClock.now.advanced(by: .milliseconds(300)))
        #expect(never.attempts > 1)
        #expect(never.connections == 0)
        #expect(never.committedMinutes == 0)

        // Everything synced, the band's clock stopped: it connects and has nothing to give.
        fixture.harness.pause()
        _ = try fixture.service().sync()
        let idle = try fixture.service().stream(until: ContinuousClock.now.advanced(by: .milliseconds(300)))
        #expect(idle.connections >= 1)
        #expect(idle.committedMinutes == 0)

        let fresh = try ReaderFixture(ReaderAgainstSimulatedBandTests.configuration())
        _ = try #require(try fresh.service().pair())
        let streamed = try fresh.service().stream(until: ContinuousClock.now.advanced(by: .seconds(1)))
        #expect(streamed.connections >= 1)
        #expect(streamed.committedMinutes >= 1440, "a day of history at least")
    }

    /// An unusable store path fails before the band is touched, not after connecting,
    /// authenticating and writing the band's clock for nothing.
    @Test func unusableStoreFailsBeforeConnecting() throws {
        let fixture = try ReaderFixture(ReaderAgainstSimulatedBandTests.configuration())
        _ = try #require(try fixture.service().pair())
        let harness = fixture.harness
        // A store "inside" a regular file: no directory can be made there, whoever runs the test.
        let notADirectory = fixture.directory + "/not-a-directory"
        #expect(FileManager.default.createFile(atPath: notADirectory, contents: Data("x".utf8)))
        let badPath = notADirectory + "/store.sqlite"
        for goal in ["sync", "stream"] {
            let links = Atomic<Int>(0)
            let service = BandReaderService(address: .simulator(path: "/harness"), keystore: fixture.keystore, storePath: badPath,
                                            stop: StopRequest(),
                                            openLink: { _ in
                                                links.add(1, ordering: .relaxed)
                                                return try harness.openLink()
                                            },
                                            report: { _ in })
            do {
                if goal == "sync" { _ = try service.sync() } else { _ = try service.stream(until: ContinuousClock.now.advanced(by: .seconds(1))) }
                Issue.record("\(goal) with an unusable store succeeded")
            } catch {
                #expect(!error.isTransient, "\(goal): \(error)")
                #expect(error.description.contains(badPath), "\(goal): \(error)")
                // The store's own error is kept, typed, with the step, so a caller can tell a
                // transient failure from a bad path without parsing a message.
                guard case .store(let failure) = error else { Issue.record("\(goal): not a store error: \(error)"); continue }
                #expect(failure.step == .open(location: badPath) && failure.error != nil, "\(goal): \(failure)")
            }
            #expect(links.load(ordering: .relaxed) == 0, "\(goal) opened a link")
        }
    }

    @Test func wrongKeyIsRefusedReportedAndNothingIsWritten() throws {
        let fixture = try ReaderFixture(ReaderAgainstSimulatedBandTests.configuration())
        var band = try #require(try fixture.service().pair())
        band.key[0] ^= 0xFF
        try fixture.keystore.save(band)
        #expect(throws: SessionError.authenticationRefused(.wrongProof)) { try fixture.service().sync() }
        #expect(SessionError.authenticationRefused(.wrongProof).description.contains("pair again"))
        let store = try fixture.openStore()
        #expect(try store.samples(HealthQuery(type: .stepCount), as: .owner).isEmpty)
        #expect(try store.samples(HealthQuery(type: .heartRate), as: .owner).isEmpty)
    }

    /// A keystore that cannot be written is said to be the keystore (it was reported as
    /// "health store: keystore …"), and pairing fails without retrying.
    @Test func aKeystoreThatCannotBeWrittenIsNamedAsTheKeystore() throws {
        let fixture = try ReaderFixture(ReaderAgainstSimulatedBandTests.configuration(historyDays: 0))
        // A file where the keystore's directory belongs: saving the key cannot succeed, even as root.
        #expect(FileManager.default.createFile(atPath: fixture.directory + "/config", contents: Data()))
        let error = #expect(throws: SessionError.self) { try fixture.service().pair() }
        guard case .keystore(let why)? = error else {
            Issue.record("expected a keystore error, got \(String(describing: error))")
            return
        }
        #expect(why.hasPrefix("keystore ") && why.contains(fixture.directory))
        #expect(!"\(error!)".contains("health store"))
        #expect(error?.isTransient == false)
    }

    @Test func aBandThatRefusesPairingLeavesTheKeystoreWithoutAnEntry() throws {
        var configuration = ReaderAgainstSimulatedBandTests.configuration(historyDays: 0)
        configuration.confirmation = .deny
        let fixture = try ReaderFixture(configuration)
        #expect(throws: SessionError.authenticationRefused(.denied)) { try fixture.service().pair() }
        #expect(try fixture.keystore.band("sim:/harness") == nil)
        #expect(!fixture.events.contains { if case .paired = $0 { true } else { false } })
    }

    @Test func unpairedBandIsRefusedWithAClearError() throws {
        let fixture = try ReaderFixture(ReaderAgainstSimulatedBandTests.configuration(historyDays: 0))
        #expect(throws: SessionError.notPaired(address: "sim:/harness")) { try fixture.service().sync() }
    }

    @Test func readerSetsTheBandsZoneWithHalfHourOffsetAndItsDriftedClock() throws {
        var configuration = ReaderAgainstSimulatedBandTests.configuration(historyDays: 0, faults: [.clockDrift(100_000)])
        configuration.timeZoneQuarterHours = 0
        let fixture = try ReaderFixture(configuration)
        _ = try #require(try fixture.service().pair())
        // 10 % fast: after a band minute of run time the clock is 6 s ahead of true time.
        let later = fixture.harness.now.addingTimeInterval(120)
        #expect(fixture.harness.waitUntil { band in Double(band.trueTime.seconds) >= later.timeIntervalSince1970 })
        fixture.harness.pause()
        _ = try fixture.service(timeZone: TimeZone(identifier: "Asia/Kolkata")!).sync()
        let set = fixture.events.compactMap { event -> BandClockSetting? in if case .clockSet(let s) = event { s } else { nil } }
        #expect(set.count == 1)
        #expect(set.first?.timeZoneQuarterHours == 22)
        #expect(fixture.harness.waitUntil { band in band.clock.timeZone == 22 && band.clock.dstOffset == 0 })
        let skew = Atomic<Int64>(0)
        #expect(fixture.harness.waitUntil { band in
            skew.store(band.clock.now(at: band.trueTime).seconds - band.trueTime.seconds, ordering: .relaxed)
            return true
        })
        #expect(abs(skew.load(ordering: .relaxed)) <= 2, "the band's clock was brought back to true time")
    }
}
