import HealthTestSupport
import Foundation
import HealthModel
import HealthStore
import Testing

/// `health chart`: valid SVG whose plotted numbers are `health stats`' numbers, DST days drawn
/// with 23 and 25 hours, the terminal form, and bad arguments.
@Suite struct ChartCommandTests {
    let temp: TemporaryStore
    let health: HealthCommand

    init() throws {
        temp = try TemporaryStore()
        health = HealthCommand(store: temp.path)
    }

    /// Minute steps and heart rate over a local day in Berlin, from two sources that overlap in
    /// the afternoon (so the merge matters), a workout and a night's sleep.
    func fillDay(_ date: String) throws {
        let berlin = TimeZone(identifier: "Europe/Berlin")!
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = berlin
        let parts = date.split(separator: "-").map { Int($0)! }
        let start = calendar.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2]))!
        let end = calendar.date(byAdding: .day, value: 1, to: start)!
        let formatter = ISO8601DateFormatter()
        var lines = ""
        var minute = start
        var index = 0
        while minute < end {
            let next = minute.addingTimeInterval(60)
            let steps = index % 7 == 0 ? 0 : (index * 37) % 120
            let bpm = 55 + (index * 13) % 90
            lines += #"{"type":"step-count","value":\#(steps),"start":"\#(formatter.string(from: minute))","end":"\#(formatter.string(from: next))","source":"bandkit.band"}"# + "\n"
            lines += #"{"type":"heart-rate","value":\#(bpm),"start":"\#(formatter.string(from: minute))","source":"bandkit.band"}"# + "\n"
            if (840..<900).contains(index) {
                lines += #"{"type":"step-count","value":50,"start":"\#(formatter.string(from: minute))","end":"\#(formatter.string(from: next))","source":"com.example.phone"}"# + "\n"
            }
            minute = next
            index += 1
        }
        let sleepEnd = start.addingTimeInterval(6 * 3600)
        lines += #"{"type":"sleep-analysis","value":"asleepUnspecified","start":"\#(formatter.string(from: start))","end":"\#(formatter.string(from: sleepEnd))","source":"bandkit.band"}"# + "\n"
        lines += #"{"type":"workout","activity":"running","start":"\#(formatter.string(from: start.addingTimeInterval(18 * 3600)))","end":"\#(formatter.string(from: start.addingTimeInterval(18.5 * 3600)))","source":"bandkit.band"}"# + "\n"
        let result = try health.run("import", "-", input: lines)
        #expect(result.code == 0, "\(result.error)")
    }

    func attributes(_ name: String, ofClass cls: String, in svg: String) -> [String] {
        let pattern = try! NSRegularExpression(pattern: "<[a-z]+ class=\"\(cls)\"[^>]* \(name)=\"([^\"]*)\"")
        return pattern.matches(in: svg, range: NSRange(svg.startIndex..., in: svg)).map {
            String(svg[Range($0.range(at: 1), in: svg)!])
        }
    }

    func statistic(_ arguments: String...) throws -> Double {
        let result = try health.run(["stats"] + arguments + ["--json"])
        let array = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as! [[String: Any]]
        return (array[0]["value"] as! NSNumber).doubleValue
    }

    func xmllint(_ path: String) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/xmllint")
        process.arguments = ["--noout", path]
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    @Test func theSVGIsValidAndItsNumbersAreHealthStats() throws {
        try fillDay("2026-11-30")
        let file = temp.directory + "/day.svg"
        let result = try health.run("chart", "--day", "2026-11-30", "--tz", "Europe/Berlin", "-o", file)
        #expect(result.code == 0, "\(result.error)")
        #expect(try xmllint(file) == 0)
        let svg = try String(contentsOfFile: file, encoding: .utf8)
        let steps = attributes("data-value", ofClass: "steps", in: svg).map { Double($0)! }
        #expect(steps.count == 24)
        #expect(steps.reduce(0, +) == (try statistic("step-count", "--day", "2026-11-30", "--tz", "Europe/Berlin", "--sum")))
        // The hour the phone overlaps the band is merged, not added: the same as stats per hour.
        let hourly = try health.run("stats", "step-count", "--day", "2026-11-30", "--tz", "Europe/Berlin", "--by", "hour", "--json")
        let perHour = (try JSONSerialization.jsonObject(with: Data(hourly.output.utf8)) as! [[String: Any]]).map { ($0["value"] as! NSNumber).doubleValue }
        #expect(steps == perHour)
        let maxima = attributes("data-max", ofClass: "hr", in: svg).map { Double($0)! }
        #expect(maxima.count == 1440)
        #expect(maxima.max() == (try statistic("heart-rate", "--day", "2026-11-30", "--tz", "Europe/Berlin", "--max")))
        #expect(attributes("data-min", ofClass: "hr", in: svg).map { Double($0)! }.min()
                == (try statistic("heart-rate", "--day", "2026-11-30", "--tz", "Europe/Berlin", "--min")))
        #expect(attributes("data-activity", ofClass: "workout", in: svg) == ["running"])
        #expect(attributes("data-value", ofClass: "sleep", in: svg) == ["asleep"])
        #expect(attributes("data-time", ofClass: "tick", in: svg).count == 24)
        // Standard output gets the same document.
        let stdout = try health.run("chart", "--day", "2026-11-30", "--tz", "Europe/Berlin")
        #expect(stdout.output.trimmingCharacters(in: .newlines) == svg.trimmingCharacters(in: .newlines))
    }

    @Test(arguments: [("2026-10-25", 25), ("2026-03-29", 23)])
    func dstDaysHaveTheirOwnNumberOfHours(_ day: String, _ hours: Int) throws {
        try fillDay(day)
        let file = temp.directory + "/dst.svg"
        #expect(try health.run("chart", "--day", day, "--zone", "Europe/Berlin", "-o", file).code == 0)
        #expect(try xmllint(file) == 0)
        let svg = try String(contentsOfFile: file, encoding: .utf8)
        #expect(attributes("data-time", ofClass: "tick", in: svg).count == hours)
        #expect(attributes("data-value", ofClass: "steps", in: svg).count == hours)
        #expect(attributes("data-max", ofClass: "hr", in: svg).count == hours * 60)
        let steps = attributes("data-value", ofClass: "steps", in: svg).map { Double($0)! }.reduce(0, +)
        #expect(steps == (try statistic("step-count", "--day", day, "--tz", "Europe/Berlin", "--sum")))
        let terminal = try health.run("chart", "--day", day, "--tz", "Europe/Berlin", "--terminal")
        #expect(terminal.code == 0)
        let lines = terminal.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[2].count == hours * 4, "heart-rate columns: \(lines[2].count)")
        #expect(lines[6].count == hours * 4)
        #expect(lines.contains { $0.hasPrefix("workout     running ") })
    }

    @Test func aWeekHasSevenDaysOfSteps() throws {
        try fillDay("2026-11-30")
        let week = try health.run("chart", "--week", "2026-11-30", "--tz", "Europe/Berlin")
        #expect(week.code == 0)
        let steps = attributes("data-value", ofClass: "steps", in: week.output).map { Double($0)! }
        #expect(steps.count == 7)
        #expect(steps[0] == (try statistic("step-count", "--day", "2026-11-30", "--tz", "Europe/Berlin", "--sum")))
        #expect(steps.dropFirst().allSatisfy { $0 == 0 })
        #expect(attributes("data-time", ofClass: "tick", in: week.output).count == 7)
    }

    @Test(arguments: [
        (["chart", "--day", "2026-02-30"], "--day '2026-02-30'"),
        (["chart", "--week", "30.11.2026"], "--week '30.11.2026'"),
        (["chart", "--day", "2026-11-30", "--zone", "Mars/Olympus"], "--zone 'Mars/Olympus'"),
        (["chart", "--day", "2026-11-30", "--tz", "Mars/Olympus"], "--tz 'Mars/Olympus'"),
        (["chart"], "give one of --day DATE and --week DATE"),
        (["chart", "--day", "2026-11-30", "--week", "2026-11-30"], "give one of --day DATE and --week DATE"),
    ])
    func badArgumentsAreUsageErrorsNamingThem(_ arguments: [String], _ message: String) throws {
        let result = try health.run(arguments)
        #expect(result.code == 64)
        #expect(result.error.contains(message), "\(result.error)")
    }

    @Test func anUnwritableOutputIsExit1NamingTheFile() throws {
        let result = try health.run("chart", "--day", "2026-11-30", "-o", temp.directory + "/missing/dir/day.svg")
        #expect(result.code == 1)
        #expect(result.error.contains("missing/dir/day.svg"))
    }
}
