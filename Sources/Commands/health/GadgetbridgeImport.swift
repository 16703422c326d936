#if canImport(Glibc)
import Glibc
#endif
import CommandKit
import Foundation
import HealthModel
import HealthStore

/// `health import Gadgetbridge`: the SQLite database Gadgetbridge exports, read-only, in one
/// transaction. Tables and columns are looked up by name, so files from old Gadgetbridge
/// versions (schema ~20) to current import alike; what is not understood is listed, not guessed.
struct GadgetbridgeImport {
    let path: String
    let storePath: StoreChoice
    /// `--device NAME`: only that device's samples and workouts.
    let deviceName: String?
    let now = Date()

    /// Whether the open file is an SQLite database (its first 16 bytes).
    static func isSQLite(descriptor: Int32) -> Bool {
        var head = [UInt8](repeating: 0, count: 16)
        let count = head.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress!, 16, 0) }
        return count == 16 && head == ForeignSQLiteFile.header
    }

    /// The row a sample was made from.
    struct Place: CustomStringConvertible {
        var table: String
        var timestamp: Int64
        var deviceRowID: Int64
        var isSleepRun: Bool
        var description: String {
            "\(table) \(isSleepRun ? "sleep from" : "row") TIMESTAMP \(timestamp) DEVICE_ID \(deviceRowID)"
        }
    }

    /// What one table gave.
    struct TableCount {
        var rows = 0
        var steps = 0, heartRates = 0, sleepRuns = 0, workouts = 0
        var problems: [String: Int] = [:]
        var skipped: Int { problems.values.reduce(0, +) }
    }

    func run() throws -> ExitCode {
        let name = path.terminalEscaped
        let file: ForeignSQLiteFile
        do { file = try ForeignSQLiteFile(path: path) } catch {
            throw DataError("health import: \(name): not a readable SQLite database: \(String(describing: error).terminalEscaped)")
        }
        let schema: GadgetbridgeSchema
        do { schema = try GadgetbridgeSchema(file) } catch let error as GadgetbridgeSchema.NotGadgetbridge {
            throw DataError("health import: \(name) is a SQLite database but not a Gadgetbridge export (\(error.reason)); "
                            + "a BandKit store is opened with --store FILE, not imported; \(ImportFileCheck.reads); nothing was imported")
        } catch {
            throw DataError("health import: \(name): reading the schema: \(String(describing: error).terminalEscaped); nothing was imported")
        }
        var devices = schema.devices
        if let deviceName {
            devices = devices.filter { $0.matches(deviceName) }
            if devices.isEmpty {
                let known = schema.devices.map { "'\($0.displayName)' (\($0.identifier))" }.joined(separator: ", ")
                throw UsageError("health import: --device '\(deviceName.terminalEscaped)' is none of the file's devices: "
                                 + (known.isEmpty ? "it has none" : known.terminalEscaped))
            }
        }
        let store = try openStore(storePath)
        var counts: [(table: String, count: TableCount)] = []
        var outcomes = (inserted: 0, replaced: 0, unchanged: 0, workoutsNew: 0, workoutsKnown: 0)
        do {
            try store.write(as: .owner) { transaction in
                var pending: [SampleToSave] = []
                // Where each pending sample came from, formatted only when one is refused.
                var pendingRows: [Place] = []
                func savePending() throws {
                    defer { pending.removeAll(keepingCapacity: true); pendingRows.removeAll(keepingCapacity: true) }
                    do throws(BatchSaveError) {
                        for outcome in try transaction.save(pending) {
                            switch outcome {
                            case .inserted: outcomes.inserted += 1
                            case .replaced: outcomes.replaced += 1
                            case .unchanged: outcomes.unchanged += 1
                            }
                        }
                    } catch {
                        throw Self.failure(error.error, place: pendingRows[error.index].description)
                    }
                }
                for table in schema.sampleTables {
                    var count = TableCount()
                    for device in devices {
                        var samples = GadgetbridgeMinuteSamples(
                            device: device, sleep: GadgetbridgeSleepMeaning.of(table: table.name, deviceType: device.type))
                        let made: (GadgetbridgeMinuteSamples.Made) throws -> Void = { made in
                            switch made {
                            case .quantity(let sample):
                                if sample.type == .stepCount { count.steps += 1 } else { count.heartRates += 1 }
                                pending.append(SampleToSave(sample, attributedTo: device.source))
                                pendingRows.append(Place(table: table.name, timestamp: Int64(sample.start.timeIntervalSince1970),
                                                         deviceRowID: device.rowID, isSleepRun: false))
                            case .category(let sample):
                                count.sleepRuns += 1
                                pending.append(SampleToSave(sample, attributedTo: device.source))
                                pendingRows.append(Place(table: table.name, timestamp: Int64(sample.start.timeIntervalSince1970),
                                                         deviceRowID: device.rowID, isSleepRun: true))
                            }
                            if pending.count >= WriteTransaction.batchSize { try savePending() }
                        }
                        try file.forEachRow(table.select, bind: [.integer(device.rowID)]) { row in
                            count.rows += 1
                            guard row.isInteger(0) else { count.problems[GadgetbridgeMinute.Problem.timestampNotInteger.rawValue, default: 0] += 1; return }
                            let minute = GadgetbridgeMinute(timestamp: row.int64(0), steps: row.isNull(1) ? nil : row.int64(1),
                                                            heartRate: row.isNull(2) ? nil : row.int64(2),
                                                            rawKind: row.isNull(3) ? nil : row.int64(3))
                            if let problem = minute.problem(now: now) {
                                count.problems[problem.rawValue, default: 0] += 1
                                return
                            }
                            try samples.add(minute, into: made)
                        }
                        try samples.finish(into: made)
                    }
                    try savePending()
                    if deviceName == nil {
                        try file.forEachRow(table.orphans) { row in
                            let orphans = Int(row.int64(0))
                            if orphans > 0 {
                                count.rows += orphans
                                count.problems["DEVICE_ID of no device", default: 0] += orphans
                            }
                        }
                    }
                    counts.append((table.name, count))
                }
                if let summary = schema.workoutTable {
                    var count = TableCount()
                    for device in devices {
                        try file.forEachRow(summary.select, bind: [.integer(device.rowID)]) { row in
                            count.rows += 1
                            guard row.isInteger(0), row.isInteger(1) else {
                                count.problems["START_TIME or END_TIME not an integer", default: 0] += 1
                                return
                            }
                            let entry = GadgetbridgeWorkout(startMilliseconds: row.int64(0), endMilliseconds: row.int64(1),
                                                            activityKind: row.int64(2), name: row.text(3))
                            if let problem = entry.problem(now: now) {
                                count.problems[problem.rawValue, default: 0] += 1
                                return
                            }
                            let outcome: SaveOutcome
                            do { outcome = try transaction.save(entry.workout(device: device), attributedTo: device.source) } catch let error as HealthStoreError {
                                throw Self.failure(error, place: "\(summary.name) row START_TIME \(entry.startMilliseconds) DEVICE_ID \(device.rowID)")
                            }
                            count.workouts += 1
                            if case .inserted = outcome { outcomes.workoutsNew += 1 } else { outcomes.workoutsKnown += 1 }
                        }
                    }
                    counts.append((summary.name, count))
                }
            }
        } catch let error as DataError {
            throw DataError("health import: \(name): \(error.message); nothing was imported")
        } catch let error as HealthStoreError {
            if case .database(let database) = error, database.sql != "", !database.sql.hasPrefix("open") {
                // A damaged Gadgetbridge file fails on its SELECTs: bad data, named by the statement.
                if [11, 26].contains(database.code & 0xFF) {
                    throw DataError("health import: \(name): \(String(describing: error).terminalEscaped); nothing was imported")
                }
            }
            throw RuntimeFailure("health import: \(String(describing: error).terminalEscaped); nothing was imported")
        } catch {
            throw RuntimeFailure("health import: \(String(describing: error).terminalEscaped); nothing was imported")
        }
        printSummary(name: name, devices: devices, users: schema.users, counts: counts, outcomes: outcomes,
                     skippedTables: schema.skippedTables)
        return .success
    }

    private func printSummary(name: String, devices: [GadgetbridgeDevice], users: Int,
                              counts: [(table: String, count: TableCount)],
                              outcomes: (inserted: Int, replaced: Int, unchanged: Int, workoutsNew: Int, workoutsKnown: Int),
                              skippedTables: [(name: String, rows: Int, reason: String)]) {
        let output = StandardOutput.shared
        let skipped = counts.reduce(0) { $0 + $1.count.skipped }
        output.line("imported \(outcomes.inserted + outcomes.replaced) samples from \(name) (\(outcomes.inserted) new, "
                    + "\(outcomes.replaced) replaced, \(outcomes.unchanged) already stored), \(outcomes.workoutsNew) workouts "
                    + "(\(outcomes.workoutsKnown) already stored); skipped \(skipped) bad rows")
        output.line("  \(devices.count) devices: " + devices.map { "\($0.displayName) (\($0.identifier)) as \($0.source.id)" }
            .joined(separator: ", ").terminalEscaped + "; \(users) users")
        for (table, count) in counts {
            var line = "  \(table.terminalEscaped): \(count.rows) rows"
            if count.workouts > 0 || table == "BASE_ACTIVITY_SUMMARY" {
                line += " → \(count.workouts) workouts"
            } else {
                line += " → \(count.steps) step, \(count.heartRates) heart-rate, \(count.sleepRuns) sleep samples"
            }
            if count.skipped > 0 {
                let reasons = count.problems.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { "\($0.value) \($0.key)" }
                line += "; skipped \(count.skipped) (" + reasons.joined(separator: ", ") + ")"
            }
            output.line(line)
        }
        for table in skippedTables where table.rows > 0 {
            output.line("  skipped table \(table.name.terminalEscaped) (\(table.rows) rows): \(table.reason)")
        }
    }

    /// A store error while saving `place`: bad data names the table and row (exit 65); the
    /// store's own failures stay as they are (exit 1).
    private static func failure(_ error: HealthStoreError, place: String) -> any Error {
        switch error {
        case .database, .file: return error
        default: return DataError("\(place.terminalEscaped): \(String(describing: error).terminalEscaped)")
        }
    }
}
