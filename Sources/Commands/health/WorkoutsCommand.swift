import CommandKit
import Foundation
import HealthModel
import HealthStore
import JSONOutput

/// `health workouts add|list|export|delete`.
struct WorkoutsCommand: Command {
    static let configuration = CommandConfiguration(
        name: "workouts", abstract: "Workouts (HealthKit HKWorkout): add, list with statistics, export, delete.",
        subcommands: [WorkoutsAddCommand.self, WorkoutsListCommand.self, WorkoutsExportCommand.self, WorkoutsDeleteCommand.self])
}

/// `health workouts add ACTIVITY --start T --end T [--energy Q] [--distance Q]`: a manual entry.
struct WorkoutsAddCommand: Command {
    static let configuration = CommandConfiguration(
        name: "add", abstract: "Add a workout by hand (saved as the health command, the manual-entry source).",
        discussion: """
            ACTIVITY is a HealthKit activity (HKWorkoutActivityType) by its case name or in kebab case:
            traditionalStrengthTraining or traditional-strength-training; it is stored by its case name.
            The activities: \(WorkoutActivityType.all.map(\.rawValue).joined(separator: ", ")).
            --energy and --distance take a number with an optional unit: 350, 350kcal, '1464 kJ'; 5000, 5km, '3.1 mi'
            (default units kcal and m).
            """,
        options: [
            .argument("ACTIVITY", help: "Activity (running, walking, cycling, …)."),
            .option("start", value: "T", help: "Start (ISO 8601; required)."),
            .option("end", value: "T", help: "End (required)."),
            .option("energy", value: "Q", help: "Total active energy (default unit kcal)."),
            .option("distance", value: "Q", help: "Total distance (default unit m)."),
            .option("tz", value: "ZONE", help: "Zone for times without offset (default: local)."),
            storeOption, personOption,
        ])

    var workout: Workout
    var storePath: StoreChoice

    init(arguments: ParsedArguments) throws(UsageError) {
        let name = try arguments.required("ACTIVITY")
        guard let activity = WorkoutActivityType(name: name) else {
            throw arguments.usageError("ACTIVITY '\(name)' is not \(WorkoutActivityType.namesHint)")
        }
        let zone = try arguments.timeZone()
        guard let start = try arguments.instant("start", zone: zone) else { throw arguments.usageError("--start T is required") }
        guard let end = try arguments.instant("end", zone: zone) else { throw arguments.usageError("--end T is required") }
        guard end > start else { throw arguments.usageError("--end must be after --start") }
        if let problem = PlausibleRange.problem(start: start, end: end, maximumDuration: SampleType.workout.maximumDuration) {
            throw arguments.usageError("the workout \(problem)")
        }
        func quantity(_ option: String, _ unit: HealthUnit, _ range: ClosedRange<Double>) throws(UsageError) -> Quantity? {
            guard let text = arguments.value(option) else { return nil }
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            let numberEnd = trimmed.firstIndex { !("0"..."9").contains($0) && $0 != "." && $0 != "-" && $0 != "+" && $0 != "e" } ?? trimmed.endIndex
            let symbol = trimmed[numberEnd...].trimmingCharacters(in: .whitespaces)
            guard let value = Double(trimmed[..<numberEnd]), value.isFinite else {
                throw arguments.usageError("--\(option) '\(text)' is not a number with an optional unit (e.g. 350 or '1464 kJ')")
            }
            var given = unit
            if !symbol.isEmpty {
                do { given = try HealthUnit(parsing: symbol) } catch { throw arguments.usageError("--\(option) '\(text)': \(error.description)") }
            }
            let canonical: Double
            do { canonical = try Quantity(value, given).value(in: unit) } catch {
                throw arguments.usageError("--\(option) '\(text)': \(error.description)")
            }
            guard range.contains(canonical) else {
                throw arguments.usageError("--\(option) '\(text)' is outside \(formatValue(range.lowerBound)) … \(formatValue(range.upperBound)) \(unit.symbol)")
            }
            return Quantity(canonical, unit)
        }
        workout = Workout(activity: activity, start: start, end: end,
                          totalEnergyBurned: try quantity("energy", .kilocalorie, 0...100_000),
                          totalDistance: try quantity("distance", .meter, 0...6_000_000))
        storePath = arguments.storePath
    }

    func run() throws -> ExitCode {
        let store = try openStore(storePath)
        try store.write(as: .owner) { transaction in try transaction.save(workout) }
        StandardOutput.shared.line("added \(workout.activity.rawValue) workout \(workout.id.uuidString.lowercased())")
        return .success
    }
}

/// `health workouts list [range] [--activity A] [--json]`.
struct WorkoutsListCommand: Command {
    static let configuration = CommandConfiguration(
        name: "list", abstract: "Workouts in a range with their statistics, and totals.",
        discussion: """
            Per workout: duration, distance and energy (the workout's own totals, else the merged samples inside
            it — never both), average and maximum heart rate of the heart-rate samples inside it. Totals: count,
            duration, distance, energy. Default range: everything.
            JSON: {"count","duration_s","distance_m","energy_kcal","workouts":[{"id","activity","start","end",
            "duration_s","distance_m","energy_kcal","hr_avg","hr_max","source"}]} (null where unknown).
            """,
        options: rangeOptions + [
            .option("activity", value: "A", help: "Only this activity."),
            .flag("json", help: "Print JSON."),
            storeOption, personOption,
        ])

    var range: Range<Date>?
    var activity: WorkoutActivityType?
    var zone: TimeZone
    var json: Bool
    var storePath: StoreChoice

    init(arguments: ParsedArguments) throws(UsageError) {
        zone = try arguments.timeZone()
        range = try arguments.timeRange(zone: zone, defaultToday: false)
        if let name = arguments.value("activity") {
            guard let named = WorkoutActivityType(name: name) else {
                throw arguments.usageError("--activity '\(name)' is not \(WorkoutActivityType.namesHint)")
            }
            activity = named
        }
        json = arguments.flag("json")
        storePath = arguments.storePath
    }

    func run() throws -> ExitCode {
        let store = try openStore(storePath, readOnly: true)
        let workouts = try store.workouts(in: range, as: .owner).filter { activity == nil || $0.activity == activity }
        let stats = try workouts.map { try store.statistics(of: $0, as: .owner) }
        let duration = stats.reduce(0) { $0 + $1.duration }
        func total(_ values: [Double?]) -> Double? { values.contains { $0 != nil } ? values.reduce(0) { $0 + ($1 ?? 0) } : nil }
        let distance = total(stats.map(\.distanceMetres))
        let energy = total(stats.map(\.energyKilocalories))
        if json {
            StandardOutput.shared.line(JSON.text { json in
                json.beginObject()
                json.key("count"); json.value(stats.count)
                json.key("duration_s"); json.value(duration)
                json.key("distance_m"); json.value(distance)
                json.key("energy_kcal"); json.value(energy)
                json.key("workouts")
                json.beginArray()
                for stat in stats { WorkoutFormatting.writeJSON(stat, zone: zone, to: &json) }
                json.endArray()
                json.endObject()
            })
        } else {
            for stat in stats { StandardOutput.shared.line(WorkoutFormatting.line(stat, zone: zone)) }
            StandardOutput.shared.line("\(stats.count) workout\(stats.count == 1 ? "" : "s"), \(NightReport.duration(duration))"
                + (distance.map { ", \(formatValue(($0 / 10).rounded() / 100)) km" } ?? "")
                + (energy.map { ", \(formatValue($0.rounded())) kcal" } ?? ""))
        }
        return .success
    }
}

/// `health workouts export [range]`: NDJSON lines `health import` reads back; with --format
/// gpx|tcx|fit, workout files (WorkoutFiles/WorkoutFileExport.swift).
struct WorkoutsExportCommand: Command {
    static let configuration = CommandConfiguration(
        name: "export", abstract: "Export workouts as NDJSON in the import format ('health import' reads them back), or as GPX, TCX or FIT files.",
        discussion: """
            ID --format gpx|tcx|fit [-o FILE]: one workout with its laps and track (GPX 1.1 with Garmin's
            TrackPointExtension heart rate and cadence; TCX v2; a FIT activity file). A range with --format
            writes one file per workout into -o DIR. 'health import' reads the FIT files back.
            """,
        options: rangeOptions + WorkoutFileExport.options + [storeOption, personOption])

    var range: Range<Date>?
    var zone: TimeZone
    var storePath: StoreChoice
    var files: WorkoutFileExport?

    init(arguments: ParsedArguments) throws(UsageError) {
        zone = arguments.value("tz") == nil ? TimeZone(identifier: "UTC")! : try arguments.timeZone()
        range = try arguments.timeRange(zone: zone, defaultToday: false)
        storePath = arguments.storePath
        files = try WorkoutFileExport(arguments: arguments, range: range, storePath: storePath)
    }

    func run() throws -> ExitCode {
        if let files { return try files.run() }
        let store = try openStore(storePath, readOnly: true)
        for workout in try store.workouts(in: range, as: .owner) {
            StandardOutput.shared.line(WorkoutFormatting.importLine(workout, zone: zone))
        }
        if let error = StandardOutput.shared.error { throw RuntimeFailure("health workouts export: cannot write to standard output: \(error.reason)") }
        return .success
    }
}

/// `health workouts delete ID`: removes one workout; the change feed reports it deleted.
struct WorkoutsDeleteCommand: Command {
    static let configuration = CommandConfiguration(
        name: "delete", abstract: "Delete a workout by its id (as 'workouts list --json' prints it).",
        discussion: """
            The samples recorded during the workout stay. 'health changes' lists it as 'deleted workout ID'.
            Exit 1 when no workout has that id.
            """,
        options: [.argument("ID", help: "The workout's UUID."), storeOption, personOption])

    var id: UUID
    var storePath: StoreChoice

    init(arguments: ParsedArguments) throws(UsageError) {
        let text = try arguments.required("ID")
        guard let id = UUID(uuidString: text) else {
            throw arguments.usageError("ID '\(text.terminalEscaped)' is not a UUID (e.g. 3f2504e0-4f89-41d3-9a0c-0305e82c3301)")
        }
        self.id = id
        storePath = arguments.storePath
    }

    func run() throws -> ExitCode {
        let store = try openStore(storePath)
        let deleted = try store.write(as: .owner) { transaction in try transaction.delete(workoutID: id) }
        guard deleted else { throw RuntimeFailure("health workouts delete: no workout \(id.uuidString.lowercased()) in \(store.path)") }
        StandardOutput.shared.line("deleted workout \(id.uuidString.lowercased())")
        return .success
    }
}
