import Foundation
import HealthModel
import HealthTestSupport
import Testing
@testable import HealthStore
@testable import HealthStorePostgreSQL

/// What only the PostgreSQL engine does: batches sent as multi-row statements, and one LISTEN
/// connection per change watch that wakes for its own person only. Needs a server
/// (Tests/checks/postgres.sh sets BANDKIT_TEST_POSTGRES_URL).
@Suite(.enabled(if: TemporaryStore.usesPostgreSQL, "needs BANDKIT_TEST_POSTGRES_URL (Tests/checks/postgres.sh)"))
struct PostgresBatchAndListenerTests {
    static let start = at("2026-11-30T00:00:00Z")

    /// Minute `minute`'s step count from an importer, with a sync identifier.
    static func importedMinute(_ minute: Int) -> SampleToSave {
        let begin = start.addingTimeInterval(Double(minute) * 60)
        let sample = QuantitySample(type: .stepCount, quantity: Quantity(10, .count), start: begin,
                                    end: begin.addingTimeInterval(60), device: DeviceInfo(name: "Band", hardwareIdentifier: "SN1"),
                                    syncIdentifier: "steps/\(minute)", syncVersion: 1, metadata: ["minute": String(minute)])
        return SampleToSave(sample, attributedTo: AppIdentity(id: "com.example.importer", version: "1"))
    }

    @Test func aBatchTakesAFewRoundTripsNotOnePerSample() throws {
        let temp = try TemporaryStore()
        let batch = (0..<1_000).map { Self.importedMinute($0) }
        let trips = try temp.store.write(as: .owner) { transaction in
            let engine = try #require(transaction.connection.engine as? PostgresEngine)
            let before = engine.roundTrips
            try transaction.save(batch)
            return engine.roundTrips - before
        }
        // 1,000 rows: two batches of 512 and 488 (256 + 128 + 64 + 32 + 8), each in a savepoint,
        // plus the first preparation of each statement size; one by one took 1,000 or more.
        #expect(trips < 40, "\(trips) round trips")
    }

    /// A band's live minute as a gateway commits it (five samples, three of them with hourly
    /// totals), once the store knows its app, device and types: the round trips from BEGIN through
    /// COMMIT and the announcement. Every one costs both processes a wake-up per commit of every
    /// band. There were 33: BEGIN, its setting and its lock apart; UPDATEs of shared rows that
    /// could change nothing; per hourly total a read of the type's longest duration apart from its
    /// samples, and a DELETE before the INSERT.
    @Test func aSteadyLiveMinuteTakesFewRoundTrips() throws {
        let temp = try TemporaryStore()
        let device = DeviceInfo(name: "Band", hardwareIdentifier: "SN1")
        func minute(_ index: Int) -> [QuantitySample] {
            let begin = Self.start.addingTimeInterval(Double(index) * 60)
            return [(QuantityType.stepCount, Quantity(80, .count)), (.distanceWalkingRunning, Quantity(42, .meter)),
                    (.activeEnergyBurned, Quantity(3.1, .kilocalorie)), (.heartRate, Quantity(75, .countPerMinute)),
                    (.heartRateVariabilitySDNN, Quantity(41, .millisecond))].map { type, quantity in
                QuantitySample(type: type, quantity: quantity, start: begin, end: begin.addingTimeInterval(60), device: device,
                               syncIdentifier: "SN1|\(type.identifier)|\(index)", syncVersion: 1)
            }
        }
        func write(_ index: Int) throws -> Int {
            try temp.store.write(as: .owner) { transaction in
                for sample in minute(index) { try transaction.save(sample) }
            }
            return try temp.store.withConnection { connection in try #require(connection.engine as? PostgresEngine).roundTrips }
        }
        _ = try write(0)  // the first: the device's row, the app's rank, statements prepared
        let before = try write(1)
        let trips = try write(2) - before
        // BEGIN with its lock; an anchor block; five inserts; per cumulative type the sources'
        // ranks, the hour's samples, its total; the person's horizon; COMMIT with the announcement.
        #expect(trips <= 18, "\(trips) round trips")

        // The read of the stored minute before each live write: one statement, its own snapshot
        // (counted at the second read: the first also prepares the statement on this connection).
        let range = Self.start..<Self.start.addingTimeInterval(180)
        _ = try temp.store.ownSamples(of: [.quantity(.stepCount), .quantity(.heartRate)], startingIn: range, as: .owner)
        let beforeRead = try write(3)
        let samples = try temp.store.ownSamples(of: [.quantity(.stepCount), .quantity(.heartRate)], startingIn: range, as: .owner)
        let afterRead = try temp.store.withConnection { connection in try #require(connection.engine as? PostgresEngine).roundTrips }
        #expect(samples.count == 6)
        #expect(afterRead - beforeRead == 1)
    }

    /// The NOTIFY payload names the person (`schema/person-id`): a listener of the default
    /// person's feed reads ana's notification and sleeps on; its own wakes it. Commits'
    /// notifications arrive in commit order, so when its own has woken it, ana's was read first.
    @Test func aListenerWakesOnlyForItsOwnPersonsNotifications() throws {
        let temp = try TemporaryStore()
        try temp.store.addPerson(named: "ana")
        let ana = try HealthStore(path: temp.path, person: "ana")
        let watch = try temp.store.changeWatch()
        let listener = try #require(watch.watch as? PostgresListener)
        #expect(listener.payload.hasSuffix("/\(temp.store.personID)"))
        try ana.write(as: .owner) { try $0.save(steps(5, "2026-11-30T08:00:00Z", "2026-11-30T08:01:00Z")) }
        try temp.store.write(as: .owner) { try $0.save(steps(6, "2026-11-30T08:00:00Z", "2026-11-30T08:01:00Z")) }
        for _ in 0..<120 where listener.wakes == 0 { try listener.wait(milliseconds: 1_000) }
        #expect(listener.wakes == 1)
        #expect(listener.ignored == 1)
        // And a listener of ana's feed wakes for ana's commit only.
        let anasListener = try #require(try ana.changeWatch().watch as? PostgresListener)
        try temp.store.write(as: .owner) { try $0.save(steps(7, "2026-11-30T09:00:00Z", "2026-11-30T09:01:00Z")) }
        try ana.write(as: .owner) { try $0.save(steps(8, "2026-11-30T09:00:00Z", "2026-11-30T09:01:00Z")) }
        for _ in 0..<120 where anasListener.wakes == 0 { try anasListener.wait(milliseconds: 1_000) }
        #expect(anasListener.wakes == 1)
        #expect(anasListener.ignored == 1)
    }
}
