#if canImport(Glibc)
import Glibc
#endif
import CommandKit
import FitFile
import Foundation
import HealthModel
import HealthStore

/// `health import FILE.fit|FOLDER`: FIT files (one, or every `*.fit` in a folder) in one transaction.
/// Activity files become workouts with their laps, track and heart-rate samples; monitoring files
/// steps, active energy and heart rate per interval. A damaged file names its byte offset (exit 65)
/// and nothing is imported.
struct FitImport {
    let paths: [String]
    let storePath: StoreChoice

    /// Files above this are refused: the largest activity files are a few MB.
    static let maximumFileSize = 256 << 20

    /// A FIT import when FILE is a folder, ends in `.fit`, `--format fit` says so, or its header
    /// carries the `.FIT` signature; nil for NDJSON and Apple Health.
    static func detect(_ file: String, formatIsFit: Bool, storePath: StoreChoice) throws -> FitImport? {
        if file == "-" { return formatIsFit ? FitImport(paths: ["-"], storePath: storePath) : nil }
        var info = stat()
        if stat(file, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            let names = try FileManager.default.contentsOfDirectory(atPath: file)
                .filter { $0.lowercased().hasSuffix(".fit") }.sorted()
            return FitImport(paths: names.map { file + "/" + $0 }, storePath: storePath)
        }
        if formatIsFit || file.lowercased().hasSuffix(".fit") { return FitImport(paths: [file], storePath: storePath) }
        guard let handle = FileHandle(forReadingAtPath: file) else { return nil }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 12)) ?? Data()
        return head.count == 12 && Array(head[8..<12]) == FitFileHeader.signature ? FitImport(paths: [file], storePath: storePath) : nil
    }

    struct Counts {
        var workoutsNew = 0, workoutsKnown = 0, points = 0, laps = 0, samplesNew = 0, samplesKnown = 0, skipped = 0
    }

    func run() throws -> ExitCode {
        guard !paths.isEmpty else { throw DataError("health import: no .fit files in the folder") }
        let store = try openStore(storePath)
        var counts = Counts()
        do {
            // One file in memory at a time, all in one transaction: a damaged file anywhere rolls
            // back every file before it, and memory stays that of the largest file.
            try store.write(as: .owner) { transaction in
                for path in paths {
                    let name = path == "-" ? "standard input" : path.terminalEscaped
                    let bytes = try Self.read(path, name: name)
                    let content: FitContent
                    do { content = try FitContent(parsing: bytes) } catch {
                        throw DataError("\(name): damaged FIT file: \(error)")
                    }
                    do {
                        switch content {
                        case .activity(let activity):
                            try Self.save(activity, fileKey: Self.activityKey(activity.identity, bytes), transaction, &counts)
                        case .monitoring(let monitoring): try Self.save(monitoring, transaction, &counts)
                        case .other(let type):
                            counts.skipped += 1
                            CommandRunner.printError("health import: \(name): FIT file type \(type.map(String.init) ?? "unknown") is neither activity nor monitoring; skipped")
                        }
                    } catch let error as HealthStoreError {
                        if case .database = error { throw error }
                        throw DataError("\(name): \(error)")
                    } catch let error as BatchSaveError {
                        if case .database = error.error { throw error.error }
                        throw DataError("\(name): \(error.error)")
                    }
                }
            }
        } catch let error as DataError {
            throw DataError("health import: \(error.message); nothing was imported")
        } catch let error as any CommandFailure {
            throw error
        } catch {
            throw RuntimeFailure("health import: \(error); nothing was imported")
        }
        StandardOutput.shared.line("imported \(paths.count) FIT file\(paths.count == 1 ? "" : "s"): \(counts.workoutsNew) new workout\(counts.workoutsNew == 1 ? "" : "s") "
            + "(\(counts.workoutsKnown) already stored), \(counts.laps) laps, \(counts.points) track points, "
            + "\(counts.samplesNew) samples (\(counts.samplesKnown) unchanged)"
            + (counts.skipped > 0 ? ", \(counts.skipped) files of other types skipped" : ""))
        return .success
    }

    static func read(_ path: String, name: String) throws -> [UInt8] {
        guard let handle = path == "-" ? FileHandle.standardInput : FileHandle(forReadingAtPath: path) else {
            throw RuntimeFailure("health import: cannot open \(name): \(String(cString: strerror(errno))); nothing was imported")
        }
        defer { if path != "-" { try? handle.close() } }
        let data = (try? handle.read(upToCount: maximumFileSize + 1)) ?? Data()
        guard data.count <= maximumFileSize else {
            throw DataError("\(name) is larger than \(maximumFileSize >> 20) MiB; not a FIT file BandKit reads")
        }
        return [UInt8](data)
    }

    /// A stable name for an activity's records, so that importing it twice stores nothing twice: the
    /// device's serial number and the file's creation time (one activity per device and second, the
    /// same in every copy of the file), else a hash of the file's bytes.
    static func activityKey(_ identity: FitFileIdentity, _ bytes: [UInt8]) -> String {
        if let serial = identity.serialNumber, let created = identity.timeCreated {
            return "\(identity.manufacturer ?? 0)-\(serial)-\(created)"
        }
        return fileKey(bytes)
    }

    static func fileKey(_ bytes: [UInt8]) -> String {
        var hash = StableHash()
        var index = 0
        while index + 8 <= bytes.count {
            var word: UInt64 = 0
            for i in 0..<8 { word |= UInt64(bytes[index + i]) << (8 * UInt64(i)) }
            hash.combine(word)
            index += 8
        }
        for byte in bytes[index...] { hash.combine(UInt64(byte) | 0x100) }
        hash.combine(UInt64(bytes.count))
        let (high, low) = hash.finish()
        return String(high, radix: 16) + String(low, radix: 16)
    }

    static let source = AppIdentity(id: "fit-file", version: "1")

    static func device(_ identity: FitFileIdentity) -> DeviceInfo {
        DeviceInfo(name: identity.productName ?? identity.manufacturerName.map { "\($0) device" } ?? "FIT device",
                   manufacturer: identity.manufacturerName, model: identity.product.map { "product \($0)" },
                   hardwareIdentifier: identity.serialNumber.map(String.init))
    }

    static func date(_ fit: UInt32) -> Date { Date(timeIntervalSince1970: TimeInterval(FitTime.unixSeconds(fit))) }

    /// A version-8 (RFC 9562 custom) UUID from a stable hash of `parts`.
    static func stableID(_ parts: String...) -> UUID {
        var hash = StableHash()
        for part in parts { hash.combine(part) }
        let (high, low) = hash.finish()
        var bytes = (0..<8).map { UInt8(truncatingIfNeeded: high >> (56 - 8 * UInt64($0))) }
            + (0..<8).map { UInt8(truncatingIfNeeded: low >> (56 - 8 * UInt64($0))) }
        bytes[6] = bytes[6] & 0x0F | 0x80
        bytes[8] = bytes[8] & 0x3F | 0x80
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }

    private static func save(_ activity: FitActivity, fileKey: String, _ transaction: WriteTransaction, _ counts: inout Counts) throws {
        let device = device(activity.identity)
        for (index, session) in activity.sessions.enumerated() {
            let start = date(session.start)
            let end = start.addingTimeInterval(session.elapsed)
            let inside = { (time: UInt32) in activity.sessions.count == 1 || (time >= session.start && time <= session.end) }
            let workout = Workout(id: stableID("fit-workout", fileKey, String(index)), activity: FitSports.activity(session.sport),
                                  start: start, end: end,
                                  totalEnergyBurned: session.calories.map { Quantity($0, .kilocalorie) },
                                  totalDistance: session.distance.map { Quantity($0, .meter) },
                                  device: device, source: source)
            if case .inserted = try transaction.save(workout, attributedTo: source) { counts.workoutsNew += 1 } else { counts.workoutsKnown += 1 }
            let points = activity.points.filter { inside($0.timestamp) }
            let laps = activity.laps.filter { inside($0.start) }
            try transaction.saveTrack(WorkoutTrack(laps: laps.map(lap), points: points.map(point)), forWorkout: workout.id)
            counts.points += points.count
            counts.laps += laps.count
            var seen = Set<UInt32>()
            var samples: [SampleToSave] = []
            for point in points {
                guard let rate = point.heartRate, seen.insert(point.timestamp).inserted else { continue }
                let time = date(point.timestamp)
                samples.append(SampleToSave(QuantitySample(type: .heartRate, quantity: Quantity(Double(rate), .countPerMinute),
                                                           start: time, end: time, device: device,
                                                           syncIdentifier: "fit-\(fileKey)-hr-\(point.timestamp)"), attributedTo: source))
            }
            try saveSamples(samples, transaction, &counts)
        }
    }

    private static func save(_ monitoring: FitMonitoring, _ transaction: WriteTransaction, _ counts: inout Counts) throws {
        let device = device(monitoring.identity)
        // Sync identifiers name the device, not the file: two files of one day count an interval once.
        let deviceKey = "\(monitoring.identity.manufacturer ?? 0)-\(monitoring.identity.product ?? 0)-\(monitoring.identity.serialNumber ?? 0)"
        var samples: [SampleToSave] = []
        for interval in monitoring.intervals {
            let (type, unit, name): (QuantityType, HealthUnit, String) = interval.quantity == .steps
                ? (.stepCount, .count, "steps") : (.activeEnergyBurned, .kilocalorie, "active-energy")
            samples.append(SampleToSave(QuantitySample(type: type, quantity: Quantity(interval.value, unit),
                                                       start: date(interval.start), end: date(interval.end), device: device,
                                                       syncIdentifier: "fit-\(deviceKey)-\(name)-\(interval.start)-\(interval.end)"),
                                        attributedTo: source))
        }
        for reading in monitoring.heartRates {
            let time = date(reading.timestamp)
            samples.append(SampleToSave(QuantitySample(type: .heartRate, quantity: Quantity(Double(reading.beatsPerMinute), .countPerMinute),
                                                       start: time, end: time, device: device,
                                                       syncIdentifier: "fit-\(deviceKey)-hr-\(reading.timestamp)"), attributedTo: source))
        }
        try saveSamples(samples, transaction, &counts)
    }

    private static func saveSamples(_ samples: [SampleToSave], _ transaction: WriteTransaction, _ counts: inout Counts) throws {
        var start = 0
        while start < samples.count {
            let batch = Array(samples[start..<min(start + WriteTransaction.batchSize, samples.count)])
            for outcome in try transaction.save(batch) {
                if case .inserted = outcome { counts.samplesNew += 1 } else { counts.samplesKnown += 1 }
            }
            start += batch.count
        }
    }

    static func lap(_ lap: FitSummary) -> WorkoutLap {
        WorkoutLap(start: date(lap.start), end: date(lap.start).addingTimeInterval(lap.elapsed), distance: lap.distance, energy: lap.calories,
                   averageHeartRate: lap.averageHeartRate.map(Double.init), maximumHeartRate: lap.maximumHeartRate.map(Double.init),
                   averageCadence: lap.averageCadence.map(Double.init), maximumCadence: lap.maximumCadence.map(Double.init))
    }

    static func point(_ point: FitTrackPoint) -> WorkoutTrackPoint {
        WorkoutTrackPoint(time: date(point.timestamp), latitude: point.latitude, longitude: point.longitude, altitude: point.altitude,
                          heartRate: point.heartRate.map(Double.init), cadence: point.cadence.map(Double.init),
                          distance: point.distance, speed: point.speed)
    }
}

/// The profile's `sport` enum ↔ BandKit's activity names, for the sports both know.
enum FitSports {
    static let byNumber: [Int64: WorkoutActivityType] = [
        1: .running, 2: .cycling, 5: .swimming, 11: .walking, 17: .hiking,
        6: WorkoutActivityType(rawValue: "basketball"), 7: WorkoutActivityType(rawValue: "soccer"),
        8: WorkoutActivityType(rawValue: "tennis"), 9: WorkoutActivityType(rawValue: "american-football"),
        12: WorkoutActivityType(rawValue: "cross-country-skiing"), 13: WorkoutActivityType(rawValue: "downhill-skiing"),
        14: WorkoutActivityType(rawValue: "snowboarding"), 15: WorkoutActivityType(rawValue: "rowing"),
        16: WorkoutActivityType(rawValue: "climbing"), 19: WorkoutActivityType(rawValue: "paddle-sports"),
    ]

    static func activity(_ sport: Int64?) -> WorkoutActivityType { sport.flatMap { byNumber[$0] } ?? .other }

    static func sport(_ activity: WorkoutActivityType) -> Int64 {
        byNumber.first { $0.value == activity }?.key ?? 0
    }
}
