import Foundation
import HealthModel
import HealthStore
import HealthTestSupport
import Testing

/// Laps and track points of workouts: saved, read back, replaced, refused when implausible,
/// deleted with their workout, and kept to the app that saved the workout.
@Suite struct WorkoutTrackStoreTests {
    let temp: TemporaryStore
    init() throws { temp = try TemporaryStore() }

    let run = Workout(activity: .running, start: at("2026-11-30T18:00:00Z"), end: at("2026-11-30T18:30:00Z"))

    func track(points: Int) -> WorkoutTrack {
        WorkoutTrack(laps: [WorkoutLap(start: at("2026-11-30T18:00:00Z"), end: at("2026-11-30T18:30:00Z"), distance: 5000, energy: 300,
                                       averageHeartRate: 150, maximumHeartRate: 171, averageCadence: 85, maximumCadence: nil)],
                     points: (0..<points).map { index in
                         WorkoutTrackPoint(time: at("2026-11-30T18:00:00Z").addingTimeInterval(Double(points - index)),
                                           latitude: index == 0 ? nil : 48.1, longitude: index == 0 ? nil : 11.5, altitude: 520.5,
                                           heartRate: 140, cadence: 80, distance: Double(index), speed: 2.5)
                     })
    }

    @Test func aTrackIsSavedInTimeOrderReplacedAndDeletedWithItsWorkout() throws {
        try temp.store.write(as: .owner) { transaction in
            try transaction.save(run)
            try transaction.saveTrack(track(points: 5), forWorkout: run.id)
        }
        let stored = try temp.store.track(ofWorkout: run.id, as: .owner)
        #expect(stored.laps == track(points: 5).laps)
        #expect(stored.points == track(points: 5).points.sorted { $0.time < $1.time })
        try temp.store.write(as: .owner) { transaction in try transaction.saveTrack(track(points: 2), forWorkout: run.id) }
        #expect(try temp.store.track(ofWorkout: run.id, as: .owner).points.count == 2)
        try temp.store.write(as: .owner) { transaction in _ = try transaction.delete(workoutID: run.id) }
        #expect(try temp.store.track(ofWorkout: run.id, as: .owner).isEmpty)
        // The rows went with the workout (ON DELETE CASCADE): a new workout with the same id starts empty.
        try temp.store.write(as: .owner) { transaction in try transaction.save(run) }
        #expect(try temp.store.track(ofWorkout: run.id, as: .owner).isEmpty)
    }

    @Test func implausiblePointsAndUnknownWorkoutsAreRefusedAndNothingIsWritten() throws {
        try temp.store.write(as: .owner) { transaction in try transaction.save(run) }
        var bad = track(points: 3)
        bad.points[2].latitude = 91
        #expect(throws: HealthStoreError.self) {
            try temp.store.write(as: .owner) { transaction in try transaction.saveTrack(bad, forWorkout: run.id) }
        }
        bad.points[2].latitude = 48
        bad.points[1].heartRate = 400
        #expect(throws: HealthStoreError.self) {
            try temp.store.write(as: .owner) { transaction in try transaction.saveTrack(bad, forWorkout: run.id) }
        }
        #expect(throws: HealthStoreError.self) {
            try temp.store.write(as: .owner) { transaction in try transaction.saveTrack(track(points: 1), forWorkout: UUID()) }
        }
        #expect(try temp.store.track(ofWorkout: run.id, as: .owner).isEmpty)
    }

    @Test func anAppAttachesTracksOnlyToItsOwnWorkoutsAndReadsThemWithAGrant() throws {
        let other = AppIdentity(id: "com.example.other", version: "1")
        try temp.store.allow(band, [.workout])
        try temp.store.allow(other, [.workout])
        try temp.store.write(as: band) { transaction in
            try transaction.save(run)
            try transaction.saveTrack(track(points: 2), forWorkout: run.id)
        }
        #expect(throws: HealthStoreError.self) {
            try temp.store.write(as: other) { transaction in try transaction.saveTrack(track(points: 1), forWorkout: run.id) }
        }
        #expect(try temp.store.track(ofWorkout: run.id, as: band).points.count == 2)
        #expect(try temp.store.workout(id: run.id, as: band)?.id == run.id)
    }
}
