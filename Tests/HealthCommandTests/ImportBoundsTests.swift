import HealthTestSupport
import Foundation
import HealthModel
import HealthStore
import JSONOutput
import Testing

/// Bounded inputs: names, lines, statistics buckets, dashboard and chart dates; files that are
/// not imports said to be what they are.
@Suite struct ImportBoundsTests {
    let temp: TemporaryStore
    let health: HealthCommand

    init() throws {
        temp = try TemporaryStore()
        health = HealthCommand(store: temp.path)
    }

    func write(_ bytes: [UInt8], _ name: String) throws -> String {
        let path = temp.directory + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func line(source: String = "com.example", extra: String = "") -> String {
        #"{"type":"step-count","value":3,"start":"2026-11-30T07:00:00Z","source":\#(JSON.quoted(source))\#(extra)}"# + "\n"
    }

    @Test(arguments: [
        (line(source: String(repeating: "s", count: 257)), "line 2: field 'source': is longer than 256 characters"),
        (line(extra: #","source_version":"\#(String(repeating: "v", count: 300))""#), "line 2: field 'source_version'"),
        (line(extra: #","device":"\#(String(repeating: "d", count: 300))""#), "line 2: field 'device': is longer"),
        (line(extra: #","device":{"model":"\#(String(repeating: "é", count: 257))"}"#), "line 2: field 'device.model': is longer"),
    ])
    func namesLongerThan256CharactersAreExit65NamingLineAndField(_ bad: String, _ message: String) throws {
        let result = try health.run("import", "-", input: Self.line() + bad)
        #expect(result.code == 65, "\(result.error)")
        #expect(result.error.contains(message), "\(result.error)")
        #expect(try temp.store.sources(of: nil).isEmpty)
    }

    @Test func aLongSourceOrDeviceOnTheCommandLineIsAUsageError() throws {
        for option in ["--source", "--device"] {
            let result = try health.run("add", "step-count", "5", option, String(repeating: "s", count: 257))
            #expect(result.code == 64, "\(result.error)")
            #expect(result.error.contains("\(option) is longer than 256 characters"), "\(result.error)")
        }
    }

    @Test func aNameOf256CharactersIsKept() throws {
        let name = String(repeating: "é", count: 256)
        #expect(try health.run("import", "-", input: Self.line(source: name)).code == 0)
        #expect(try temp.store.sources(of: nil).map(\.source) == [name])
    }

    /// A 50 MB field is refused as a too-long line, read in bounded memory, not parsed.
    @Test func aFiftyMegabyteLineIsRefusedNamingTheLine() throws {
        var bytes = Array(Self.line().utf8)
        bytes += Array(#"{"type":"step-count","value":3,"start":"2026-11-30T07:00:00Z","source":""#.utf8)
        bytes += [UInt8](repeating: 0x61, count: 50 << 20)
        bytes += Array("\"}\n".utf8)
        let result = try health.run("import", write(bytes, "big.ndjson"))
        #expect(result.code == 65, "\(result.error)")
        #expect(result.error.contains("line 2: longer than 1048576 bytes"), "\(result.error)")
    }

    @Test func aLongAppleSourceNameIsRefusedNamingTheLine() throws {
        let xml = AppleHealthImportTests.prologue
            + AppleHealthImportTests.record("HKQuantityTypeIdentifierStepCount", "5", source: String(repeating: "W", count: 1 << 20))
            + "</HealthData>\n"
        let result = try health.run("import", write(Array(xml.utf8), "export.xml"))
        #expect(result.code == 65, "\(result.error)")
        #expect(result.error.contains("sourceName is longer than 256 characters"), "\(result.error)")
        #expect(result.error.contains("line 8"), "\(result.error)")
    }

    @Test func filesThatAreNotImportsSayWhatTheyAre() throws {
        // A store given to import instead of --store.
        let store = try TemporaryStore()
        if !TemporaryStore.usesPostgreSQL {
            let sqlite = try health.run("import", store.path)
            #expect(sqlite.code == 65, "\(sqlite.error)")
            #expect(sqlite.error.contains("is a SQLite database"), "\(sqlite.error)")
            #expect(sqlite.error.contains("health import reads NDJSON"), "\(sqlite.error)")
        }
        let garbage = try health.run("import", write([0x13, 0x37, 0x00, 0xFF, 0x42], "export.zip"))
        #expect(garbage.code == 65, "\(garbage.error)")
        #expect(garbage.error.contains("is named .zip but is not a zip archive (it starts with 13 37 00 ff 42)"), "\(garbage.error)")
        let empty = try health.run("import", write([], "export.zip"))
        #expect(empty.code == 65, "\(empty.error)")
        #expect(empty.error.contains("is empty (0 bytes)"), "\(empty.error)")
        let binary = try health.run("import", write([0x7B, 0x00, 0x01], "samples.ndjson"))
        #expect(binary.code == 65, "\(binary.error)")
        #expect(binary.error.contains("is not text"), "\(binary.error)")
        // An empty NDJSON file is an empty backup.
        #expect(try health.run("import", write([], "empty.ndjson")).code == 0)
    }

    @Test func statisticsOverTooManyBucketsAreRefusedNamingTheBound() throws {
        for (from, to) in [("0001-01-01T00:00Z", "9999-12-31T00:00Z"), ("1900-01-01T00:00Z", "2099-12-31T00:00Z")] {
            let result = try health.run("stats", "step-count", "--from", from, "--to", to, "--by", "minute")
            #expect(result.code == 64, "\(result.error)")
            #expect(result.error.contains("more than the 600000"), "\(result.error)")
        }
        let year = try health.run("stats", "step-count", "--from", "2024-01-01T00:00Z", "--to", "2025-01-01T00:00Z", "--by", "minute", "--json")
        #expect(year.code == 0, "\(year.error)")
        #expect(year.output.components(separatedBy: "\"start\"").count - 1 == 527_040)
        #expect(try health.run("stats", "step-count", "--from", "1900-01-01T00:00Z", "--to", "2099-12-31T00:00Z", "--by", "day").code == 0)
    }

    @Test func farDatesAreRefusedByTheChartAndTheDashboardAlike() throws {
        let chart = try health.run("chart", "--day", "9999-12-31", "--terminal")
        #expect(chart.code == 64, "\(chart.error)")
        let server = try ServeCommandTests.Server(health)
        func status(_ path: String) -> String { String(ServeCommandTests.get(server.port, path).prefix(12)) }
        for date in ["9999-12-31", "0001-01-01", "2100-01-01"] {
            #expect(status("/chart.svg?view=night&date=\(date)") == "HTTP/1.1 400", "\(date)")
            #expect(status("/chart.svg?view=day&date=\(date)") == "HTTP/1.1 400", "\(date)")
            #expect(status("/day?date=\(date)") == "HTTP/1.1 400", "\(date)")
        }
        #expect(status("/chart.svg?view=night&date=2099-12-30") == "HTTP/1.1 200")
        #expect(server.stop().code == 0)
        let sleep = try health.run("sleep", "--night", "9999-12-31")
        #expect(sleep.code == 64, "\(sleep.error)")
    }
}
