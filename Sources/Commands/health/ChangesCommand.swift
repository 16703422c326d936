import CommandKit
import Foundation
import HealthModel
import HealthStore
import JSONOutput

/// `health changes --since ANCHOR`: the change feed; `--wait` blocks until something changes.
struct ChangesCommand: Command {
    static let configuration = CommandConfiguration(
        name: "changes", abstract: "Samples added/replaced and deleted, and workouts saved, since an anchor, and the new anchor.",
        discussion: "Start with --since 0; pass the printed anchor next time. --wait SECONDS blocks until a change is committed.",
        options: [
            .option("since", value: "ANCHOR", help: "Anchor from the previous call (0 for everything)."),
            .option("type", value: "T", repeats: true, help: "Only these types."),
            .option("limit", value: "N", help: "At most N samples and workouts (page with the printed anchor)."),
            .option("wait", value: "SECONDS", help: "Block up to SECONDS for a change after the anchor."),
            .flag("json", help: "Print JSON."),
            .option("tz", value: "ZONE", help: "Zone to print times in (default: local)."),
            storeOption, personOption,
        ])

    var since: Anchor
    var types: Set<SampleType>?
    var limit: Int?
    var wait: Double?
    var json: Bool
    var zone: TimeZone
    var storePath: StoreChoice

    init(arguments: ParsedArguments) throws(UsageError) {
        guard let anchor = try arguments.value("since", as: "an anchor (a non-negative integer)", { Int64($0).flatMap { $0 >= 0 ? $0 : nil } }) else {
            throw arguments.usageError("--since ANCHOR is required (0 for everything)")
        }
        since = Anchor(rawValue: anchor)
        var types: Set<SampleType> = []
        for name in arguments.values("type") { types.insert(try arguments.sampleType(name)) }
        self.types = types.isEmpty ? nil : types
        limit = try arguments.value("limit", as: "a positive count") { Int($0).flatMap { $0 > 0 ? $0 : nil } }
        wait = try arguments.value("wait", as: "a number of seconds") { Double($0).flatMap { $0 >= 0 && $0.isFinite ? $0 : nil } }
        json = arguments.flag("json")
        zone = try arguments.timeZone()
        storePath = arguments.storePath
    }

    func run() throws -> ExitCode {
        let store = try openStore(storePath, readOnly: true)
        if let wait {
            _ = try store.waitForChanges(after: since, timeout: .milliseconds(Int64(wait * 1000)))
        }
        let changes = try store.changes(since: since, types: types, limit: limit, as: .owner)
        if json {
            StandardOutput.shared.line(JSON.text { json in
                json.beginObject()
                json.key("anchor"); json.value(changes.newAnchor.rawValue)
                json.key("samples")
                json.beginArray()
                for sample in changes.samples { SampleFormatting.writeJSON(sample, zone: zone, to: &json) }
                json.endArray()
                json.key("deleted")
                json.beginArray()
                for deleted in changes.deleted {
                    json.beginObject()
                    json.key("id"); json.value(deleted.id.uuidString.lowercased())
                    json.key("type"); json.value(deleted.type.identifier)
                    json.endObject()
                }
                json.endArray()
                json.key("workouts")
                json.beginArray()
                for workout in changes.workouts { WorkoutFormatting.writeImportObject(workout, zone: zone, to: &json) }
                json.endArray()
                json.endObject()
            })
        } else {
            for deleted in changes.deleted { StandardOutput.shared.line("deleted \(deleted.type) \(deleted.id.uuidString.lowercased())") }
            for sample in changes.samples { StandardOutput.shared.line("\(sample.sampleType)  " + SampleFormatting.line(sample, zone: zone)) }
            for workout in changes.workouts {
                StandardOutput.shared.line("workout  \(TimeParsing.format(workout.start, in: zone))  \(TimeParsing.format(workout.end, in: zone))  "
                    + "\(workout.activity.rawValue.terminalEscaped)  \((workout.source?.id ?? "").terminalEscaped)")
            }
            StandardOutput.shared.line("anchor \(changes.newAnchor.rawValue)")
        }
        return .success
    }
}
