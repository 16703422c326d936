import Foundation
import HealthModel
import HealthStore
import HealthTestSupport
import Testing

/// `health people list|add|rename` and `--person NAME` on the commands that read and write.
@Suite struct PeopleCommandTests {
    let temp: TemporaryStore
    let health: HealthCommand

    init() throws {
        temp = try TemporaryStore()
        health = HealthCommand(store: temp.path)
    }

    func json(_ text: String) throws -> Any { try JSONSerialization.jsonObject(with: Data(text.utf8)) }

    @Test func aNewStoreListsOnlyTheDefaultPerson() throws {
        let list = try health.run("people", "list")
        #expect(list.code == 0, "\(list.error)")
        let fields = list.output.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
        #expect(fields.count == 1 && fields[0].first == "1" && fields[0][1] == "default" && fields[0].last == "default", "\(list.output)")
        let listed = try #require(try json(try health.run("people", "list", "--json").output) as? [[String: Any]])
        #expect(listed.count == 1 && listed[0]["name"] as? String == "default" && listed[0]["default"] as? Bool == true)
    }

    @Test func peopleAreAddedRenamedAndListed() throws {
        let added = try health.run("people", "add", "Ana María")
        #expect(added.code == 0 && added.output == "added person 2 Ana María\n", "\(added.output) \(added.error)")
        #expect(try health.run("people", "add", "bo").code == 0)
        let renamed = try health.run("people", "rename", "bo", "Bo")
        #expect(renamed.code == 0, "\(renamed.error)")
        let listed = try #require(try json(try health.run("people", "list", "--json").output) as? [[String: Any]])
        #expect(listed.map { $0["name"] as? String } == ["default", "Ana María", "Bo"])
        #expect(listed.map { $0["default"] as? Bool } == [true, false, false])
    }

    @Test func badNamesAreUsageErrorsWithTheNameEscaped() throws {
        let hostile = "evil\u{1B}[2J"
        for args in [["people", "add", hostile], ["people", "add", ""], ["people", "add", String(repeating: "n", count: 65)],
                     ["people", "rename", "default", hostile], ["stats", "step-count", "--person", hostile],
                     ["people", "rename", "nobody", "x"]] {
            let result = try health.run(args)
            #expect(result.code == 64, "health \(args.debugDescription): \(result.code) \(result.error)")
            #expect(!result.error.contains("\u{1B}"), "health \(args.debugDescription) printed a raw escape: \(result.error.debugDescription)")
        }
        #expect(try health.run("people", "add", "ana").code == 0)
        let taken = try health.run("people", "add", "ana")
        #expect(taken.code == 64 && taken.error.contains("already exists"), "\(taken.error)")
        let unknown = try health.run("query", "step-count", "--person", "nobody")
        #expect(unknown.code == 64 && unknown.error.contains("'nobody'") && unknown.error.contains("health people list"), "\(unknown.error)")
        #expect(unknown.output.isEmpty)
    }

    /// Two people, each with their own source's minutes: every reading command sees only the one asked for.
    @Test func everyReadingCommandReadsThePersonAsked() throws {
        #expect(try health.run("people", "add", "ana").code == 0)
        #expect(try health.run("import", "-", input: minuteSteps(count: 3, source: "com.example.mine")).code == 0)
        let imported = try health.run("--person", "ana", "import", "-", input: minuteSteps(count: 5, source: "com.example.hers", steps: 7))
        #expect(imported.code == 0, "\(imported.error)")

        func stats(_ person: [String]) throws -> String {
            let result = try health.run(["stats", "step-count", "--day", "2026-11-30", "--tz", "UTC", "--json"] + person)
            #expect(result.code == 0, "\(result.error)")
            return result.output
        }
        #expect(try stats([]).contains(#""value":30"#))
        #expect(try stats(["--person", "ana"]).contains(#""value":35"#))
        // Without --person: the default person, the same bytes as naming them.
        #expect(try stats([]) == stats(["--person", "default"]))

        let mine = try health.run("export")
        let hers = try health.run("export", "--person", "ana")
        #expect(mine.output.split(separator: "\n").count == 3 && !mine.output.contains("com.example.hers"), "\(mine.output)")
        #expect(hers.output.split(separator: "\n").count == 5 && !hers.output.contains("com.example.mine"), "\(hers.output)")
        #expect(try health.run("query", "step-count", "--person", "ana").output.split(separator: "\n").count == 5)
        let sources = try health.run("sources", "--person", "ana")
        #expect(sources.output.contains("com.example.hers") && !sources.output.contains("com.example.mine"), "\(sources.output)")
        let feed = try health.run("changes", "--since", "0", "--json", "--person", "ana")
        #expect(feed.code == 0 && feed.output.contains("com.example.hers") && !feed.output.contains("com.example.mine"), "\(feed.output)")
    }

    @Test func workoutsAndProfilesAreThePersonsNamed() throws {
        #expect(try health.run("people", "add", "ana").code == 0)
        let added = try health.run("workouts", "add", "running", "--start", "2026-11-30T18:00:00Z", "--end", "2026-11-30T18:30:00Z",
                                   "--person", "ana")
        #expect(added.code == 0, "\(added.error)")
        func workoutCount(_ person: [String]) throws -> Int? {
            let list = try health.run(["workouts", "list", "--json"] + person)
            return (try json(list.output) as? [String: Any])?["count"] as? Int
        }
        #expect(try workoutCount(["--person", "ana"]) == 1)
        #expect(try workoutCount([]) == 0)
        #expect(try health.run("profile", "--set", "date-of-birth=1990-05-17", "--person", "ana").code == 0)
        #expect(try health.run("profile", "--person", "ana").output.contains("1990-05-17"))
        #expect(!(try health.run("profile").output.contains("1990-05-17")))
    }

    @Test func grantsAreForThePersonNamed() throws {
        #expect(try health.run("people", "add", "ana").code == 0)
        let granted = try health.run("grant", "com.example.app", "step-count", "--read", "--person", "ana")
        #expect(granted.code == 0 && granted.output == "com.example.app step-count for ana: read granted, write notDetermined\n",
                "\(granted.output) \(granted.error)")
        let ana = try HealthStore(path: temp.path, person: "ana")
        #expect(try ana.authorization(app: "com.example.app", type: "step-count").read == .granted)
        #expect(try temp.store.authorization(app: "com.example.app", type: "step-count").read == .notDetermined)
        // The default person's line is as it always was.
        let mine = try health.run("grant", "com.example.app", "step-count", "--read")
        #expect(mine.output == "com.example.app step-count: read granted, write notDetermined\n", "\(mine.output)")
    }
}
