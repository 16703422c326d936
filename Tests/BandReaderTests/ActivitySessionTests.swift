import BandProtocol
import BandReader
import Foundation
import HealthModel
import HealthStore
import Testing

/// The band's walk and run sessions (minute-record byte 15 and flag bit 4) become workouts:
/// the tracker's decisions on record sequences, and the writer's workouts in the store.
@Suite("Activity sessions become workouts")
struct ActivitySessionTests {
    static let minute: UInt32 = 1_796_032_800   // 2026-11-30T11:20:00Z

    /// One record per letter: `.` none, `w`/`r` walking/running continuing, `W`/`R` a session start.
    /// Steps 100 walking, 160 running; distance and energy follow; HR 100 + index (max + 10).
    static func records(_ pattern: String, from first: UInt32 = 0) -> [MinuteRecord] {
        pattern.enumerated().map { index, letter in
            let activity: MinuteActivity = "wW".contains(letter) ? .walking : "rR".contains(letter) ? .running : .none
            let steps: UInt16 = activity == .walking ? 100 : activity == .running ? 160 : 3
            let hr = UInt8(100 + index % 50)
            return MinuteRecord(minuteStart: minute + (first + UInt32(index)) * 60, utcOffset: LocalTimeOffset(quarterHours: 4),
                                flags: letter.isUppercase ? [.worn, .sessionStart] : [.worn], steps: steps,
                                distanceDecimetres: steps * 8, energyDecikilocalories: steps / 2,
                                heartRate: HeartRateSummary(average: hr, minimum: hr - 5, maximum: hr + 10), activity: activity)
        }
    }

    static func closed(_ records: [MinuteRecord], open: ActivitySession? = nil) -> (closed: [ActivitySession], open: ActivitySession?) {
        var tracker = ActivitySessionTracker(open: open)
        let closed = records.compactMap { tracker.add($0) }
        return (closed, tracker.open)
    }

    // MARK: Tracker decisions

    @Test("A walk then straight into a run: two sessions, each with its own totals; the minutes around them are none")
    func walkThenRun() {
        let (closed, open) = Self.closed(Self.records("..WwwRrrr.."))
        #expect(open == nil)
        #expect(closed.map(\.activity) == [.walking, .running])
        let walk = closed[0], run = closed[1]
        #expect(walk.start == Self.minute + 120 && walk.end == Self.minute + 300 && walk.minutes == 3 && walk.origin == .band)
        #expect(walk.steps == 300 && walk.distanceDecimetres == 2400 && walk.energyDecikilocalories == 150)
        #expect(run.start == Self.minute + 300 && run.end == Self.minute + 540 && run.steps == 640)
        // HR 105…108 in the run: mean of the minute averages, highest minute maximum.
        #expect(run.heartRateAverage == 106.5 && run.heartRateMaximum == 118)
    }

    @Test("The start flag splits two back-to-back walks; a session still running at the end stays open")
    func startFlagSplitsAndOpenStays() {
        let (closed, open) = Self.closed(Self.records(".WwWww"))
        #expect(closed.count == 1 && closed[0].minutes == 2)
        #expect(open?.start == Self.minute + 180 && open?.minutes == 3)
    }

    @Test("A session split across two batches is one session with the totals of both")
    func splitAcrossBatches() {
        let all = Self.records(".Wwwwww.")
        let first = Self.closed(Array(all[..<4]))
        #expect(first.closed.isEmpty && first.open?.minutes == 3)
        let second = Self.closed(Array(all[4...]), open: first.open)
        let whole = Self.closed(all)
        #expect(second.closed == whole.closed && second.closed.count == 1 && second.closed[0].minutes == 6)
    }

    @Test("More than 10 minutes between a session's records (records lost): the session closes at its last minute")
    func gapCloses() {
        let records = Self.records(".Ww") + Self.records("ww.", from: 20)
        let (closed, open) = Self.closed(records)
        #expect(closed.count == 2)
        #expect(closed[0].end == Self.minute + 180 && closed[0].origin == .band)
        #expect(closed[1].start == Self.minute + 1200 && closed[1].origin == .firstSyncedMinute, "the second part's start was never seen")
        #expect(open == nil)
    }

    @Test("A first record that continues a session whose start was erased opens one there, marked as such")
    func startNeverSeen() {
        let (closed, _) = Self.closed(Self.records("rrr."))
        #expect(closed.count == 1 && closed[0].origin == .firstSyncedMinute && closed[0].start == Self.minute)
    }

    @Test("A walk longer than 24 hours is cut into day-long workouts the store accepts, the next marked as such")
    func dayLongWalkIsCut() {
        let records = Self.records("W" + String(repeating: "w", count: 1440 + 99) + ".")
        let (closed, open) = Self.closed(records)
        #expect(open == nil)
        #expect(closed.map(\.minutes) == [1440, 100])
        #expect(closed[0].end - closed[0].start == ActivitySessionTracker.maximumSeconds && closed[0].origin == .band)
        #expect(closed[1].start == closed[0].end && closed[1].origin == .afterMaximumLength)
    }

    @Test("Old band (byte 15 = 0 everywhere): no sessions")
    func oldBand() {
        #expect(Self.closed(Self.records("..........")).closed.isEmpty)
    }

    // MARK: Writer

    typealias TemporaryStore = SampleWriterTests.TemporaryStore

    static let device = "BandKit/B1/SN1"

    func writer(_ temporary: TemporaryStore) throws -> SampleWriter {
        try SampleWriter(store: temporary.store, deviceIdentifier: Self.device, device: DeviceInfo(name: "Band", hardwareIdentifier: "SN1"))
    }

    func workouts(_ temporary: TemporaryStore) throws -> [Workout] {
        try temporary.store.workouts(as: .owner).sorted { $0.start < $1.start }
    }

    @Test("Closed sessions are stored as walking and running workouts with the records' totals and a stable sync identifier")
    func storedWorkouts() throws {
        let temporary = try TemporaryStore()
        let write = try writer(temporary).commitHistory(Self.records("..WwwRrrr.."), cursor: HistoryCursor(historyID: 1, nextSequence: 11))
        #expect(write.workouts == 2)
        let stored = try workouts(temporary)
        #expect(stored.map(\.activity) == [.walking, .running])
        let run = stored[1]
        #expect(run.start == Date(timeIntervalSince1970: TimeInterval(Self.minute + 300)) && run.duration == 240)
        #expect(try run.totalDistance?.value(in: .meter) == 512)
        #expect(try run.totalEnergyBurned?.value(in: .kilocalorie) == 32)
        #expect(run.source?.id == "bandkit.band" && run.device?.hardwareIdentifier == "SN1")
        #expect(run.metadata["HKMetadataKeySyncIdentifier"] == "\(Self.device)|workout|\(Self.minute + 300)")
        #expect(run.metadata["bandkit.steps"] == "640" && run.metadata["bandkit.hr.max"] == "118" && run.metadata["bandkit.hr.avg"] == "106.5")
        #expect(run.metadata["bandkit.session.start"] == "band")
        // Heart rate from the samples inside the workout (health workouts): the same minutes.
        let statistics = try temporary.store.statistics(of: run, as: .owner)
        #expect(statistics.averageHeartRate == 106.5 && statistics.maximumHeartRate == 108)
    }

    @Test("Re-syncing the same records (a store that starts again from 0) adds no workout twice")
    func resyncNoDuplicate() throws {
        let temporary = try TemporaryStore()
        let writer = try writer(temporary)
        let batch = Self.records("..WwwRrrr..")
        try writer.commitHistory(batch, cursor: HistoryCursor(historyID: 1, nextSequence: 11))
        let again = try writer.commitHistory(batch, cursor: HistoryCursor(historyID: 1, nextSequence: 11))
        #expect(again.workouts == 0)
        #expect(try workouts(temporary).count == 2)
    }

    @Test("A session crossing two syncs is one workout, written when it closes, with the totals of both parts")
    func sessionAcrossTwoSyncs() throws {
        let temporary = try TemporaryStore()
        let writer = try writer(temporary)
        let all = Self.records(".Wwwwww.")
        let first = HistoryCursor(historyID: 7, nextSequence: 4)
        #expect(try writer.commitHistory(Array(all[..<4]), cursor: first).workouts == 0)
        #expect(try workouts(temporary).isEmpty, "an open session is not written")
        let second = try writer.commitHistory(Array(all[4...]), cursor: HistoryCursor(historyID: 7, nextSequence: 8), previous: first)
        #expect(second.workouts == 1)
        let stored = try workouts(temporary)
        #expect(stored.count == 1 && stored[0].duration == 360)
        #expect(try stored[0].totalDistance?.value(in: .meter) == 480)
        #expect(stored[0].metadata["bandkit.steps"] == "600")
    }

    @Test("An open session stored at another history position (the band was wiped, the reader restarts from 0) is dropped, not added to")
    func openSessionFromElsewhereIsDropped() throws {
        let temporary = try TemporaryStore()
        let writer = try writer(temporary)
        try writer.commitHistory(Self.records(".Www"), cursor: HistoryCursor(historyID: 7, nextSequence: 4))
        // A new history (another ID) starting over: its own walk, nothing of the old one.
        let fresh = HistoryCursor(historyID: 9, nextSequence: 0)
        try writer.commitHistory(Self.records("..Ww.", from: 100), cursor: HistoryCursor(historyID: 9, nextSequence: 5), previous: fresh)
        let stored = try workouts(temporary)
        #expect(stored.count == 1 && stored[0].metadata["bandkit.steps"] == "200")
    }

    @Test("The open session's stored text round-trips; damaged text is ignored, never trusted")
    func storedText() throws {
        let temporary = try TemporaryStore()
        let writer = try writer(temporary)
        let cursor = HistoryCursor(historyID: 0xAB, nextSequence: 4)
        try writer.commitHistory(Self.records(".Www"), cursor: cursor)
        let key = WorkoutWriter.key(device: Self.device)
        let text = try #require(try temporary.store.appState(app: SampleWriter.app.id, key: key))
        #expect(text.hasPrefix("v1 000000ab 4 1 \(Self.minute + 60) \(Self.minute + 180) 4 1 3 300 2400 150 3 "))
        // Totals no number of minutes can reach (they would overflow later sums) are damage too.
        #expect(ActivitySession.parse(stored: "v1 000000ab 4 1 \(Self.minute) \(Self.minute + 60) 4 1 2 18446744073709551615 0 0 0 0 0") == nil)
        // Damaged: the continuation is dropped and the next batch's records stand alone.
        try temporary.store.write(as: SampleWriter.app) { try $0.setAppState(key, "v1 000000ab 4 1 garbage") }
        try writer.commitHistory(Self.records("ww.", from: 4), cursor: HistoryCursor(historyID: 0xAB, nextSequence: 7), previous: cursor)
        let stored = try workouts(temporary)
        #expect(stored.count == 1 && stored[0].metadata["bandkit.session.start"] == "first-synced-minute")
        #expect(try temporary.store.appState(app: SampleWriter.app.id, key: key) == nil, "no session is open after the last none minute")
    }

    @Test("Absurd minutes (the most energy and distance a record can carry, for a day) still make a workout, without the totals the store refuses, and the sync goes on")
    func absurdTotalsDoNotStopTheSync() throws {
        let temporary = try TemporaryStore()
        let records = (0..<1441).map { index in
            MinuteRecord(minuteStart: Self.minute + UInt32(index) * 60, utcOffset: .utc, flags: index == 0 ? [.worn, .sessionStart] : [.worn],
                         steps: 60_000, distanceDecimetres: 65_535, energyDecikilocalories: 65_535, heartRate: nil,
                         activity: index == 1440 ? .none : .running)
        }
        let write = try writer(temporary).commitHistory(records, cursor: HistoryCursor(historyID: 1, nextSequence: 1441))
        #expect(write.workouts == 1 && write.minutes == 1441)
        let stored = try #require(try workouts(temporary).first)
        #expect(stored.totalEnergyBurned == nil && stored.totalDistance == nil)
        #expect(stored.metadata["bandkit.session.implausible"] == "energy 9437040.0 kcal, distance 9437040.0 m")
    }

    @Test("A band activity this reader has no type for is stored as other, with the byte kept")
    func unknownActivity() throws {
        let temporary = try TemporaryStore()
        let records = [MinuteRecord(minuteStart: Self.minute, utcOffset: .utc, flags: [.worn, .sessionStart], steps: 50, distanceDecimetres: 0,
                                    energyDecikilocalories: 40, heartRate: nil, activity: MinuteActivity(rawValue: 7)),
                       MinuteRecord(minuteStart: Self.minute + 60, utcOffset: .utc, flags: [.worn], steps: 0, distanceDecimetres: 0,
                                    energyDecikilocalories: 0, heartRate: nil)]
        try writer(temporary).commitHistory(records, cursor: HistoryCursor(historyID: 1, nextSequence: 2))
        let stored = try workouts(temporary)
        #expect(stored.count == 1 && stored[0].activity == .other && stored[0].metadata["bandkit.session.activity"] == "7")
        #expect(stored[0].metadata["bandkit.hr.avg"] == nil)
    }
}
