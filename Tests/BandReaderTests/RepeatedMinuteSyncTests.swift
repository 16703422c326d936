import BandFirmware
import BandProtocol
import BandReader
import Foundation
import HealthStore
import Testing

/// The band records a minute twice when its clock or zone changes inside it (the minute in
/// progress is closed early, the rest recorded again under the same minute): the reader against
/// the simulated band, the store compared with the band's truth, both records of the minute kept.
@Suite(.serialized) struct RepeatedMinuteSyncTests {
    @Test func aZoneChangeInsideAWalkingMinuteLosesNeitherPartOfIt() throws {
        let fixture = try ReaderFixture(ReaderAgainstSimulatedBandTests.configuration(historyDays: 0))
        fixture.harness.pause()
        // 07:32:30 UTC, two minutes into the morning walk.
        fixture.harness.advance(to: ReaderAgainstSimulatedBandTests.start + .seconds(12 * 60 + 30))
        let paris = try #require(TimeZone(identifier: "Europe/Paris"))
        _ = try #require(try fixture.service(timeZone: paris).pair())
        _ = try fixture.service(timeZone: paris).sync(attempts: 5)
        fixture.harness.resume()
        _ = try fixture.service(timeZone: paris).stream(until: ContinuousClock.now.advanced(by: .seconds(1)))
        try fixture.settleAndSync()

        let truth = fixture.harness.truth
        let repeated = Dictionary(grouping: truth, by: \.minuteStart).values.filter { $0.count > 1 }
        #expect(!repeated.isEmpty, "the zone change closed a minute early and the band recorded it again")
        #expect(repeated.contains { records in records.allSatisfy { $0.steps > 0 } }, "both parts of a walking minute hold steps")
        let store = try fixture.openStore()
        let check = try TruthCheck(truth: truth, store: store)
        #expect(check.problems == [])
        #expect(check.minutesRecordedTwice == repeated.count)
        #expect(try TruthCheck.dailyTotalProblems(truth: truth, store: store) == [])
        #expect(try TruthCheck.workoutProblems(truth: truth, store: store) == [])
    }
}
