import Foundation
import Testing

/// What every command of `health`, `band` and `bandsim` promises, whatever it does: a write
/// error on standard output is a message and exit 1, never a crash or a silent success; an
/// unknown subcommand is a usage error (64), `--help` or not.
@Suite(.enabled(if: Commands.available, "needs bandsim, band and health built (swift build)"))
struct CommandContractTests {
    /// Runs `tool` with standard output on /dev/full (every write fails with ENOSPC).
    static func runIntoFullDisk(_ tool: String, _ arguments: [String], environment: [String: String] = [:])
        throws -> (status: Int32, reason: Process.TerminationReason, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Commands.path(tool))
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["BANDKIT_STORE"] = nil
        for (key, value) in environment { env[key] = value }
        process.environment = env
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/full")
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let stderr = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, process.terminationReason, String(decoding: stderr, as: UTF8.self))
    }

    final class Scratch {
        let directory: String
        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("contract-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(atPath: directory) }
    }

    /// A store holding a few samples of several kinds, so every read command has something to print.
    static func populatedStore(in scratch: Scratch) throws -> String {
        let store = scratch.directory + "/health.sqlite"
        let lines = """
            {"type":"step-count","value":120,"start":"2026-11-30T08:00:00Z","end":"2026-11-30T08:01:00Z","source":"com.example.app"}
            {"type":"height","value":1.8,"start":"2026-11-30T08:00:00Z","source":"com.example.app"}
            {"type":"body-mass","value":72,"start":"2026-11-30T08:00:00Z","source":"com.example.app"}
            """
        let input = scratch.directory + "/in.ndjson"
        try lines.write(toFile: input, atomically: true, encoding: .utf8)
        let imported = try RunningCommand.run("health", ["import", input, "--store", store])
        #expect(imported.status == 0, "\(imported.stderr)")
        return store
    }

    @Test func everyHealthCommandReportsAFullDiskOnStandardOutputAndExits1() throws {
        let scratch = try Scratch()
        let store = try Self.populatedStore(in: scratch)
        let input = scratch.directory + "/one.ndjson"
        try #"{"type":"step-count","value":5,"start":"2026-11-30T09:00:00Z","source":"com.example.other"}"#
            .write(toFile: input, atomically: true, encoding: .utf8)
        let range = ["--from", "2026-11-30T00:00:00Z", "--to", "2026-12-01T00:00:00Z", "--tz", "UTC"]
        let commands: [[String]] = [
            ["--help"], ["export", "--help"],
            ["export"], ["export", "--format", "csv"],
            ["query", "step-count"] + range, ["query", "step-count", "--json"] + range,
            ["stats", "step-count"] + range, ["stats", "step-count", "--json"] + range,
            ["sources"], ["priority", "step-count"], ["profile"], ["changes", "--since", "0"], ["changes", "--since", "0", "--json"],
            ["bmi"], ["bmi", "--json"],
            ["grant", "com.example.app", "heart-rate", "--read"],
            ["add", "heart-rate", "60", "--start", "2026-11-30T10:00:00Z"],
            ["import", input],
        ]
        for command in commands {
            let result = try Self.runIntoFullDisk("health", command + ["--store", store])
            #expect(result.reason == .exit, "health \(command.joined(separator: " ")) crashed")
            #expect(result.status == 1, "health \(command.joined(separator: " ")): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains("No space left on device"), "health \(command.joined(separator: " ")): \(result.stderr)")
        }
    }

    @Test func bandAndBandsimReportAFullDiskOnStandardOutputAndExit1() throws {
        let scratch = try Scratch()
        let keystore = scratch.directory + "/keys.json"
        let file = #"{"version":1,"bands":[{"address":"sim:/tmp/band","reader_id":"1f","key":"00112233445566778899aabbccddeeff","device":{"name":"Band"},"paired_at":"2026-11-30T08:00:00Z"}]}"#
        try file.write(toFile: keystore, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: keystore)
        let trace = scratch.directory + "/t.btsnoop"
        let generated = try RunningCommand.run("bandsim", ["generate-trace", trace, "--notifications", "50"])
        #expect(generated.status == 0, "\(generated.stderr)")
        let runs: [(String, [String])] = [
            ("band", ["--help"]), ("band", ["devices", "--keystore", keystore]), ("band", ["devices", "--keystore", keystore, "--json"]),
            ("bandsim", ["--help"]), ("bandsim", ["decode", trace]), ("bandsim", ["decode", trace, "--json"]),
        ]
        for (tool, arguments) in runs {
            let result = try Self.runIntoFullDisk(tool, arguments)
            #expect(result.reason == .exit, "\(tool) \(arguments.joined(separator: " ")) crashed")
            #expect(result.status == 1, "\(tool) \(arguments.joined(separator: " ")): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains("No space left on device"), "\(tool) \(arguments.joined(separator: " ")): \(result.stderr)")
        }
    }

    @Test func anUnknownSubcommandIsAUsageErrorWithOrWithoutHelp() throws {
        for tool in ["health", "band", "bandsim"] {
            for arguments in [["serve-me"], ["serve-me", "--help"], ["--help", "serve-me"], ["help", "serve-me"]] {
                let result = try RunningCommand.run(tool, arguments)
                #expect(result.status == 64, "\(tool) \(arguments.joined(separator: " ")): \(result.status)")
                #expect(result.stderr.contains("unknown subcommand 'serve-me'"), "\(tool) \(arguments): \(result.stderr)")
                #expect(result.stdout.isEmpty, "\(tool) \(arguments): help went to stdout as if it succeeded")
            }
            // A known one still has its help, exit 0.
            #expect(try RunningCommand.run(tool, ["--help"]).status == 0)
        }
        #expect(try RunningCommand.run("health", ["export", "--help"]).status == 0)
        #expect(try RunningCommand.run("bandsim", ["decode", "--help"]).status == 0)
        #expect(try RunningCommand.run("band", ["devices", "--help"]).status == 0)
    }

    /// `bandsim serve --name $'Band\e[2J\n synced 99999 minutes into /etc/passwd'` used to
    /// rewrite the reader's screen and forge a line of `band sync`'s output.
    @Test func aBandNameWithEscapesAndNewlinesNeverReachesTheTerminalRaw() throws {
        let world = try DemoWorld()
        try world.startBand(["--seed", "4", "--name", "Band\u{1B}[2J\n synced 99999 minutes into /etc/passwd"])
        let runs = [try world.band(["pair", world.address]), try world.band(["sync", world.address, "--store", world.store]),
                    try world.band(["devices"])]
        world.stopBand()
        for run in runs {
            #expect(run.status == 0, "\(run.stderr)")
            for text in [run.stdout, run.stderr] {
                #expect(!text.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" && $0 != "\t" }, "raw control character: \(text)")
                #expect(!text.split(separator: "\n").contains { $0.hasPrefix(" synced 99999") }, "a forged line: \(text)")
            }
        }
        #expect(runs.map { $0.stdout + $0.stderr }.joined().contains(#"Band\e[2J\n synced 99999"#), "the name is shown, escaped")
    }
}
