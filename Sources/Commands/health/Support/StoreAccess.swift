import CommandKit
import Foundation
import HealthModel
import HealthStore
import JSONOutput

/// The `--store PATH` option every subcommand takes (`BANDKIT_STORE` and the XDG default otherwise).
let storeOption = OptionSpec.option("store", value: "PATH",
                                    help: "The store file or a postgresql:// URL (default: $BANDKIT_STORE, else $XDG_DATA_HOME/bandkit/health.sqlite).")

/// The `--person NAME` option every subcommand that reads or writes a person's data takes.
let personOption = OptionSpec.option("person", value: "NAME",
                                     help: "Whose data (default: the store's default person; see 'health people list').")

/// Which store, and whose data in it: `--store` and `--person`.
struct StoreChoice {
    var path: String
    /// nil: the default person (today's behaviour, byte for byte).
    var person: String?
}

extension ParsedArguments {
    /// `--store` (else `BANDKIT_STORE`, else the XDG default) and `--person`, when the command declares it.
    var storePath: StoreChoice {
        StoreChoice(path: value("store") ?? HealthStore.defaultPath(), person: value("person"))
    }

    /// A sample type named on the command line (kebab-case or a HealthKit spelling).
    func sampleType(_ text: String) throws(UsageError) -> SampleType {
        do { return try SampleType(named: text) } catch { throw usageError(error.description) }
    }

    func quantityType(_ text: String) throws(UsageError) -> QuantityType {
        do { return try QuantityType(named: text) } catch { throw usageError(error.description) }
    }

    /// `--tz ZONE`, else the local zone.
    func timeZone() throws(UsageError) -> TimeZone {
        guard let name = value("tz") else { return .current }
        guard let zone = TimeZone(identifier: name) else {
            throw usageError("--tz '\(name)' is not a time zone name (e.g. Europe/Berlin, America/New_York, UTC)")
        }
        return zone
    }

    func instant(_ option: String, zone: TimeZone) throws(UsageError) -> Date? {
        try value(option, as: "a time (ISO 8601 with offset or [Zone], e.g. 2026-11-30T08:00:00+01:00)") {
            TimeParsing.instant($0, defaultZone: zone)
        }
    }

    /// `--from T --to T`, `--day DATE` or `--today` (the default when `defaultToday`).
    func timeRange(zone: TimeZone, defaultToday: Bool) throws(UsageError) -> Range<Date>? {
        let from = try instant("from", zone: zone)
        let to = try instant("to", zone: zone)
        let day = value("day")
        let today = flag("today")
        let chosen = [from != nil || to != nil, day != nil, today].filter { $0 }.count
        if chosen > 1 { throw usageError("choose one of --from/--to, --day and --today") }
        if let day {
            guard let date = TimeParsing.instant(day, defaultZone: zone) else {
                throw usageError("--day '\(day)' is not a date (YYYY-MM-DD)")
            }
            return TimeParsing.day(containing: date, in: zone)
        }
        if today || (chosen == 0 && defaultToday) { return TimeParsing.day(containing: Date(), in: zone) }
        if from == nil && to == nil { return nil }
        let lower = from ?? Date(timeIntervalSince1970: 0)
        let upper = to ?? Date()
        guard lower < upper else { throw usageError("--from must be before --to") }
        return lower..<upper
    }
}

/// The range options shared by query, stats and export.
let rangeOptions: [OptionSpec] = [
    .option("from", value: "T", help: "Start of the range (ISO 8601, e.g. 2026-11-30T00:00:00+01:00)."),
    .option("to", value: "T", help: "End of the range (exclusive)."),
    .option("day", value: "DATE", help: "One local day (midnight to midnight in --tz)."),
    .flag("today", help: "Today in --tz."),
    .option("tz", value: "ZONE", help: "Time zone for days, buckets and times without offset (default: local)."),
]

/// Opens the store, turning failures into exit code 1 with a message naming the file and the
/// step that failed. Commands that only read open it read-only (docs/deployment.md): a store
/// on a read-only filesystem can be read, and reading never creates or migrates one.
///
/// Where no store file exists yet, a reading command shows an empty one (as before the store was
/// opened read-only, minus the side effect of creating the file) with a note on stderr.
///
/// A `postgresql://` URL opens that database; a malformed one is a usage error (exit 64), an
/// unreachable server a failure (exit 1). Messages show the URL without its password.
///
/// `--person NAME` naming no person in the store is a usage error (exit 64), the name escaped.
func openStore(_ choice: StoreChoice, readOnly: Bool = false, cacheKiB: Int = HealthStore.defaultCacheKiB) throws -> HealthStore {
    let path = choice.path
    let location: StoreLocation
    do { location = try StoreLocation.parse(path) } catch {
        throw UsageError("health: --store / BANDKIT_STORE: \(error.description.terminalEscaped)")
    }
    let shown = location.redacted.terminalEscaped
    do {
        var info = stat()
        if readOnly, case .file = location, path != HealthStore.inMemoryPath, stat(path, &info) != 0, errno == ENOENT {
            CommandRunner.printError("health: no store at \(path.terminalEscaped) yet (nothing written); reading it as empty")
            return try HealthStore(path: HealthStore.inMemoryPath, person: choice.person)
        }
        return try HealthStore(path: path, cacheKiB: cacheKiB, readOnly: readOnly, person: choice.person)
    } catch HealthStoreError.unknownPerson(let name) {
        throw UsageError("health: --person '\(name.terminalEscaped)': no such person in \(shown) (see 'health people list'; add one with 'health people add NAME')")
    } catch HealthStoreError.file(let file, let reason) {
        throw RuntimeFailure("health: cannot open store \(file.terminalEscaped): \(reason)")
    } catch {
        throw RuntimeFailure("health: cannot open store \(shown): \("\(error)".terminalEscaped)")
    }
}

/// Formats a value for people without noise: integers without ".0", others with up to 4
/// decimals, never `0.` or `-0.`: a value too small for 4 decimals is written as Swift's shortest
/// round-tripping text (`1e-200`), a value too large for exact integers likewise (`1.7e+308`).
func formatValue(_ value: Double) -> String {
    guard value.isFinite else { return value.description }
    if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }  // -0.0 too: "0"
    if abs(value) < 0.00005 || abs(value) >= 1e15 { return value.description }
    var text = String(format: "%.4f", value)
    while text.hasSuffix("0") { text.removeLast() }
    if text.hasSuffix(".") { text.removeLast() }
    return text == "-0" ? "0" : text
}

/// A JSON number at full precision (the shortest text that reads back as the same Double).
///
/// JSON has no infinity or NaN. Commands refuse a non-finite result before printing (exit 65,
/// see ``finite(_:_:)``); should one reach this function anyway it is written as `null`, so
/// that every document written parses.
func jsonNumber(_ value: Double?) -> String {
    JSON.text(capacity: 32) { $0.value(value) }
}

/// `value` when it is finite; otherwise the data error (exit 65) naming `what` overflowed:
/// a sum of two 1.7e308 step samples, a BMI from a height of 1e-200 m, in a store written
/// before the plausible ranges existed.
func finite(_ value: Double, _ what: @autoclosure () -> String) throws -> Double {
    guard value.isFinite else {
        throw DataError("\(what()) is \(value), not a finite number: the store holds implausible values (list them with 'health query')")
    }
    return value
}

