import AppleHealth
import CommandKit
import Foundation
import HealthModel
import HealthStore

/// `health export`: every sample (or one type, one range) as NDJSON (importable) or CSV.
struct ExportCommand: Command {
    static let configuration = CommandConfiguration(
        name: "export", abstract: "Export samples and workouts as NDJSON (re-importable with 'health import'), samples as CSV, or everything as Apple Health export.xml.",
        options: [
            .option("format", value: "csv|json|apple-health",
                    help: "Output format (default: json, one object per line; apple-health: export.xml with workouts and characteristics)."),
            .option("type", value: "T", repeats: true, help: "Only this type (repeatable; default: all)."),
            .option("from", value: "T", help: "Samples overlapping from this time."),
            .option("to", value: "T", help: "… up to this time."),
            .option("tz", value: "ZONE", help: "Zone to print times in (default: UTC)."),
            storeOption, personOption,
        ])

    /// SQLite page cache for the export's one sequential pass.
    static let cacheKiB = 4_096

    var csv: Bool
    var appleHealth = false
    var exportsWorkouts = true
    var types: [SampleType]
    var range: Range<Date>?
    var zone: TimeZone
    var storePath: StoreChoice

    init(arguments: ParsedArguments) throws(UsageError) {
        switch arguments.value("format") ?? "json" {
        case "json": csv = false
        case "csv": csv = true
        case "apple-health": csv = false; appleHealth = true
        case let other: throw arguments.usageError("--format '\(other)' is not csv, json or apple-health")
        }
        var types: [SampleType] = []
        for name in arguments.values("type") { types.append(try arguments.sampleType(name)) }
        if csv && types.contains(.workout) {
            throw arguments.usageError("--type workout exports as JSON or apple-health only (CSV has no columns for workouts)")
        }
        // Everything by default; CSV, whose columns are a sample's, leaves workouts out.
        let samplesOnly = csv
        exportsWorkouts = types.isEmpty || types.contains(.workout)
        self.types = types.isEmpty ? SampleType.all.filter { !samplesOnly || $0 != .workout } : types
        zone = arguments.value("tz") == nil ? TimeZone(identifier: "UTC")! : try arguments.timeZone()
        range = try arguments.timeRange(zone: zone, defaultToday: false)
        storePath = arguments.storePath
    }

    func run() throws -> ExitCode {
        // One pass in index order reads each page once: a page cache beyond a few MiB would only
        // grow resident memory with the store (the default 64 MiB fills on a 1 M-sample store).
        let store = try openStore(storePath, readOnly: true, cacheKiB: Self.cacheKiB)
        let output = StandardOutput.shared
        if appleHealth { return try exportAppleHealth(store, output) }
        if csv { output.line(SampleFormatting.csvHeader) }
        for type in types {
            if type == .workout {
                try store.forEachWorkout(in: range, as: .owner) { workout in
                    output.line(WorkoutFormatting.importLine(workout, zone: zone))
                    try Self.stopAtWriteFailure(output)
                }
                continue
            }
            // Streamed a page at a time: memory stays flat however many samples the store holds.
            try store.forEachSample(HealthQuery(type: type, range: range), as: .owner) { sample in
                output.line(csv ? SampleFormatting.csv(sample, zone: zone) : SampleFormatting.json(sample, zone: zone))
                try Self.stopAtWriteFailure(output)
            }
        }
        return .success
    }

    /// export.xml on standard output: `Me`, then each type's records, then workouts (all types
    /// unless --type narrows them; --type workout for workouts only).
    private func exportAppleHealth(_ store: HealthStore, _ output: StandardOutput) throws -> ExitCode {
        output.write(ExportXMLWriter.header(exportDate: Date()))
        output.write(ExportXMLWriter.me(try store.characteristics(as: .owner)))
        for type in types where type != .workout {
            try store.forEachSample(HealthQuery(type: type, range: range), as: .owner) { sample in
                output.write(ExportXMLWriter.record(sample))
                try Self.stopAtWriteFailure(output)
            }
        }
        if exportsWorkouts {
            try store.forEachWorkout(in: range, as: .owner) { workout in
                output.write(ExportXMLWriter.workout(workout))
                try Self.stopAtWriteFailure(output)
            }
        }
        output.write(ExportXMLWriter.footer)
        try Self.stopAtWriteFailure(output)
        return .success
    }

    /// Stops at a full disk or closed pipe rather than format the rest for nothing.
    private static func stopAtWriteFailure(_ output: StandardOutput) throws {
        if let error = output.error { throw RuntimeFailure("health export: cannot write to standard output: \(error.reason)") }
    }
}
