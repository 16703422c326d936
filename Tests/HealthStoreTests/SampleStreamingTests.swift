import Foundation
import HealthModel
import HealthStore
import HealthTestSupport
import Testing

/// The export stream (`forEachSample`, `forEachWorkout`): keyset pages of a bounded size must hand
/// over exactly the rows a whole-result query returns, in the same order, across page edges that
/// fall between rows sharing a start time. Runs on SQLite here and on PostgreSQL in
/// Tests/checks/postgres.sh.
@Suite struct SampleStreamingTests {
    let temp: TemporaryStore
    init() throws { temp = try TemporaryStore() }

    /// Eleven step samples, three pairs of them starting at the same instant (from two sources), so
    /// a page of 2 or 3 ends between rows that tie on start time.
    func fillSteps() throws {
        try temp.store.allow(band, [.quantity(.stepCount)])
        try temp.store.allow(watch, [.quantity(.stepCount)])
        let starts = ["08:00", "08:01", "08:01", "08:02", "08:03", "08:03", "08:04", "08:05", "08:05", "08:06", "08:07"]
        for (index, start) in starts.enumerated() {
            let app = index.isMultiple(of: 2) ? band : watch
            try temp.store.write(as: app) { tx in
                try tx.save(steps(Double(index + 1), "2026-11-30T\(start):00Z", "2026-11-30T\(start):30Z"))
            }
        }
    }

    func streamed(_ query: HealthQuery, pageSize: Int) throws -> [UUID] {
        var ids: [UUID] = []
        try temp.store.forEachSample(query, as: band, pageSize: pageSize) { ids.append($0.id) }
        return ids
    }

    @Test(arguments: [1, 2, 3, 4, 11, 12, 2_048])
    func everyPageSizeHandsOverTheWholeResultInOrder(pageSize: Int) throws {
        try fillSteps()
        let whole = try temp.store.samples(HealthQuery(type: .stepCount), as: band).map(\.id)
        #expect(whole.count == 11)
        #expect(try streamed(HealthQuery(type: .stepCount), pageSize: pageSize) == whole)
    }

    @Test func aRangeAndALimitHoldAcrossPages() throws {
        try fillSteps()
        let range = at("2026-11-30T08:01:15Z")..<at("2026-11-30T08:05:00Z")
        let whole = try temp.store.samples(HealthQuery(type: .stepCount, range: range), as: band).map(\.id)
        #expect(whole.count == 6)  // 08:01 ×2 (overlapping), 08:02, 08:03 ×2, 08:04
        #expect(try streamed(HealthQuery(type: .stepCount, range: range), pageSize: 2) == whole)
        let firstFive = try temp.store.samples(HealthQuery(type: .stepCount, limit: 5), as: band).map(\.id)
        #expect(try streamed(HealthQuery(type: .stepCount, limit: 5), pageSize: 2) == firstFive)
        #expect(try streamed(HealthQuery(type: .stepCount, limit: 0), pageSize: 2).isEmpty)
    }

    @Test func sourcesTheReaderMayNotSeeStayOut() throws {
        try fillSteps()
        try temp.store.setAuthorization(app: band.id, type: SampleType.quantity(.stepCount).identifier, access: .read, granted: false)
        let whole = try temp.store.samples(HealthQuery(type: .stepCount), as: band).map(\.id)
        #expect(whole.count == 6)  // only band's own
        #expect(try streamed(HealthQuery(type: .stepCount), pageSize: 2) == whole)
    }

    @Test func workoutsStreamAcrossPagesLikeTheWholeList() throws {
        try temp.store.allow(band, [.workout])
        let starts = ["07:00", "08:00", "08:00", "09:00", "10:00"]
        try temp.store.write(as: band) { tx in
            for start in starts {
                try tx.save(Workout(activity: .running, start: at("2026-11-30T\(start):00Z"), end: at("2026-11-30T\(start):00Z").addingTimeInterval(20 * 60)))
            }
        }
        let whole = try temp.store.workouts(as: band).map(\.id)
        #expect(whole.count == 5)
        for pageSize in [1, 2, 5, 6] {
            var ids: [UUID] = []
            try temp.store.forEachWorkout(as: band, pageSize: pageSize) { ids.append($0.id) }
            #expect(ids == whole, "page size \(pageSize)")
        }
        var inRange: [UUID] = []
        let range = at("2026-11-30T08:10:00Z")..<at("2026-11-30T09:30:00Z")
        try temp.store.forEachWorkout(in: range, as: band, pageSize: 1) { inRange.append($0.id) }
        #expect(inRange == (try temp.store.workouts(in: range, as: band).map(\.id)))
        #expect(inRange.count == 3)  // the two at 08:00 (to 08:20) and the one at 09:00
    }
}
