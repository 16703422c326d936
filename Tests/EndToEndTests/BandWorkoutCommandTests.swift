import Foundation
import Testing

/// The band's walk and run sessions, synced by `band sync`, are the workouts `health workouts
/// list` shows, with the band's own totals (docs/protocol.md "Activity sessions").
///
/// The band runs at 60× from 07:09 with yesterday in its history: yesterday's 07:10 walk,
/// 12:00 walk and 12:20 run are closed by the first sync; today's 07:10–07:55 walk is still
/// running at the second sync and closes before the third, so it crosses two syncs. The waits
/// are for conditions (the band's truth file reaching a minute), each with a generous deadline;
/// the only window is the walk's 45 band minutes (45 s from the band's start) for pairing, the
/// first sync (a day) and the second (a few minutes) — each about a second on this machine.
@Suite(.serialized, .enabled(if: Commands.available, "needs bandsim, band and health built (swift build)"))
struct BandWorkoutCommandTests {
    static let scenario = """
        at 00:00 desk
        at 07:10 walk
        at 07:55 desk
        at 12:00 walk
        at 12:20 run
        at 12:50 desk
        """

    /// One session of the band's truth: its records in sequence order.
    struct TruthSession {
        var activity: String
        var records: [TruthMinute]
        var start: String { records[0].minute }
        var steps: Double { records.reduce(0) { $0 + $1.steps } }
        var distance: Double { records.reduce(0) { $0 + $1.distanceMetres } }
        var energy: Double { records.reduce(0) { $0 + $1.energyKilocalories } }
        var heartRates: [Double] { records.compactMap { $0.heartRate?.avg } }
    }

    /// The band's sessions in its truth below `cursor` that are closed by a later record below it.
    static func closedSessions(_ truth: [Int: TruthMinute], below cursor: Int) -> [TruthSession] {
        var sessions: [TruthSession] = []
        var open: TruthSession?
        for sequence in 0..<cursor {
            guard let record = truth[sequence] else { continue }
            if var current = open, record.activity == current.activity, !record.sessionStart {
                current.records.append(record)
                open = current
                continue
            }
            if let current = open { sessions.append(current) }
            open = record.activity.map { TruthSession(activity: $0, records: [record]) }
        }
        return sessions
    }

    struct ListedWorkout {
        var activity: String
        var start: String
        var duration: Double
        var distance: Double
        var energy: Double
        var heartRateAverage: Double?
        var heartRateMaximum: Double?
    }

    func workouts(_ world: DemoWorld) throws -> [ListedWorkout] {
        let (status, stdout, stderr) = try RunningCommand.run("health", ["workouts", "list", "--store", world.store, "--tz", "UTC", "--json"],
                                                              environment: world.environment)
        #expect(status == 0, "health workouts list: \(stderr)")
        guard let list = try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any],
              let items = list["workouts"] as? [[String: Any]] else { throw WorldError("bad workouts list: \(stdout)") }
        return try items.map { object in
            guard let activity = object["activity"] as? String, let start = object["start"] as? String,
                  let duration = number(object["duration_s"]), let distance = number(object["distance_m"]),
                  let energy = number(object["energy_kcal"]) else { throw WorldError("bad workout: \(object)") }
            return ListedWorkout(activity: activity, start: start, duration: duration, distance: distance, energy: energy,
                                 heartRateAverage: number(object["hr_avg"]), heartRateMaximum: number(object["hr_max"]))
        }.sorted { $0.start < $1.start }
    }

    /// Each closed session of the truth is exactly one listed workout with its totals.
    func compare(_ listed: [ListedWorkout], _ sessions: [TruthSession]) -> [String] {
        var problems: [String] = []
        if listed.count != sessions.count { problems.append("\(listed.count) workouts listed, the band closed \(sessions.count) sessions") }
        for (workout, session) in zip(listed, sessions) {
            let start = session.start
            if workout.start != start || workout.activity != session.activity {
                problems.append("\(workout.activity) at \(workout.start), band \(session.activity) at \(start)")
            }
            if workout.duration != Double(session.records.count * 60) { problems.append("\(start): \(workout.duration) s, band \(session.records.count) min") }
            if abs(workout.distance - session.distance) > 1e-6 { problems.append("\(start): \(workout.distance) m, band \(session.distance)") }
            if abs(workout.energy - session.energy) > 1e-6 { problems.append("\(start): \(workout.energy) kcal, band \(session.energy)") }
            let heart = session.heartRates
            if let average = workout.heartRateAverage, let maximum = workout.heartRateMaximum, !heart.isEmpty {
                if abs(average - heart.reduce(0, +) / Double(heart.count)) > 1e-6 { problems.append("\(start): HR average \(average)") }
                if maximum != heart.max() { problems.append("\(start): HR max \(maximum), band's highest minute \(heart.max()!)") }
            } else if !heart.isEmpty {
                problems.append("\(start): no heart rate listed, the band measured \(heart.count) minutes")
            }
        }
        return problems
    }

    func sync(_ world: DemoWorld, keystore: String) throws -> Int {
        let sync = try world.band(["sync", world.address, "--keystore", keystore, "--store", world.store, "--keep-band-clock", "--json"])
        #expect(sync.status == 0, "band sync: \(sync.stderr)")
        return try #require(lastCursor(in: [sync.stdout]), "the sync committed nothing: \(sync.stdout)")
    }

    /// Waits until the band's truth holds a record of `minute` (ISO UTC) or later.
    func waitForMinute(_ minute: String, _ world: DemoWorld) throws -> [Int: TruthMinute] {
        let deadline = ContinuousClock.now.advanced(by: .seconds(300))
        while ContinuousClock.now < deadline {
            let truth = try world.truth()
            if truth.values.contains(where: { $0.minute >= minute }) { return truth }
            Thread.sleep(forTimeInterval: 0.2)
        }
        throw WorldError("the band's truth never reached \(minute)")
    }

    @Test func walkAndRunSyncedByBandAreWorkoutsWithTheBandsTotalsAndASessionAcrossSyncsIsOne() throws {
        let world = try DemoWorld()
        let scenario = world.directory + "/sessions.scenario"
        try Self.scenario.write(toFile: scenario, atomically: true, encoding: .utf8)
        try world.startBand(["--start", "2026-11-30T07:09:00Z", "--speed", "60", "--history-days", "1", "--seed", "5", "--scenario", scenario])
        let keystore = world.directory + "/keys.json"
        let pair = try world.band(["pair", world.address, "--keystore", keystore])
        #expect(pair.status == 0, "\(pair.stderr)")

        // Sync 1: yesterday's day, whose walks and run are closed.
        let first = try sync(world, keystore: keystore)
        var truth = try world.truth()
        let yesterday = Self.closedSessions(truth, below: first)
        #expect(yesterday.map(\.activity) == ["walking", "walking", "running"])
        let afterFirst = try workouts(world)
        #expect(compare(afterFirst, yesterday) == [])

        // Sync 2 while today's walk runs: the session is open at the end of the sync.
        truth = try waitForMinute("2026-11-30T07:12:00Z", world)
        let second = try sync(world, keystore: keystore)
        truth = try world.truth()
        let lastSynced = try #require(truth[second - 1])
        try #require(lastSynced.activity == "walking",
                     "the second sync ended at \(lastSynced.minute), after the walk (07:10–07:55): it needs to end inside it")
        #expect(try workouts(world).count == 3, "a session still open at the end of a sync is not written yet")

        // Sync 3 after the walk: one workout for it, with the totals of both parts.
        _ = try waitForMinute("2026-11-30T07:56:00Z", world)
        let third = try sync(world, keystore: keystore)
        truth = try world.truth()
        let all = Self.closedSessions(truth, below: third)
        #expect(all.count == 4 && all.last?.records.count == 45 && all.last?.start == "2026-11-30T07:10:00Z")
        #expect(compare(try workouts(world), all) == [])

        // Sync again: nothing new, nothing twice.
        _ = try sync(world, keystore: keystore)
        #expect(try workouts(world).count == 4)
        world.stopBand()
    }
}
