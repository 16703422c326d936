#if canImport(Glibc)
import Glibc
#endif
import CommandKit
import Foundation
import HealthModel
import HealthStore

/// `health workouts export ID --format gpx|tcx|fit [-o FILE]` and
/// `health workouts export --from T --to T --format gpx|tcx|fit -o DIR`: workouts as files other
/// tools read (WorkoutsExportCommand dispatches here when --format names one).
struct WorkoutFileExport {
    enum Format: String { case gpx, tcx, fit }

    let format: Format
    /// One workout, or every workout in `range` into the folder `output`.
    let id: UUID?
    let range: Range<Date>?
    let output: String?
    let storePath: StoreChoice

    static let options: [OptionSpec] = [
        .argument("ID", optional: true, help: "One workout's UUID (with --format); without it, the range's workouts into -o DIR."),
        .option("format", value: "json|gpx|tcx|fit", help: "json: NDJSON lines (default); gpx, tcx, fit: workout files."),
        .option("output", value: "PATH", help: "With ID: the file (default: standard output); with a range: the folder (also -o)."),
    ]

    /// Nil when `--format` is absent or json (the NDJSON export).
    init?(arguments: ParsedArguments, range: Range<Date>?, storePath: StoreChoice) throws(UsageError) {
        let idText = arguments.argument("ID")
        guard let name = arguments.value("format"), name != "json" else {
            if idText != nil || arguments.value("output") != nil {
                throw arguments.usageError("ID and -o go with --format gpx|tcx|fit")
            }
            return nil
        }
        guard let format = Format(rawValue: name) else { throw arguments.usageError("--format '\(name.terminalEscaped)' is not json, gpx, tcx or fit") }
        self.format = format
        if let idText {
            guard let id = UUID(uuidString: idText) else { throw arguments.usageError("ID '\(idText.terminalEscaped)' is not a UUID") }
            guard range == nil else { throw arguments.usageError("give either ID or a range (--from/--to/--day), not both") }
            self.id = id
        } else {
            guard arguments.value("output") != nil else { throw arguments.usageError("a range of workouts needs -o DIR (one file per workout)") }
            id = nil
        }
        self.range = range
        output = arguments.value("output")
        self.storePath = storePath
    }

    func run() throws -> ExitCode {
        let store = try openStore(storePath, readOnly: true)
        if let id {
            guard let workout = try store.workout(id: id, as: .owner) else {
                throw RuntimeFailure("health workouts export: no workout \(id.uuidString.lowercased()) in \(store.path.terminalEscaped)")
            }
            let bytes = render(workout, try store.track(ofWorkout: id, as: .owner))
            if let output { try write(bytes, to: output) } else {
                if format == .fit, isatty(1) != 0 { throw UsageError("health workouts export: FIT is binary; write it with -o FILE or into a pipe") }
                bytes.withUnsafeBytes { StandardOutput.shared.buffer.append($0) }
                do { try StandardOutput.shared.flush() } catch { throw RuntimeFailure("health workouts export: cannot write to standard output: \(error.reason)") }
            }
            return .success
        }
        let directory = output!
        var info = stat()
        if stat(directory, &info) != 0 {
            guard mkdir(directory, 0o755) == 0 else {
                throw RuntimeFailure("health workouts export: cannot create \(directory.terminalEscaped): \(String(cString: strerror(errno)))")
            }
        } else if (info.st_mode & S_IFMT) != S_IFDIR {
            throw UsageError("health workouts export: -o \(directory.terminalEscaped) is not a folder (a range writes one file per workout)")
        }
        let workouts = try store.workouts(in: range, as: .owner)
        for workout in workouts {
            let bytes = render(workout, try store.track(ofWorkout: workout.id, as: .owner))
            try write(bytes, to: directory + "/" + WorkoutFileNaming.fileName(workout, extension: format.rawValue))
        }
        StandardOutput.shared.line("exported \(workouts.count) workout\(workouts.count == 1 ? "" : "s") as \(format.rawValue.uppercased()) into \(directory.terminalEscaped)")
        return .success
    }

    private func render(_ workout: Workout, _ track: WorkoutTrack) -> [UInt8] {
        switch format {
        case .gpx: Array(GPXDocument.render(workout, track).utf8)
        case .tcx: Array(TCXDocument.render(workout, track).utf8)
        case .fit: FitExport.encode(workout, track)
        }
    }

    /// Written to a temporary file beside `path`, then renamed: a reader never sees half a file.
    private func write(_ bytes: [UInt8], to path: String) throws {
        let temporary = path + ".partial"
        guard FileManager.default.createFile(atPath: temporary, contents: Data(bytes)), rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw RuntimeFailure("health workouts export: cannot write \(path.terminalEscaped): \(reason)")
        }
    }
}
