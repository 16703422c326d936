import BandFirmware
import BandLink
import BandProtocol
import BandReader
import Foundation
import HealthModel
import HealthStore
import Testing

/// The reader against the simulated band, in process: pair, sync, stream, sync again, and the
/// store must hold exactly the band's minutes.
@Suite(.serialized) struct ReaderAgainstSimulatedBandTests {
    /// 2026-11-30T07:20:00Z, a Monday morning just before the walk to work (07:30): the
    /// backfilled day covers Sunday's scenario, the stream catches the walk live.
    static let start = BandInstant(seconds: 1_796_023_200)

    static func configuration(historyDays: Int = 1, faults: [FaultSpec] = [], seed: UInt64 = 11) -> BandConfiguration {
        var configuration = BandConfiguration(start: start)
        configuration.seed = seed
        configuration.historyDays = historyDays
        configuration.faults = faults
        configuration.deterministicSecrets = true
        return configuration
    }

    func expectStoreMatchesTruth(_ fixture: ReaderFixture, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let store = try fixture.openStore()
        let truth = fixture.harness.truth
        let check = try TruthCheck(truth: truth, store: store)
        #expect(check.problems == [], sourceLocation: sourceLocation)
        #expect(check.minutesCompared == truth.count, sourceLocation: sourceLocation)
        let dailyTotals = try TruthCheck.dailyTotalProblems(truth: truth, store: store)
        #expect(dailyTotals == [], sourceLocation: sourceLocation)
        #expect(try TruthCheck.workoutProblems(truth: truth, store: store) == [], sourceLocation: sourceLocation)
    }

    @Test func pairSyncStreamAndSyncAgainStoresEveryRecordedMinuteExactlyOnce() throws {
        let fixture = try ReaderFixture(Self.configuration())
        let paired = try #require(try fixture.service().pair())
        #expect(try fixture.keystore.band("sim:/harness") == paired)

        let synced = try fixture.service().sync()
        #expect(synced.historyMinutes >= 1440)
        let outcome = try fixture.service().stream(until: ContinuousClock.now.advanced(by: .seconds(2)))
        #expect(outcome.liveMinutes > 0, "the stream stored provisional minutes")
        // Let the band close the minutes the stream ended in, then sync them.
        try fixture.settleAndSync()
        try expectStoreMatchesTruth(fixture)
        let readings = fixture.events.compactMap { event -> LiveReading? in if case .reading(let r) = event { r } else { nil } }
        #expect(readings.contains { $0.heartRate != nil && !$0.rrMilliseconds.isEmpty })
        #expect(readings.contains { $0.stepsToday != nil })
    }

    @Test func longStreamSyncsHistoryAsItGoesSoRecordsReplaceLiveMinutesWithoutReconnecting() throws {
        let fixture = try ReaderFixture(Self.configuration(historyDays: 0))
        _ = try #require(try fixture.service().pair())
        let service = fixture.service()
        service.historySyncInterval = .milliseconds(400)
        let outcome = try service.stream(until: ContinuousClock.now.advanced(by: .seconds(3)))
        let events = fixture.events
        let streamingAt = try #require(events.firstIndex { if case .streaming = $0 { true } else { false } })
        let commitsWhileStreaming = events[streamingAt...].filter { event in
            if case .historyCommitted(let minutes, _, _) = event { minutes > 0 } else { false }
        }.count
        #expect(commitsWhileStreaming >= 2, "history synced during the stream, not only at its end")
        let connects = events.filter { if case .connecting = $0 { true } else { false } }.count
        #expect(connects == 2, "pair and one stream connection")
        #expect(outcome.historyMinutes > 0)
        try fixture.settleAndSync()
        try expectStoreMatchesTruth(fixture)
    }
}
