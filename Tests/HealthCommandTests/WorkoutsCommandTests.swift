import HealthTestSupport
import Foundation
import HealthModel
import HealthStore
import Testing

/// `health workouts add|list|export|delete` and workouts in `health export`/`import`/`changes`.
@Suite struct WorkoutsCommandTests {
    let temp: TemporaryStore
    let health: HealthCommand

    init() throws {
        temp = try TemporaryStore()
        health = HealthCommand(store: temp.path)
    }

    func number(_ value: Any?) -> Double? { (value as? NSNumber)?.doubleValue }

    @Test func addListAndStatisticsFromTheSamplesInside() throws {
        let add = try health.run("workouts", "add", "running", "--start", "2026-11-30T18:00:00Z", "--end", "2026-11-30T18:40:00Z",
                                 "--energy", "1464 kJ")
        #expect(add.code == 0, "\(add.error)")
        let heart = #"{"type":"heart-rate","value":150,"start":"2026-11-30T18:10:00Z","source":"bandkit.band"}"# + "\n"
            + #"{"type":"heart-rate","value":170,"start":"2026-11-30T18:20:00Z","source":"bandkit.band"}"# + "\n"
            + #"{"type":"distance-walking-running","value":6.2,"unit":"km","start":"2026-11-30T18:00:00Z","end":"2026-11-30T18:40:00Z","source":"bandkit.band"}"# + "\n"
        #expect(try health.run("import", "-", input: heart).code == 0)
        #expect(try health.run("workouts", "add", "walking", "--start", "2026-11-30T08:00:00Z", "--end", "2026-11-30T08:20:00Z",
                               "--distance", "1.5km").code == 0)
        let list = try health.run("workouts", "list", "--json")
        #expect(list.code == 0, "\(list.error)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(list.output.utf8)) as? [String: Any])
        #expect(object["count"] as? Int == 2)
        #expect(number(object["duration_s"]) == Double(60 * 60))
        #expect(number(object["distance_m"]) == Double(6200 + 1500))
        let workouts = try #require(object["workouts"] as? [[String: Any]])
        #expect(workouts.map { $0["activity"] as? String } == ["walking", "running"])
        let run = workouts[1]
        #expect(number(run["energy_kcal"]).map { abs($0 - 349.9) < 0.1 } == true)  // 1464 kJ
        #expect(number(run["distance_m"]) == 6200)                                   // from the sample inside
        #expect(number(run["hr_avg"]) == 160)
        #expect(number(run["hr_max"]) == 170)
        #expect(workouts[0]["hr_avg"] is NSNull)
        let text = try health.run("workouts", "list", "--day", "2026-11-30", "--tz", "UTC", "--activity", "running")
        #expect(text.output.contains("running  40 min  6.2 km  350 kcal  HR 160 avg / 170 max  health"), "\(text.output)")
        #expect(text.output.contains("1 workout, 40 min, 6.2 km, 350 kcal"))
    }

    @Test func exportAndImportRoundTripWorkoutsWithEveryField() throws {
        let line = #"{"type":"workout","activity":"cycling","start":"2026-11-30T07:00:00Z","end":"2026-11-30T08:00:00Z","total_energy_kcal":512.5,"total_distance_m":24000,"source":"com.example.bike","source_version":"3.1","device":{"name":"Bike computer","hardware_id":"C0:FF:EE"},"metadata":{"route":"river"},"id":"0190f5d2-7a6c-7b3e-9a1f-2b3c4d5e6f70"}"#
        #expect(try health.run("import", "-", input: line + "\n").code == 0)
        let exported = try health.run("export", "--type", "workout")
        #expect(exported.code == 0)
        #expect(exported.output.trimmingCharacters(in: .whitespacesAndNewlines) == line)
        #expect(try health.run("workouts", "export").output == exported.output)
        // Into a second store and out again: the same line.
        let other = try TemporaryStore()
        let second = HealthCommand(store: other.path)
        #expect(try second.run("import", "-", input: exported.output).code == 0)
        #expect(try second.run("export").output.trimmingCharacters(in: .whitespacesAndNewlines) == line)
        // Importing the same workout again adds nothing.
        let again = try second.run("import", "-", input: exported.output)
        #expect(again.output.contains("0 new, 0 replaced, 1 unchanged"), "\(again.output)")
        #expect(try other.store.workouts(as: .owner).count == 1)
    }

    @Test func workoutsAreInTheChangeFeed() throws {
        #expect(try health.run("workouts", "add", "swimming", "--start", "2026-11-30T07:00:00Z", "--end", "2026-11-30T07:45:00Z").code == 0)
        let changes = try health.run("changes", "--since", "0", "--json")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(changes.output.utf8)) as? [String: Any])
        let workouts = try #require(object["workouts"] as? [[String: Any]])
        #expect(workouts.map { $0["activity"] as? String } == ["swimming"])
        #expect(try health.run("changes", "--since", "0", "--tz", "UTC").output.contains("workout  2026-11-30T07:00:00Z  2026-11-30T07:45:00Z  swimming  health"))
    }

    @Test func deleteRemovesAWorkoutAndTheChangeFeedListsItDeleted() throws {
        let add = try health.run("workouts", "add", "hiking", "--start", "2026-11-30T07:00:00Z", "--end", "2026-11-30T09:00:00Z")
        let id = try #require(add.output.split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
        let anchor = try #require(try health.run("changes", "--since", "0").output.split(separator: "\n").last?.split(separator: " ").last)
        let delete = try health.run("workouts", "delete", id)
        #expect(delete.code == 0 && delete.output == "deleted workout \(id)\n", "\(delete.output) \(delete.error)")
        #expect(try health.run("workouts", "list").output.hasPrefix("0 workouts"))
        let changes = try health.run("changes", "--since", String(anchor), "--json")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(changes.output.utf8)) as? [String: Any])
        let deleted = try #require(object["deleted"] as? [[String: Any]])
        #expect(deleted.map { $0["id"] as? String } == [id])
        #expect(deleted.map { $0["type"] as? String } == ["workout"])
        // Again: nothing to delete, a failure naming the id and the store.
        let again = try health.run("workouts", "delete", id)
        #expect(again.code == 1)
        #expect(again.error.contains("no workout \(id) in "), "\(again.error)")
    }

    @Test(arguments: [
        (["workouts", "add", "Running!", "--start", "2026-11-30T07:00:00Z", "--end", "2026-11-30T08:00:00Z"], "ACTIVITY 'Running!'"),
        (["workouts", "add", "running", "--end", "2026-11-30T08:00:00Z"], "--start T is required"),
        (["workouts", "add", "running", "--start", "2026-11-30T09:00:00Z", "--end", "2026-11-30T08:00:00Z"], "--end must be after --start"),
        (["workouts", "add", "running", "--start", "2026-11-30T07:00:00Z", "--end", "2026-11-30T08:00:00Z", "--energy", "5 km"], "--energy '5 km'"),
        (["workouts", "add", "running", "--start", "2026-11-30T07:00:00Z", "--end", "2026-11-30T08:00:00Z", "--distance", "-3"], "--distance '-3'"),
        (["workouts", "list", "--day", "2026-02-30"], "--day '2026-02-30'"),
        (["workouts", "list", "--tz", "Nowhere/Land"], "--tz 'Nowhere/Land'"),
        (["export", "--format", "csv", "--type", "workout"], "CSV has no columns for workouts"),
        (["workouts", "delete", "not-a-uuid\u{1b}[2J"], "ID 'not-a-uuid\\e[2J' is not a UUID"),
        (["workouts", "delete"], "ID"),
    ])
    func badArgumentsAreUsageErrorsNamingThem(_ arguments: [String], _ message: String) throws {
        let result = try health.run(arguments)
        #expect(result.code == 64, "\(arguments): \(result.error)")
        #expect(result.error.contains(message), "\(result.error)")
    }

    @Test(arguments: [
        (#"{"type":"workout","start":"2026-11-30T07:00:00Z","end":"2026-11-30T08:00:00Z","source":"x"}"#, "line 1: field 'activity': missing"),
        (#"{"type":"workout","activity":"running","start":"2026-11-30T07:00:00Z","source":"x"}"#, "field 'end': missing"),
        (#"{"type":"workout","activity":"running","value":3,"start":"2026-11-30T07:00:00Z","end":"2026-11-30T08:00:00Z","source":"x"}"#, "field 'value': not a workout field"),
        (#"{"type":"step-count","value":3,"activity":"running","start":"2026-11-30T07:00:00Z","source":"x"}"#, "field 'activity': only workouts have it"),
        (#"{"type":"workout","activity":"running","total_energy_kcal":-5,"start":"2026-11-30T07:00:00Z","end":"2026-11-30T08:00:00Z","source":"x"}"#, "field 'total_energy_kcal'"),
        (#"{"type":"workout","activity":"running","start":"2026-11-30T07:00:00Z","end":"2026-12-09T08:00:00Z","source":"x"}"#, "field 'end'"),
    ])
    func badWorkoutLinesAreExit65NamingTheField(_ line: String, _ message: String) throws {
        let result = try health.run("import", "-", input: line + "\n")
        #expect(result.code == 65, "\(result.error)")
        #expect(result.error.contains(message), "\(result.error)")
        #expect(try temp.store.workouts(as: .owner).isEmpty)
    }
}
