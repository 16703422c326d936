import CommandKit
import Foundation
import HealthAnalysis
import HealthModel
import HealthStore
import JSONOutput

/// `health sleep [--night DATE]`: one night's sleep from every source, merged by priority.
struct SleepCommand: Command {
    static let configuration = CommandConfiguration(
        name: "sleep", abstract: "One night's sleep: time in bed, asleep, awakenings, efficiency.",
        discussion: """
            The night of DATE runs from noon on DATE to noon the next day in --tz (23 or 25 hours across a DST
            change); default: last night. Sleep-analysis samples from every source are merged by source priority
            ('health priority sleep-analysis …'): where two sources recorded the same time, the better-ranked one
            alone counts, so nothing is counted twice. In bed is the time covered by the winning sources' samples,
            asleep the part whose value is asleep (unspecified, core, deep or REM), awakenings the awake stretches
            with sleep on both sides, efficiency asleep / in bed.
            JSON: {"night","window_start","window_end","start","end","in_bed_s","asleep_s","awake_s","awakenings",
            "efficiency","sources","segments":[{"start","end","value","source"}]}; start, end and efficiency are
            null for a night without sleep. Exit 64 for a bad --night or --tz.
            """,
        options: [
            .option("night", value: "DATE", help: "The night that starts on DATE (YYYY-MM-DD); default: last night."),
            .option("tz", value: "ZONE", help: "Time zone of the night (default: local)."),
            .flag("json", help: "Print JSON."),
            storeOption, personOption,
        ])

    var night: String
    var window: Range<Date>
    var zone: TimeZone
    var json: Bool
    var storePath: StoreChoice

    init(arguments: ParsedArguments) throws(UsageError) {
        zone = try arguments.timeZone()
        night = arguments.value("night") ?? SleepNight.name(containing: Date().addingTimeInterval(-12 * 3600), in: zone)
        guard let window = SleepNight.window(named: night, in: zone) else {
            throw arguments.usageError("--night '\(night)' is not a date (YYYY-MM-DD)")
        }
        self.window = window
        json = arguments.flag("json")
        storePath = arguments.storePath
    }

    func run() throws -> ExitCode {
        let store = try openStore(storePath, readOnly: true)
        let report = try NightReport(store: store, night: night, window: window)
        StandardOutput.shared.line(json ? report.json(zone: zone) : report.text(zone: zone))
        return .success
    }
}

/// A night read from the store and merged: what `health sleep` prints (and the dashboard shows).
struct NightReport {
    var night: String
    var window: Range<Date>
    var summary: SleepSummary
    /// Source identifiers by rank.
    var sourcesByRank: [Int: String]

    init(store: HealthStore, night: String, window: Range<Date>, as app: AppIdentity = .owner) throws {
        let priority = try store.sourcePriority(for: .category(.sleepAnalysis))
        let samples = try store.samples(HealthQuery(type: .sleepAnalysis, range: window), as: app)
        self.init(night: night, window: window, samples: samples, priority: priority)
    }

    /// A night from samples already read: `samples` may reach beyond `window` (one query over
    /// several nights); only those the store's `.overlaps` query over `window` would return count.
    init(night: String, window: Range<Date>, samples: [Sample], priority: [String]) {
        self.night = night
        self.window = window
        let rankOf = Dictionary(priority.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        var intervals: [SleepInterval] = []
        for sample in samples {
            guard let category = sample.categorySample, let value = SleepValue(rawValue: category.value) else { continue }
            // HealthQuery's `.overlaps`: start < to && end > from; an instant when from ≤ start < to.
            let overlaps = category.start == category.end
                ? window.lowerBound <= category.start && category.start < window.upperBound
                : category.start < window.upperBound && category.end > window.lowerBound
            guard overlaps else { continue }
            let rank = category.source.flatMap { rankOf[$0.id] } ?? priority.count
            intervals.append(SleepInterval(start: category.start, end: category.end, value: value, rank: rank))
        }
        summary = SleepMerge.summary(intervals, clippedTo: window)
        sourcesByRank = Dictionary(priority.enumerated().map { ($0, $1) }, uniquingKeysWith: { first, _ in first })
    }

    /// Several nights (a week or month view) with one priority lookup and one sample query over
    /// all their windows, instead of one of each per night.
    static func nights(store: HealthStore, _ windows: [(night: String, window: Range<Date>)],
                       as app: AppIdentity = .owner) throws -> [NightReport] {
        guard let from = windows.map(\.window.lowerBound).min(), let to = windows.map(\.window.upperBound).max() else { return [] }
        let priority = try store.sourcePriority(for: .category(.sleepAnalysis))
        let samples = try store.samples(HealthQuery(type: .sleepAnalysis, range: from..<to), as: app)
        return windows.map { NightReport(night: $0.night, window: $0.window, samples: samples, priority: priority) }
    }

    var sources: [String] {
        var seen: [String] = []
        for stretch in summary.timeline {
            let name = sourcesByRank[stretch.rank] ?? "?"
            if !seen.contains(name) { seen.append(name) }
        }
        return seen
    }

    static func valueName(_ value: SleepValue) -> String { CategoryType.sleepAnalysis.valueNames[value.rawValue] }

    func json(zone: TimeZone) -> String {
        JSON.text { json in
            func time(_ date: Date?) -> String? { date.map { TimeParsing.format($0, in: zone) } }
            json.beginObject()
            json.key("night"); json.value(night)
            json.key("window_start"); json.value(time(window.lowerBound))
            json.key("window_end"); json.value(time(window.upperBound))
            json.key("start"); json.value(time(summary.start))
            json.key("end"); json.value(time(summary.end))
            json.key("in_bed_s"); json.value(summary.inBed)
            json.key("asleep_s"); json.value(summary.asleep)
            json.key("awake_s"); json.value(summary.awake)
            json.key("awakenings"); json.value(summary.awakenings)
            json.key("efficiency"); json.value(summary.efficiency)
            json.key("sources")
            json.beginArray()
            for source in sources { json.value(source) }
            json.endArray()
            json.key("segments")
            json.beginArray()
            for stretch in summary.timeline {
                json.beginObject()
                json.key("start"); json.value(time(stretch.start))
                json.key("end"); json.value(time(stretch.end))
                json.key("value"); json.value(Self.valueName(stretch.value))
                json.key("source"); json.value(sourcesByRank[stretch.rank] ?? "?")
                json.endObject()
            }
            json.endArray()
            json.endObject()
        }
    }

    func text(zone: TimeZone) -> String {
        let header = "night \(night)  \(TimeParsing.format(window.lowerBound, in: zone)) – \(TimeParsing.format(window.upperBound, in: zone))"
        guard let start = summary.start, let end = summary.end else { return header + "\nno sleep recorded" }
        func clock(_ date: Date) -> String { String(TimeParsing.format(date, in: zone).dropFirst(11).prefix(5)) }
        return [
            header,
            "in bed      \(Self.duration(summary.inBed))  (\(clock(start)) – \(clock(end)))",
            "asleep      \(Self.duration(summary.asleep))",
            "awake       \(Self.duration(summary.awake)), \(summary.awakenings) awakening\(summary.awakenings == 1 ? "" : "s")",
            "efficiency  \(summary.efficiency.map { String(format: "%.1f %%", $0 * 100) } ?? "—")",
            "sources     \(sources.map(\.terminalEscaped).joined(separator: ", "))",
        ].joined(separator: "\n")
    }

    /// `7 h 05 min`, `35 min`.
    static func duration(_ seconds: Double) -> String {
        let minutes = Int((seconds / 60).rounded())
        return minutes >= 60 ? "\(minutes / 60) h \(minutes % 60 < 10 ? "0" : "")\(minutes % 60) min" : "\(minutes) min"
    }
}
