import CommandKit
import Foundation
import HealthAnalysis
import HealthModel
import HealthStore

/// `health chart --day DATE | --week DATE`: the day (or week) drawn as SVG or in the terminal.
struct ChartCommand: Command {
    static let configuration = CommandConfiguration(
        name: "chart", abstract: "Draw a day or a week: heart rate, steps, sleep, workouts (SVG or terminal).",
        discussion: """
            A day: heart rate per minute (average line in a min–max band), steps per hour, the sleep hypnogram,
            workouts shaded, on a local-time axis in --tz (a 23- or 25-hour day is drawn as it was). A week (7 local
            days from DATE): heart rate per hour, steps per day. Values are the store's merged statistics, the same
            numbers 'health stats' prints. SVG goes to -o FILE or standard output; --terminal draws Unicode blocks.
            Exit 64 for a bad date or zone, 1 when FILE cannot be written.
            """,
        options: [
            .option("day", value: "DATE", help: "The local day DATE (YYYY-MM-DD)."),
            .option("week", value: "DATE", help: "Seven local days from DATE."),
            .option("tz", value: "ZONE", help: "Time zone of the axis (default: local)."),
            .option("zone", value: "ZONE", help: "Same as --tz."),
            .flag("terminal", help: "Draw with Unicode blocks instead of SVG."),
            .option("output", value: "FILE", help: "Write the SVG to FILE (also -o FILE)."),
            storeOption, personOption,
        ])

    var range: Range<Date>
    var zone: TimeZone
    var title: String
    var terminal: Bool
    var outputPath: String?
    var storePath: StoreChoice

    init(arguments: ParsedArguments) throws(UsageError) {
        if arguments.value("tz") != nil && arguments.value("zone") != nil { throw arguments.usageError("give --tz or --zone, not both") }
        if let name = arguments.value("zone") {
            guard let named = TimeZone(identifier: name) else {
                throw arguments.usageError("--zone '\(name)' is not a time zone name (e.g. Europe/Berlin, America/New_York, UTC)")
            }
            zone = named
        } else {
            zone = try arguments.timeZone()
        }
        let day = arguments.value("day"), week = arguments.value("week")
        guard (day == nil) != (week == nil) else { throw arguments.usageError("give one of --day DATE and --week DATE") }
        let option = day != nil ? "--day" : "--week"
        let text = day ?? week!
        guard let range = ChartRange.days(startingOn: text, count: day != nil ? 1 : 7, in: zone) else {
            throw arguments.usageError("\(option) '\(text)' is not a date (YYYY-MM-DD)")
        }
        self.range = range
        title = day != nil ? "\(text) (\(zone.identifier))" : "week of \(text) (\(zone.identifier))"
        terminal = arguments.flag("terminal")
        outputPath = arguments.value("output")
        if terminal && outputPath != nil { throw arguments.usageError("-o writes SVG; leave out --terminal") }
        storePath = arguments.storePath
    }

    func run() throws -> ExitCode {
        let store = try openStore(storePath, readOnly: true)
        let data = try ChartLoading.load(store: store, title: title, range: range, zone: zone, as: .owner)
        if terminal {
            for line in TerminalChart.render(data) { StandardOutput.shared.line(line) }
            for workout in data.workouts {
                StandardOutput.shared.line("workout     \(workout.activity.terminalEscaped) \(TimeParsing.format(workout.start, in: zone)) – \(TimeParsing.format(workout.end, in: zone))")
            }
            return .success
        }
        let svg = SVGChart.render(data)
        guard let outputPath else {
            StandardOutput.shared.line(svg.hasSuffix("\n") ? String(svg.dropLast()) : svg)
            return .success
        }
        do { try Data(svg.utf8).write(to: URL(fileURLWithPath: outputPath), options: .atomic) } catch {
            throw RuntimeFailure("health chart: cannot write \(outputPath.terminalEscaped): \(error.localizedDescription)")
        }
        return .success
    }
}

/// Ranges of local days.
enum ChartRange {
    /// `count` local days from midnight of `text` (YYYY-MM-DD) in `zone`; nil when not a date.
    static func days(startingOn text: String, count: Int, in zone: TimeZone) -> Range<Date>? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
              (1...12).contains(month), (1...31).contains(day), SleepNight.years.contains(year) else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        guard let noon = calendar.date(from: DateComponents(year: year, month: month, day: day, hour: 12)),
              calendar.component(.day, from: noon) == day else { return nil }
        let start = calendar.startOfDay(for: noon)
        guard let end = calendar.date(byAdding: .day, value: count, to: start) else { return nil }
        return start..<end
    }
}

/// Reads what a chart (or the dashboard) shows from the store, as `app`.
enum ChartLoading {
    static func load(store: HealthStore, title: String, range: Range<Date>, zone: TimeZone, as app: AppIdentity) throws -> ChartData {
        let multiDay = range.upperBound.timeIntervalSince(range.lowerBound) > 25 * 3600
        let heart = try store.statistics(type: .heartRate, range: range, options: [.average, .minimum, .maximum],
                                         bucket: multiDay ? .hour : .minute, timeZone: zone, as: app)
        let rates = heart.compactMap { bucket -> ChartData.HeartRate? in
            guard let average = bucket.values.average, let minimum = bucket.values.minimum, let maximum = bucket.values.maximum else { return nil }
            return ChartData.HeartRate(start: bucket.start, end: bucket.end, average: average, minimum: minimum, maximum: maximum)
        }
        let steps = try store.statistics(type: .stepCount, range: range, options: .sum, bucket: multiDay ? .day : .hour,
                                         timeZone: zone, as: app)
            .map { ChartData.Total(start: $0.start, end: $0.end, value: $0.values.sum ?? 0) }
        let sleep = try NightReport(store: store, night: "", window: range, as: app).summary.timeline
        let workouts = try store.workouts(in: range, as: app).map {
            ChartData.Workout(start: max($0.start, range.lowerBound), end: min($0.end, range.upperBound), activity: $0.activity.rawValue)
        }
        return ChartData(title: title, range: range, zone: zone, heartRate: rates, steps: steps, sleep: sleep, workouts: workouts)
    }
}
