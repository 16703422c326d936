import BandReader
import Foundation
import HealthModel
import HealthStore
import Testing

/// Every committed batch is timed (``ReaderEvent/storeWrite(_:)``, `store_write` in `band --json`):
/// the load bench (bench/postgres/load.sh) takes its commit latencies and rows from these events,
/// so each history commit and each live write must report one, with the rows it wrote.
@Suite(.serialized) struct StoreWriteTimingTests {
    func timings(_ events: [ReaderEvent]) -> [StoreWriteTiming] {
        events.compactMap { if case .storeWrite(let timing) = $0 { timing } else { nil } }
    }

    @Test func everyHistoryCommitAndLiveWriteReportsItsRowsAndDuration() throws {
        let fixture = try ReaderFixture(ReaderAgainstSimulatedBandTests.configuration())
        _ = try #require(try fixture.service().pair())
        let synced = try fixture.service().sync()
        let afterSync = fixture.events
        let commits = afterSync.filter { if case .historyCommitted = $0 { true } else { false } }.count
        let history = timings(afterSync).filter { $0.batch == .history }
        #expect(commits > 0 && history.count == commits, "one timing per history commit: \(history.count) of \(commits)")
        #expect(timings(afterSync).allSatisfy { $0.batch == .history }, "a sync writes no live minutes")
        // Steps, distance and energy for every minute at least, all new to the store.
        #expect(history.reduce(0) { $0 + $1.rows } >= 3 * synced.historyMinutes)
        #expect(history.allSatisfy { $0.duration > .zero })

        let streamed = try fixture.service().stream(until: ContinuousClock.now.advanced(by: .seconds(2)))
        let live = timings(Array(fixture.events.dropFirst(afterSync.count))).filter { $0.batch == .live }
        let stored = fixture.events.dropFirst(afterSync.count).reduce(0) { total, event in
            if case .liveMinutesStored(let count) = event { total + count } else { total }
        }
        #expect(streamed.liveMinutes > 0 && stored > 0, "the stream stored provisional minutes")
        #expect(!live.isEmpty && live.reduce(0) { $0 + $1.rows } >= stored, "each live minute wrote at least its steps")
        #expect(live.allSatisfy { $0.duration > .zero })
    }
}
