import CommandKit
import Foundation
import HealthModel
import HealthStore
import JSONOutput

/// `health stats TYPE`: totals merged across sources (no double counting), in calendar buckets.
struct StatsCommand: Command {
    static let configuration = CommandConfiguration(
        name: "stats", abstract: "Statistics of a type: sums merged across sources by priority, or avg/min/max.",
        discussion: """
            Cumulative types (steps, distance, energy, flights) give the sum, merged by source priority so that
            overlapping recordings from several devices are counted once. Discrete types (heart rate, body mass, …)
            give --avg (default), --min, --max or --latest. Default range: today in --tz.
            JSON: an array of {"start","end","value","unit"} (+ "source" with --by-source); empty buckets have
            "value": null. At most 600,000 buckets (a leap year by minute): a wider range exits 64 naming the bound.
            """,
        options: [.argument("TYPE", help: "Quantity type.")] + rangeOptions + [
            .option("by", value: "minute|hour|day|week|month", help: "Bucket size (default: one bucket for the range)."),
            .flag("sum", help: "Sum (cumulative types)."),
            .flag("avg", help: "Average (discrete types)."),
            .flag("min", help: "Minimum (discrete types)."),
            .flag("max", help: "Maximum (discrete types)."),
            .flag("latest", help: "Most recent value (discrete types)."),
            .flag("by-source", help: "Per-source values too (each source on its own)."),
            .option("unit", value: "UNIT", help: "Report in this unit (default: the type's canonical unit)."),
            .flag("json", help: "Print JSON."),
            storeOption, personOption,
        ])

    var type: QuantityType
    var range: Range<Date>
    var bucket: BucketInterval?
    var option: StatisticsOptions
    var bySource: Bool
    var unit: HealthUnit
    var zone: TimeZone
    var json: Bool
    var storePath: StoreChoice

    init(arguments: ParsedArguments) throws(UsageError) {
        type = try arguments.quantityType(arguments.required("TYPE"))
        zone = try arguments.timeZone()
        range = try arguments.timeRange(zone: zone, defaultToday: true)!
        bucket = try arguments.value("by", as: "minute, hour, day, week or month") { BucketInterval(rawValue: $0) }
        if let tooMany = BucketCalendar.tooManyBuckets(range: range, interval: bucket) { throw arguments.usageError(tooMany.description) }
        let chosen: [(String, StatisticsOptions)] = [("sum", .sum), ("avg", .average), ("min", .minimum), ("max", .maximum),
                                                     ("latest", .mostRecent)].filter { arguments.flag($0.0) }
        if chosen.count > 1 { throw arguments.usageError("choose one of --sum, --avg, --min, --max, --latest") }
        option = chosen.first?.1 ?? StatisticsOptions.defaults(for: type)
        do { try option.validate(for: type) } catch { throw arguments.usageError(error.description) }
        unit = type.canonicalUnit
        if let symbol = arguments.value("unit") {
            do { unit = try HealthUnit(parsing: symbol) } catch { throw arguments.usageError(error.description) }
            guard unit.isCompatible(with: type.canonicalUnit) else {
                throw arguments.usageError(UnitError.incompatible(from: type.canonicalUnit, to: unit).description)
            }
        }
        bySource = arguments.flag("by-source")
        json = arguments.flag("json")
        storePath = arguments.storePath
    }

    func run() throws -> ExitCode {
        let store = try openStore(storePath, readOnly: true)
        let stats = try store.statistics(type: type, range: range, options: option, bucket: bucket, timeZone: zone,
                                         bySource: bySource, as: .owner)
        let statistic = [(StatisticsOptions.sum, "sum"), (.average, "average"), (.minimum, "minimum"), (.maximum, "maximum"),
                         (.mostRecent, "latest value")].first { option.contains($0.0) }?.1 ?? "value"
        func converted(_ value: Double?, _ start: String, _ end: String, _ source: String? = nil) throws -> Double? {
            try value.map {
                try finite(type.canonicalUnit.convert($0, to: unit),
                           "health stats: the \(statistic) of \(type) from \(start) to \(end)\(source.map { " from \($0.terminalEscaped)" } ?? "")")
            }
        }
        var objects = JSONWriter(sink: JSONBuffer(capacity: json ? 128 * stats.count + 2 : 0))
        objects.beginArray()
        /// One bucket's figure, on a line of its own: a source's, or the merged one (no source).
        func addObject(_ start: String, _ end: String, _ value: Double?, source: String? = nil) {
            objects.lineBreak()
            objects.beginObject()
            objects.key("start"); objects.value(start)
            objects.key("end"); objects.value(end)
            objects.key("value"); objects.value(value)
            objects.key("unit"); objects.value(unit.symbol)
            if let source { objects.key("source"); objects.value(source) }
            objects.endObject()
        }
        var lines: [String] = []
        for bucketStats in stats {
            let start = TimeParsing.format(bucketStats.start, in: zone)
            let end = TimeParsing.format(bucketStats.end, in: zone)
            let value = try converted(bucketStats.values.value(for: option), start, end)
            if bySource {
                for source in bucketStats.bySource {
                    let sourceValue = try converted(source.values.value(for: option), start, end, source.source)
                    addObject(start, end, sourceValue, source: source.source)
                    lines.append("\(start)  \(end)  \(sourceValue.map(formatValue) ?? "—") \(unit.symbol)  \(source.source.terminalEscaped)")
                }
                lines.append("\(start)  \(end)  \(value.map(formatValue) ?? "—") \(unit.symbol)  (merged)")
            } else {
                addObject(start, end, value)
                lines.append("\(start)  \(end)  \(value.map(formatValue) ?? "—") \(unit.symbol)")
            }
        }
        objects.endArray()
        StandardOutput.shared.line(json ? objects.text : lines.joined(separator: "\n"))
        return .success
    }
}
