import Foundation

/// A temporary world for one end-to-end test: a `bandsim serve` on a socket, a keystore
/// (`XDG_CONFIG_HOME`) and a store, all in one directory removed afterwards.
final class DemoWorld {
    let directory: String
    let socket: String
    let store: String
    let truthPath: String
    let environment: [String: String]
    private(set) var band: RunningCommand?

    init() throws {
        directory = NSTemporaryDirectory() + "bandkit-e2e-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        socket = directory + "/band.sock"
        store = directory + "/health.sqlite"
        truthPath = directory + "/truth.ndjson"
        environment = ["XDG_CONFIG_HOME": directory + "/config", "BANDKIT_STORE": directory + "/health.sqlite"]
    }

    deinit {
        stopBand()
        try? FileManager.default.removeItem(atPath: directory)
    }

    var address: String { "sim:" + socket }

    /// Starts the simulated band; waits for its socket.
    func startBand(_ options: [String]) throws {
        let band = try RunningCommand("bandsim", ["serve", "--socket", socket, "--truth", truthPath, "--state", directory + "/flash.img",
                                                  "--deterministic-secrets"] + options)
        self.band = band
        let deadline = ContinuousClock.now.advanced(by: .seconds(60))
        while !FileManager.default.fileExists(atPath: socket) {
            guard band.process.isRunning, ContinuousClock.now < deadline else {
                throw WorldError("bandsim serve did not start: \(band.stderr)")
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    /// Starts `bandsim serve --profile PROFILE` (a third-party peer); waits for its socket.
    func startPeer(_ profile: String, _ options: [String]) throws {
        let band = try RunningCommand("bandsim", ["serve", "--profile", profile, "--socket", socket, "--truth", truthPath] + options)
        self.band = band
        let deadline = ContinuousClock.now.advanced(by: .seconds(60))
        while !FileManager.default.fileExists(atPath: socket) {
            guard band.process.isRunning, ContinuousClock.now < deadline else {
                throw WorldError("bandsim serve --profile \(profile) did not start: \(band.stderr)")
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    /// Stops the band (SIGTERM, then waits), so its truth file is complete.
    func stopBand() {
        guard let band else { return }
        band.signal(SIGTERM)
        band.wait(timeout: .seconds(10))
        self.band = nil
    }

    func band(_ arguments: [String], timeout: Duration = .seconds(120)) throws -> (status: Int32, stdout: String, stderr: String) {
        try RunningCommand.run("band", arguments, environment: environment, timeout: timeout)
    }

    func start(_ tool: String, _ arguments: [String], standardInput: FileHandle = .nullDevice) throws -> RunningCommand {
        try RunningCommand(tool, arguments, environment: environment, standardInput: standardInput)
    }

    /// The band's minute records (the `--truth` NDJSON), by sequence number.
    func truth() throws -> [Int: TruthMinute] {
        let text = try String(contentsOfFile: truthPath, encoding: .utf8)
        var out: [Int: TruthMinute] = [:]
        for line in text.split(separator: "\n") {
            let minute = try TruthMinute(json: String(line))
            out[minute.sequence] = minute
        }
        return out
    }

    /// Every quantity sample in the store, through `health export` (category samples — the
    /// sleep the reader scores from closed nights — carry a value name, not a number, and
    /// workouts — the band's walks and runs — have no value: both skipped; BandWorkoutCommandTests
    /// checks the workouts).
    func storedSamples(store: String? = nil) throws -> [StoredSample] {
        let (status, stdout, stderr) = try RunningCommand.run("health", ["export", "--store", store ?? self.store], environment: environment)
        guard status == 0 else { throw WorldError("health export failed (\(status)): \(stderr)") }
        return try stdout.split(separator: "\n").filter { !$0.contains("\"value\":\"") && !$0.hasPrefix("{\"type\":\"workout\"") }.map { try StoredSample(json: String($0)) }
    }
}

struct WorldError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// One line of `bandsim serve --truth`.
struct TruthMinute: Equatable {
    var sequence: Int
    var minute: String
    var steps: Double
    var distanceMetres: Double
    var energyKilocalories: Double
    var heartRate: (avg: Double, min: Double, max: Double)?
    /// The record's session activity (`walking`, `running`), nil for none; and its session-start flag.
    var activity: String?
    var sessionStart = false

    static func == (a: TruthMinute, b: TruthMinute) -> Bool { a.sequence == b.sequence && a.minute == b.minute }

    init(json: String) throws {
        guard let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any],
              let sequence = object["seq"] as? Int, let minute = object["minute"] as? String,
              let steps = number(object["steps"]), let distance = number(object["distance_m"]),
              let energy = number(object["energy_kcal"]) else { throw WorldError("bad truth line: \(json)") }
        self.sequence = sequence
        self.minute = minute
        self.steps = steps
        distanceMetres = distance
        energyKilocalories = energy
        if let avg = number(object["hr_avg"]), let min = number(object["hr_min"]), let max = number(object["hr_max"]) {
            heartRate = (avg, min, max)
        }
        activity = object["activity"] as? String
        sessionStart = object["session_start"] as? Bool ?? false
    }
}

/// One line of `health export`.
struct StoredSample {
    var type: String
    var value: Double
    var start: String
    var origin: String?
    var metadata: [String: String]
    /// `device|type|minute` for the reader's samples: which band wrote it.
    var syncIdentifier: String?

    init(json: String) throws {
        guard let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any],
              let type = object["type"] as? String, let value = number(object["value"]),
              let start = object["start"] as? String else { throw WorldError("bad export line: \(json)") }
        self.type = type
        self.value = value
        self.start = start
        metadata = object["metadata"] as? [String: String] ?? [:]
        origin = metadata["bandkit.origin"]
        syncIdentifier = object["sync_id"] as? String
    }
}

/// The store against the truth for the records before `cursor`: each such minute exactly once per
/// type with the band's values, nothing else stored up to the last of them, nothing negative,
/// and the sums equal.
func compare(truth: [Int: TruthMinute], below cursor: Int, stored: [StoredSample]) -> [String] {
    var problems: [String] = []
    let records = (0..<cursor).compactMap { truth[$0] }
    if records.count != cursor { problems.append("truth lacks records below \(cursor): has \(records.count)") }
    let byMinute = Dictionary(records.map { ($0.minute, $0) }, uniquingKeysWith: { a, _ in a })
    if byMinute.count != records.count { problems.append("truth repeats minutes") }
    let lastMinute = records.map(\.minute).max() ?? ""
    var seen: [String: Set<String>] = [:]
    var sums: [String: Double] = [:]
    for sample in stored {
        if sample.value < 0 { problems.append("\(sample.type) at \(sample.start) is negative") }
        guard ["step-count", "distance-walking-running", "active-energy-burned", "heart-rate"].contains(sample.type) else { continue }
        guard let record = byMinute[sample.start] else {
            if sample.start <= lastMinute { problems.append("\(sample.type) at \(sample.start): the band has no such minute") }
            continue
        }
        if seen[sample.type, default: []].contains(sample.start) { problems.append("\(sample.type) at \(sample.start) stored twice") }
        seen[sample.type, default: []].insert(sample.start)
        if sample.origin != "history" { problems.append("\(sample.type) at \(sample.start) is still provisional") }
        sums[sample.type, default: 0] += sample.value
        let expected: Double?
        switch sample.type {
        case "step-count": expected = record.steps
        case "distance-walking-running": expected = record.distanceMetres
        case "active-energy-burned": expected = record.energyKilocalories
        default:
            expected = record.heartRate?.avg
            if let hr = record.heartRate, sample.metadata["bandkit.hr.min"] != String(Int(hr.min)) || sample.metadata["bandkit.hr.max"] != String(Int(hr.max)) {
                problems.append("heart rate at \(sample.start): min/max differ from the band's")
            }
        }
        guard let expected else {
            problems.append("\(sample.type) at \(sample.start): stored but the band measured none")
            continue
        }
        if abs(expected - sample.value) > 1e-6 { problems.append("\(sample.type) at \(sample.start): \(sample.value), band \(expected)") }
    }
    for type in ["step-count", "distance-walking-running", "active-energy-burned"] where (seen[type]?.count ?? 0) != records.count {
        problems.append("\(type): \(seen[type]?.count ?? 0) minutes stored of \(records.count)")
    }
    let expectedHeart = records.filter { $0.heartRate != nil }.count
    if (seen["heart-rate"]?.count ?? 0) != expectedHeart { problems.append("heart-rate: \(seen["heart-rate"]?.count ?? 0) minutes of \(expectedHeart)") }
    let totals: [(String, Double)] = [("step-count", records.reduce(0) { $0 + $1.steps }),
                                      ("distance-walking-running", records.reduce(0) { $0 + $1.distanceMetres }),
                                      ("active-energy-burned", records.reduce(0) { $0 + $1.energyKilocalories })]
    for (type, total) in totals where abs((sums[type] ?? 0) - total) > 1e-3 {
        problems.append("\(type) total \(sums[type] ?? 0), band \(total)")
    }
    return Array(problems.prefix(20))
}

/// A JSON number as a Double, whichever way JSONSerialization bridged it.
func number(_ value: Any?) -> Double? {
    switch value {
    case let v as Int: Double(v)
    case let v as Double: v
    case let v as NSNumber: v.doubleValue
    default: nil
    }
}

/// The highest history cursor a `band … --json` run reported.
func lastCursor(in outputs: [String]) -> Int? {
    var best: Int?
    for output in outputs {
        for line in output.split(separator: "\n") where line.contains("\"event\":\"history_committed\"") {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let cursor = number(object["cursor"]) else { continue }
            best = max(best ?? 0, Int(cursor))
        }
    }
    return best
}
