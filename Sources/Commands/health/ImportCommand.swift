#if canImport(Glibc)
import Glibc
#endif
import CommandKit
import Foundation
import HealthModel
import HealthStore

/// `health import FILE|-`: NDJSON samples, or an Apple Health export.zip / export.xml
/// (AppleHealthImport.swift), in one transaction; any bad line or record imports nothing.
struct ImportCommand: Command {
    static let configuration = CommandConfiguration(
        name: "import", abstract: "Import samples from NDJSON or an Apple Health export.zip/export.xml; all or nothing.",
        discussion: """
            Each line: {"type":"step-count","value":120,"unit":"count","start":"2026-11-30T08:00:00+01:00",
            "end":"2026-11-30T08:01:00+01:00","source":"com.example.app"} plus optional "device" (name or object),
            "sync_id", "sync_version", "zone", "source_version", "user_entered", "metadata", "id".
            A malformed line stops the import with exit 65, naming the line and field; nothing is written.
            Output of 'health export --format json' imports back unchanged.
            Apple Health: the Health app's export.zip (its apple_health_export/export.xml is read from the zip)
            or export.xml, detected from the file's first bytes or chosen with --format apple-health.
            Records of types the store does not keep, ActivitySummary, Correlation and other elements are
            skipped and counted; malformed XML (line, column), an unknown unit, an out-of-range date or a
            damaged zip stop the import with exit 65 and nothing is written. Re-importing adds nothing.
            Output of 'health export --format apple-health' imports back unchanged.
            Gadgetbridge: its exported database (any file name; detected as SQLite with a DEVICE table): minute steps,
            heart rate and sleep of every device (--device NAME: one), workouts from BASE_ACTIVITY_SUMMARY.
            Rows no band can have measured are skipped and counted per table; re-importing adds nothing.
            FIT (Garmin and most sports devices): a .fit file, a folder of them, or - with --format fit. Activity files become workouts
            with laps, track points (kept for 'health workouts export ID --format gpx|tcx|fit') and heart-rate
            samples; monitoring files steps, active energy and heart rate per interval. A damaged file (bad CRC,
            a missing definition, truncation) stops the import with exit 65 naming the byte offset.
            """,
        options: [.argument("FILE", help: "The NDJSON file, export.zip, export.xml, Gadgetbridge database, .fit file or folder of .fit files, or - for standard input."),
                  .option("format", value: "json|apple-health|fit", help: "The file's format (default: detected; standard input: json)."),
                  .option("device", value: "NAME", help: "Gadgetbridge: import only this device (its alias, name or address)."),
                  storeOption, personOption])

    enum Format { case json, appleHealth, fit }

    var file: String
    var format: Format?
    var storePath: StoreChoice
    var device: String?

    init(arguments: ParsedArguments) throws(UsageError) {
        file = arguments.required("FILE")
        switch arguments.value("format") {
        case nil: format = nil
        case "json"?: format = .json
        case "apple-health"?: format = .appleHealth
        case "fit"?: format = .fit
        case let other?: throw arguments.usageError("--format '\(other)' is not json, apple-health or fit")
        }
        storePath = arguments.storePath
        device = arguments.value("device")
    }

    func run() throws -> ExitCode {
        if let fit = try FitImport.detect(file, formatIsFit: format == .fit, storePath: storePath) { return try fit.run() }
        let descriptor: Int32 = file == "-" ? 0 : open(file, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw RuntimeFailure("health import: cannot open \(file): \(String(cString: strerror(errno)))") }
        defer { if descriptor != 0 { close(descriptor) } }
        if file != "-", GadgetbridgeImport.isSQLite(descriptor: descriptor) {
            return try GadgetbridgeImport(path: file, storePath: storePath, deviceName: device).run()
        }
        if device != nil { throw UsageError("health import: --device is for Gadgetbridge databases; \(file.terminalEscaped) is not one") }
        let kind = try AppleHealthImport.detect(descriptor: descriptor, isStandardInput: file == "-", format: format)
        if file != "-", let problem = ImportFileCheck.problem(descriptor: descriptor, name: file, kind: kind) {
            throw DataError("health import: \(file.terminalEscaped) \(problem); nothing was imported")
        }
        if kind != .ndjson {
            return try AppleHealthImport(descriptor: descriptor, name: file == "-" ? "standard input" : file,
                                         isZip: kind == .zip, storePath: storePath).run()
        }
        let store = try openStore(storePath)
        let name = file == "-" ? "standard input" : file.terminalEscaped
        var reader = LineReader(descriptor: descriptor)
        defer { reader.deallocate() }
        let context = ImportRecord.Context()
        var counts = (inserted: 0, replaced: 0, unchanged: 0)
        do {
            try store.write(as: .owner) { transaction in
                // Samples go to the store in batches (one round trip for many on PostgreSQL): the
                // transaction keeps the rows appended, tagged with their line numbers, so a batch's
                // error names its line. Everything appended is written before a bad line or a
                // workout is dealt with, so errors come in line order, as one by one.
                var outcomes: [SaveOutcome] = []
                // The store's ids of each series the fast path found (by its number): resolved once.
                var seriesIDs: [SampleSeries?] = []
                func count() {
                    for outcome in outcomes {
                        switch outcome {
                        case .inserted: counts.inserted += 1
                        case .replaced: counts.replaced += 1
                        case .unchanged: counts.unchanged += 1
                        }
                    }
                    outcomes.removeAll(keepingCapacity: true)
                }
                func saving(_ body: () throws(BatchSaveError) -> Void) throws {
                    do throws(BatchSaveError) { try body() } catch { throw Self.failure(error.error, line: error.index) }
                    if !outcomes.isEmpty { count() }
                }
                try reader.forEachLine { line, number in
                    if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return }
                    // The everyday line: from its bytes to the row's values, its ids looked up once per series.
                    if let sample = ImportSampleLine(fastParsing: line, context: context) {
                        try saving { () throws(BatchSaveError) in
                            while seriesIDs.count <= sample.series { seriesIDs.append(nil) }
                            if seriesIDs[sample.series] == nil {
                                let series = context.series(sample.series)
                                seriesIDs[sample.series] = try transaction.series(type: series.type, source: series.source, device: series.device,
                                                                                  tag: number, outcomes: &outcomes)
                            }
                            try transaction.append(seriesIDs[sample.series]!, id: sample.id, value: sample.canonicalValue,
                                                   start: sample.start, end: sample.end,
                                                   zone: sample.zone.map { context.zone($0).identifier },
                                                   syncIdentifier: sample.syncIdentifier, syncVersion: sample.syncVersion,
                                                   userEntered: sample.userEntered, metadata: sample.metadata,
                                                   tag: number, outcomes: &outcomes)
                        }
                        return
                    }
                    let record: ImportRecord
                    do { record = try ImportRecord(generalParsing: line, number: number, context: context) } catch let error as ImportError {
                        try saving { () throws(BatchSaveError) in try transaction.writeAppended(into: &outcomes) }
                        throw DataError(error.description)
                    }
                    // The record is consumed: its sample moves into the batch instead of being copied
                    // (a sample is a dozen strings and references, each retained per copy).
                    let source = record.source
                    switch (consume record).payload {
                    case .quantity(let sample):
                        try saving { () throws(BatchSaveError) in try transaction.append(SampleToSave(sample, attributedTo: source), tag: number, outcomes: &outcomes) }
                    case .category(let sample):
                        try saving { () throws(BatchSaveError) in try transaction.append(SampleToSave(sample, attributedTo: source), tag: number, outcomes: &outcomes) }
                    case .workout(let workout):
                        try saving { () throws(BatchSaveError) in try transaction.writeAppended(into: &outcomes) }
                        do { outcomes.append(try transaction.save(workout, attributedTo: source)); count() } catch let error as HealthStoreError {
                            throw Self.failure(error, line: number)
                        }
                    }
                }
                try saving { () throws(BatchSaveError) in try transaction.writeAppended(into: &outcomes) }
            }
        } catch let error as DataError {
            throw DataError("health import: \(name): \(error.message); nothing was imported")
        } catch let error as LineReader.LineTooLong {
            throw DataError("health import: \(name): \(error); nothing was imported")
        } catch let error as LineReader.ReadFailure {
            throw RuntimeFailure("health import: reading \(name): \(error); nothing was imported")
        } catch {
            throw RuntimeFailure("health import: \(error); nothing was imported")
        }
        StandardOutput.shared.line("imported \(counts.inserted + counts.replaced) samples from \(name) "
              + "(\(counts.inserted) new, \(counts.replaced) replaced, \(counts.unchanged) unchanged by sync version)")
        return .success
    }

    /// A store error while saving line `line`: bad data names the line (exit 65); the store's own
    /// failures (database, file) stay as they are (exit 1).
    private static func failure(_ error: HealthStoreError, line: Int) -> any Error {
        switch error {
        case .database, .file: return error
        default: return DataError("line \(line): \(error)")
        }
    }
}
