import Foundation
import HealthModel
@testable import HealthStore
import HealthTestSupport
import Testing

/// A store an older BandKit wrote has no `sample_type` row for the types added since
/// (sleep-analysis). Commands that only read must still read it: they open it read-only and
/// may not add the row, so such a type simply has no samples.
@Suite struct OlderStoreTests {
    let temp: TemporaryStore
    let health: HealthCommand

    /// Steps from a phone app, written by the current BandKit, then the sleep-analysis row
    /// taken out again: the store exactly as a BandKit before sleep-analysis left it.
    init() throws {
        temp = try TemporaryStore()
        health = HealthCommand(store: temp.path)
        #expect(try health.run("import", "-", input: minuteSteps(count: 3, source: "com.example.app")).code == 0)
        try temp.store.withConnection { connection in
            try connection.execute("DELETE FROM sample_type WHERE identifier = 'sleep-analysis'").get()
        }
        #expect(try Self.sleepRows(temp.store) == 0)
    }

    static func sleepRows(_ store: HealthStore) throws -> Int64? {
        try store.withConnection { try $0.scalar("SELECT count(*) FROM sample_type WHERE identifier = 'sleep-analysis'").get() }
    }

    @Test func readOnlyCommandsReadItAndSeeNoSleep() throws {
        let reader = try HealthStore(path: temp.path, readOnly: true)
        #expect(try reader.samples(HealthQuery(type: .sleepAnalysis), as: .owner).isEmpty)
        #expect(try reader.samples(HealthQuery(type: .stepCount), as: .owner).count == 3)

        let stats = try health.run("stats", "step-count", "--day", "2026-11-30", "--tz", "UTC", "--json")
        #expect(stats.code == 0, "\(stats.error)")
        #expect(stats.output.contains(#""value":30"#), "\(stats.output)")
        let query = try health.run("query", "step-count")
        #expect(query.code == 0 && query.output.split(separator: "\n").count == 3, "\(query.error)")
        let export = try health.run("export")
        #expect(export.code == 0 && export.output.split(separator: "\n").count == 3, "\(export.error)")
        for args in [["sources"], ["changes", "--since", "0", "--json"], ["query", "sleep-analysis"],
                     ["priority", "sleep-analysis"], ["workouts", "list"],
                     ["chart", "--day", "2026-11-30", "--tz", "UTC", "-o", temp.directory + "/day.svg"]] {
            let result = try health.run(args)
            #expect(result.code == 0, "health \(args.joined(separator: " ")): \(result.error)")
            #expect(!result.error.contains("older BandKit"), "health \(args.joined(separator: " ")): \(result.error)")
        }
        let sleep = try health.run("sleep", "--night", "2026-11-30", "--tz", "UTC", "--json")
        #expect(sleep.code == 0, "\(sleep.error)")
        let night = try #require(try JSONSerialization.jsonObject(with: Data(sleep.output.utf8)) as? [String: Any])
        #expect((night["asleep_s"] as? NSNumber)?.doubleValue == 0, "\(sleep.output)")
        // Reading added nothing: the file is as the older BandKit left it.
        #expect(try Self.sleepRows(temp.store) == 0)
    }

    @Test func theFirstWriterRegistersTheNewTypeAndSleepCanBeStored() throws {
        let line = #"{"type":"sleep-analysis","value":"asleepUnspecified","start":"2026-11-30T23:00:00Z","end":"2026-12-01T06:00:00Z","source":"com.example.phone"}"#
        #expect(try health.run("import", "-", input: line + "\n").code == 0)
        #expect(try Self.sleepRows(temp.store) == 1)
        let query = try health.run("query", "sleep-analysis")
        #expect(query.code == 0 && query.output.split(separator: "\n").count == 1, "\(query.output) \(query.error)")
    }
}
