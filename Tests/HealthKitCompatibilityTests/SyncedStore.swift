#if canImport(HealthKit)
import HealthKit
#else
import OpenHealthKitShim
#endif
import Foundation

/// A store that `band sync` filled from a simulated band, plus the `health` command to check it
/// with: the world every compatibility test reads. Made once per test process (a band, a pairing
/// and a sync cost a few seconds); the band is stopped as soon as the sync is done.
///
/// The band runs `bandsim serve` from now with a day of history and a walk at the start of every
/// hour, so "today" holds steps, distance and energy whatever the hour the tests run.
final class SyncedStore: @unchecked Sendable {
    let directory: String
    let store: String
    /// The app the tutorials' code runs as (`BANDKIT_APP_ID`).
    static let appIdentifier = "com.example.tutorials"

    static let shared: Result<SyncedStore, any Error> = Result { try SyncedStore() }

    static var binDirectory: String {
        ProcessInfo.processInfo.environment["BANDKIT_BIN"]
            ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent(".build/debug").path
    }

    static var available: Bool {
        ["bandsim", "band", "health"].allSatisfy { FileManager.default.isExecutableFile(atPath: binDirectory + "/" + $0) }
    }

    private init() throws {
        directory = NSTemporaryDirectory() + "bandkit-healthkit-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        store = directory + "/health.sqlite"
        SyncedStore.cleanUp = directory
        atexit { if let directory = SyncedStore.cleanUp { try? FileManager.default.removeItem(atPath: directory) } }

        var plan = ""
        for hour in 0..<24 { plan += String(format: "at %02d:00 walk\nat %02d:20 desk\n", hour, hour) }
        let scenario = directory + "/hourly-walks.scenario"
        try plan.write(toFile: scenario, atomically: true, encoding: .utf8)
        let socket = directory + "/band.sock"
        let band = try Self.start("bandsim", ["serve", "--socket", socket, "--state", directory + "/flash.img", "--history-days", "1",
                                              "--seed", "7", "--deterministic-secrets", "--scenario", scenario], in: directory)
        defer {
            // SIGTERM, then SIGKILL if it has not gone within five seconds: its state is not needed.
            band.terminate()
            let deadline = Date().addingTimeInterval(5)
            while band.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
            if band.isRunning { kill(band.processIdentifier, SIGKILL) }
            band.waitUntilExit()
        }
        let deadline = Date().addingTimeInterval(60)
        while !FileManager.default.fileExists(atPath: socket) {
            guard band.isRunning, Date() < deadline else { throw Failure("bandsim serve did not start") }
            Thread.sleep(forTimeInterval: 0.05)
        }
        let keystore = directory + "/keys.json"
        try check(run("band", ["pair", "sim:" + socket, "--keystore", keystore]))
        try check(run("band", ["sync", "sim:" + socket, "--keystore", keystore, "--store", store, "--keep-band-clock"]))
        // The profile and the body measurements the tutorials read: entered by the user.
        try check(run("health", ["profile", "--store", store, "--set", "date-of-birth=1990-05-17", "--set", "biological-sex=female",
                                 "--set", "blood-type=A+"]))
        let dayBefore = ISO8601DateFormatter().string(from: Date().addingTimeInterval(-2 * 86_400))
        let yesterday = ISO8601DateFormatter().string(from: Date().addingTimeInterval(-86_400))
        try check(run("health", ["add", "height", "1.78", "m", "--start", dayBefore, "--store", store]))
        try check(run("health", ["add", "height", "1.80", "m", "--start", yesterday, "--store", store]))
        try check(run("health", ["add", "body-mass", "74.0", "kg", "--start", dayBefore, "--store", store]))
        try check(run("health", ["add", "body-mass", "72.5", "kg", "--start", yesterday, "--store", store]))
        // The tutorials' `HKHealthStore()` reads the app and the store from the environment;
        // the test process shares its environment with every other suite, so it is set here
        // instead (on Apple platforms the app's bundle decides).
        #if !canImport(HealthKit)
        HKHealthStore.setDefault(appIdentifier: Self.appIdentifier, storePath: store)
        #endif
    }

    nonisolated(unsafe) static var cleanUp: String?

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    private static func start(_ tool: String, _ arguments: [String], in directory: String) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binDirectory + "/" + tool)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Runs a command to its end; its output goes through files, so no pipe can fill up.
    func run(_ tool: String, _ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let out = directory + "/\(UUID().uuidString).out", err = out + ".err"
        guard FileManager.default.createFile(atPath: out, contents: nil), FileManager.default.createFile(atPath: err, contents: nil) else {
            throw Failure("cannot create \(out)")
        }
        defer {
            try? FileManager.default.removeItem(atPath: out)
            try? FileManager.default.removeItem(atPath: err)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binDirectory + "/" + tool)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = directory + "/config"
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: err))
        try process.run()
        process.waitUntilExit()
        return (process.terminationStatus, (try? String(contentsOfFile: out, encoding: .utf8)) ?? "",
                (try? String(contentsOfFile: err, encoding: .utf8)) ?? "")
    }

    private func check(_ result: (status: Int32, stdout: String, stderr: String)) throws {
        guard result.status == 0 else { throw Failure("command failed (\(result.status)): \(result.stderr)") }
    }

    /// `health stats TYPE --today --sum --tz ZONE --json`: today's merged total, in the type's unit.
    func todaysSum(_ type: String) throws -> Double {
        let result = try run("health", ["stats", type, "--today", "--sum", "--tz", TimeZone.current.identifier, "--json", "--store", store])
        try check(result)
        guard let buckets = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]],
              buckets.count == 1 else { throw Failure("health stats printed \(result.stdout)") }
        return (buckets[0]["value"] as? NSNumber)?.doubleValue ?? 0
    }

    /// The ids of the workouts `health workouts list` shows.
    func listedWorkoutIDs() throws -> [String] {
        let result = try run("health", ["workouts", "list", "--from", "1970-01-01T00:00:00Z", "--to", "2100-01-01T00:00:00Z",
                                        "--json", "--store", store])
        try check(result)
        guard let list = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any],
              let workouts = list["workouts"] as? [[String: Any]] else { throw Failure("health workouts list printed \(result.stdout)") }
        return workouts.compactMap { $0["id"] as? String }
    }
}
