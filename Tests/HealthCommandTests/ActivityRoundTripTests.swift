import HealthTestSupport
import Foundation
import HealthModel
import HealthStore
import JSONOutput
import Testing

/// Every HKWorkoutActivityType survives `health export` → `health import` (NDJSON) and
/// `health export --format apple-health` → `health import` (export.xml), and a made-up one is
/// refused by both importers, naming where.
@Suite struct ActivityRoundTripTests {
    let temp: TemporaryStore
    let health: HealthCommand

    init() throws {
        temp = try TemporaryStore()
        health = HealthCommand(store: temp.path)
    }

    func write(_ text: String, _ name: String) throws -> String {
        let path = temp.directory + "/" + name
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Activities by start time, as `workouts list --json` gives them.
    func activities(_ command: HealthCommand) throws -> [String] {
        let result = try command.run("workouts", "list", "--from", "2026-01-01T00:00:00Z", "--to", "2026-02-01T00:00:00Z", "--json")
        #expect(result.code == 0, "\(result.error)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        let workouts = try #require(object["workouts"] as? [[String: Any]])
        return workouts.compactMap { $0["activity"] as? String }
    }

    @Test func everyActivityRoundTripsThroughNDJSONAndAppleHealth() throws {
        var lines = ""
        for (index, activity) in WorkoutActivityType.all.enumerated() {
            let day = 1 + index / 20, hour = index % 20
            let start = String(format: "2026-01-%02dT%02d:00:00Z", day, hour)
            let end = String(format: "2026-01-%02dT%02d:30:00Z", day, hour)
            // Half are given in kebab case: both spellings are the same activity.
            let name = index.isMultiple(of: 2) ? activity.rawValue : activity.kebabName
            lines += #"{"type":"workout","activity":"\#(name)","start":"\#(start)","end":"\#(end)","source":"com.example.gym"}"# + "\n"
        }
        let imported = try health.run("import", write(lines, "every.ndjson"))
        #expect(imported.code == 0, "\(imported.error)")
        let expected = WorkoutActivityType.all.map(\.rawValue)
        #expect(try activities(health) == expected)

        let backup = try health.run("export")
        #expect(backup.code == 0)
        let restored = try TemporaryStore()
        let restoredHealth = HealthCommand(store: restored.path)
        let restore = try restoredHealth.run("import", write(backup.output, "backup.ndjson"))
        #expect(restore.code == 0, "\(restore.error)")
        #expect(try activities(restoredHealth) == expected)

        let apple = try health.run("export", "--format", "apple-health")
        #expect(apple.code == 0)
        #expect(apple.output.contains(#"workoutActivityType="HKWorkoutActivityTypeHighIntensityIntervalTraining""#))
        let fromApple = try TemporaryStore()
        let fromAppleHealth = HealthCommand(store: fromApple.path)
        let appleImport = try fromAppleHealth.run("import", write(apple.output, "export.xml"))
        #expect(appleImport.code == 0, "\(appleImport.error)")
        #expect(try activities(fromAppleHealth) == expected)
    }

    /// The review's reproduction: a real export's strength and interval workouts, backed up as
    /// NDJSON, restore.
    @Test func anAppleImportsBackupRestores() throws {
        var xml = AppleHealthImportTests.prologue
        for (index, name) in ["TraditionalStrengthTraining", "HighIntensityIntervalTraining", "MixedCardio", "CoreTraining",
                              "FunctionalStrengthTraining", "StairClimbing"].enumerated() {
            xml += """
                 <Workout workoutActivityType="HKWorkoutActivityType\(name)" sourceName="Watch" startDate="2024-06-0\(index + 1) 07:00:00 -0700" endDate="2024-06-0\(index + 1) 07:30:00 -0700"/>

                """
        }
        xml += "</HealthData>\n"
        #expect(try health.run("import", write(xml, "export.xml")).code == 0)
        let backup = try health.run("export")
        #expect(backup.output.contains(#""activity":"traditionalStrengthTraining""#), "\(backup.output)")
        let restored = try TemporaryStore()
        let restore = try HealthCommand(store: restored.path).run("import", write(backup.output, "backup.ndjson"))
        #expect(restore.code == 0, "\(restore.error)")
        #expect(try restored.store.workouts(as: .owner).count == 6)
    }

    @Test func aMadeUpAppleActivityIsRefusedNamingTheLine() throws {
        let xml = AppleHealthImportTests.prologue + """
             <Workout workoutActivityType="HKWorkoutActivityType&lt;script&gt;" sourceName="Watch" startDate="2024-06-01 07:00:00 -0700" endDate="2024-06-01 07:30:00 -0700"/>
            </HealthData>

            """
        let result = try health.run("import", write(xml, "export.xml"))
        #expect(result.code == 65, "\(result.error)")
        #expect(result.error.contains("line 8, column 2"), "\(result.error)")
        #expect(result.error.contains("is not an HKWorkoutActivityType"), "\(result.error)")
        #expect(try temp.store.workouts(as: .owner).isEmpty)
    }

    @Test(arguments: ["<script>", "Running", "strength", "traditional_strength_training"])
    func aMadeUpNDJSONActivityIsRefusedNamingTheLineAndField(_ name: String) throws {
        let line = #"{"type":"workout","activity":\#(JSON.quoted(name)),"start":"2026-11-30T07:00:00Z","end":"2026-11-30T08:00:00Z","source":"x"}"#
        let result = try health.run("import", "-", input: #"{"type":"step-count","value":3,"start":"2026-11-30T07:00:00Z","source":"x"}"# + "\n" + line + "\n")
        #expect(result.code == 65, "\(result.error)")
        #expect(result.error.contains("line 2: field 'activity'"), "\(result.error)")
        let added = try health.run("workouts", "add", name, "--start", "2026-11-30T07:00:00Z", "--end", "2026-11-30T08:00:00Z")
        #expect(added.code == 64, "\(added.error)")
    }
}
