import Foundation
import HealthModel
import HealthStore
import HealthTestSupport
import Testing

/// Workouts: statistics from the samples inside them, the change feed, re-import.
@Suite struct WorkoutStoreTests {
    let temp: TemporaryStore
    init() throws { temp = try TemporaryStore() }

    func heartRate(_ bpm: Double, _ time: String) -> QuantitySample {
        QuantitySample(type: .heartRate, quantity: Quantity(bpm, .countPerMinute), start: at(time), end: at(time))
    }

    func distance(_ metres: Double, _ from: String, _ to: String) -> QuantitySample {
        QuantitySample(type: .distanceWalkingRunning, quantity: Quantity(metres, .meter), start: at(from), end: at(to))
    }

    @Test func statisticsComeFromTheSamplesInsideTheWorkout() throws {
        try temp.store.allow(band, [.quantity(.heartRate), .quantity(.distanceWalkingRunning), .quantity(.activeEnergyBurned), .workout])
        let run = Workout(activity: .running, start: at("2026-11-30T18:00:00Z"), end: at("2026-11-30T18:30:00Z"))
        try temp.store.write(as: band) { transaction in
            try transaction.save(run)
            try transaction.save(heartRate(90, "2026-11-30T17:59:00Z"))   // before: not inside
            try transaction.save(heartRate(140, "2026-11-30T18:05:00Z"))
            try transaction.save(heartRate(160, "2026-11-30T18:15:00Z"))
            try transaction.save(heartRate(171, "2026-11-30T18:29:00Z"))
            try transaction.save(heartRate(100, "2026-11-30T18:30:00Z"))   // at the end: not inside [start, end)
            try transaction.save(distance(2000, "2026-11-30T18:00:00Z", "2026-11-30T18:10:00Z"))
            try transaction.save(distance(3000, "2026-11-30T18:10:00Z", "2026-11-30T18:30:00Z"))
            try transaction.save(distance(500, "2026-11-30T18:30:00Z", "2026-11-30T18:40:00Z"))  // the cool-down walk
        }
        let stats = try temp.store.statistics(of: try #require(temp.store.workouts(as: .owner).first), as: .owner)
        #expect(stats.duration == 1800)
        #expect(stats.averageHeartRate.map { abs($0 - 471.0 / 3) < 1e-9 } == true)
        #expect(stats.maximumHeartRate == 171)
        #expect(stats.distanceMetres == 5000)
        #expect(stats.energyKilocalories == nil)

        // A workout that carries its own totals keeps them; the samples are not added on top.
        let withTotals = Workout(activity: .running, start: run.start, end: run.end,
                                 totalEnergyBurned: Quantity(410, .kilocalorie), totalDistance: Quantity(5.2, .kilometer))
        let own = try temp.store.statistics(of: withTotals, as: .owner)
        #expect(own.distanceMetres == 5200)
        #expect(own.energyKilocalories == 410)
    }

    @Test func workoutsAreInTheChangeFeedForAppsThatMayReadThem() throws {
        try temp.store.allow(band, [.workout], read: false)
        let anchor = try temp.store.currentAnchor()
        let walk = Workout(activity: .walking, start: at("2026-11-30T08:00:00Z"), end: at("2026-11-30T08:20:00Z"),
                           device: DeviceInfo(name: "Band", hardwareIdentifier: "SN1"), metadata: ["k": "v"])
        try temp.store.write(as: band) { transaction in try transaction.save(walk) }
        let changes = try temp.store.changes(since: anchor, as: .owner)
        #expect(changes.workouts.map(\.id) == [walk.id])
        #expect(changes.workouts.first?.device?.hardwareIdentifier == "SN1")
        #expect(changes.workouts.first?.metadata == ["k": "v"])
        #expect(changes.newAnchor > anchor)
        #expect(try temp.store.changes(since: changes.newAnchor, as: .owner).workouts.isEmpty)
        // Asking for other types only leaves workouts out.
        #expect(try temp.store.changes(since: anchor, types: [.quantity(.stepCount)], as: .owner).workouts.isEmpty)
        // An app without a read grant sees its own workouts only.
        try temp.store.allow(watch, [.workout], read: false)
        #expect(try temp.store.changes(since: anchor, as: watch).workouts.isEmpty)
        #expect(try temp.store.changes(since: anchor, as: band).workouts.map(\.id) == [walk.id])
    }

    @Test func savingAWorkoutWithAStoredIdChangesNothing() throws {
        let ride = Workout(activity: .cycling, start: at("2026-11-30T08:00:00Z"), end: at("2026-11-30T09:00:00Z"))
        #expect(try temp.store.write(as: .owner) { try $0.save(ride, attributedTo: watch) } == .inserted)
        let anchor = try temp.store.currentAnchor()
        #expect(try temp.store.write(as: .owner) { try $0.save(ride, attributedTo: watch) } == .unchanged(existing: ride.id))
        #expect(try temp.store.currentAnchor() == anchor)
        #expect(try temp.store.workouts(as: .owner).map { $0.source?.id } == [watch.id])
    }

    @Test func implausibleTotalsAreRefused() throws {
        let start = at("2026-11-30T08:00:00Z"), end = at("2026-11-30T09:00:00Z")
        for workout in [Workout(activity: .running, start: start, end: end, totalEnergyBurned: Quantity(-1, .kilocalorie)),
                        Workout(activity: .running, start: start, end: end, totalDistance: Quantity(.infinity, .meter))] {
            #expect(throws: HealthStoreError.self) { try temp.store.write(as: .owner) { try $0.save(workout) } }
        }
        #expect(try temp.store.workouts(as: .owner).isEmpty)
    }

    @Test func deletingAWorkoutRemovesItAndTheChangeFeedSaysSo() throws {
        try temp.store.allow(band, [.workout], read: false)
        try temp.store.allow(watch, [.workout], read: false)
        let walk = Workout(activity: .walking, start: at("2026-11-30T08:00:00Z"), end: at("2026-11-30T08:20:00Z"))
        let ride = Workout(activity: .cycling, start: at("2026-11-30T09:00:00Z"), end: at("2026-11-30T10:00:00Z"))
        try temp.store.write(as: band) { try $0.save(walk) }
        try temp.store.write(as: watch) { try $0.save(ride) }
        let anchor = try temp.store.currentAnchor()
        // Another app may not delete it; its own app may.
        #expect(try temp.store.write(as: watch) { try $0.delete(workoutID: walk.id) } == false)
        #expect(try temp.store.write(as: band) { try $0.delete(workoutID: walk.id) } == true)
        #expect(try temp.store.write(as: band) { try $0.delete(workoutID: walk.id) } == false, "already gone")
        #expect(try temp.store.workouts(as: .owner).map(\.id) == [ride.id])

        let changes = try temp.store.changes(since: anchor, as: .owner)
        #expect(changes.deleted.map(\.id) == [walk.id])
        #expect(changes.deleted.first?.type == .workout)
        #expect(changes.workouts.isEmpty && changes.samples.isEmpty)
        #expect(try temp.store.changes(since: anchor, as: band).deleted.map(\.id) == [walk.id], "its own deletion")
        #expect(try temp.store.changes(since: anchor, as: watch).deleted.isEmpty, "no read grant: not another app's")
        #expect(try temp.store.changes(since: anchor, types: [.quantity(.stepCount)], as: .owner).deleted.isEmpty)
        #expect(try temp.store.changes(since: anchor, types: [.workout], as: .owner).deleted.map(\.id) == [walk.id])
        // The owner deletes any app's workout.
        #expect(try temp.store.write(as: .owner) { try $0.delete(workoutID: ride.id) } == true)
        #expect(try temp.store.workouts(as: .owner).isEmpty)
    }

    @Test func theChangeFeedsLimitCountsWorkoutsToo() throws {
        // Interleaved: sample, workout, sample, workout, sample, workout.
        var expected: [UUID] = []
        for hour in 0..<3 {
            let time = "2026-11-30T0\(hour):00:00Z"
            let sample = heartRate(Double(60 + hour), time)
            let workout = Workout(activity: .walking, start: at(time), end: at("2026-11-30T0\(hour):30:00Z"))
            try temp.store.write(as: .owner) { try $0.save(sample) }
            try temp.store.write(as: .owner) { try $0.save(workout) }
            expected += [sample.id, workout.id]
        }
        var anchor = Anchor(rawValue: 0)
        var seen: [UUID] = []
        var pages = 0
        while pages < 10 {
            let page = try temp.store.changes(since: anchor, limit: 2, as: .owner)
            #expect(page.samples.count + page.workouts.count <= 2, "page \(pages): \(page.samples.count) samples, \(page.workouts.count) workouts")
            // Within a page samples and workouts come apart; order them by where they were saved.
            let ids = page.samples.map(\.id) + page.workouts.map(\.id)
            seen += ids.sorted { expected.firstIndex(of: $0)! < expected.firstIndex(of: $1)! }
            if page.newAnchor == anchor { break }
            anchor = page.newAnchor
            pages += 1
        }
        #expect(seen == expected)
        #expect(pages == 3)
    }
}
