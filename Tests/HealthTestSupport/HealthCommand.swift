import Foundation
import Testing

/// Runs the built `health` binary (next to the test bundle in .build/<config>/).
public struct HealthCommand {
    public struct Result {
        public var code: Int32
        public var output: String
        public var error: String
    }

    public static var binary: String {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [bundle.appendingPathComponent("health"), bundle.deletingLastPathComponent().appendingPathComponent("health")]
        where FileManager.default.isExecutableFile(atPath: candidate.path) {
            return candidate.path
        }
        return Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("health").path
    }

    public let store: String

    public init(store: String) { self.store = store }

    /// Starts `health ARGS --store STORE`; the caller waits.
    public func start(_ arguments: [String], input: String? = nil) throws -> (Process, Pipe, Pipe) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: HealthCommand.binary)
        process.arguments = ["--store", store] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["BANDKIT_STORE"] = nil
        environment["TZ"] = "UTC"
        process.environment = environment
        let output = Pipe(), error = Pipe()
        process.standardOutput = output
        process.standardError = error
        if let input {
            let pipe = Pipe()
            process.standardInput = pipe
            try process.run()
            pipe.fileHandleForWriting.write(Data(input.utf8))
            try pipe.fileHandleForWriting.close()
        } else {
            process.standardInput = FileHandle.nullDevice
            try process.run()
        }
        return (process, output, error)
    }

    public static func finish(_ started: (Process, Pipe, Pipe)) -> Result {
        let (process, output, error) = started
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(code: process.terminationStatus, output: String(decoding: out, as: UTF8.self),
                      error: String(decoding: err, as: UTF8.self))
    }

    public func run(_ arguments: String..., input: String? = nil) throws -> Result {
        try HealthCommand.finish(start(arguments, input: input))
    }

    public func run(_ arguments: [String], input: String? = nil) throws -> Result {
        try HealthCommand.finish(start(arguments, input: input))
    }
}

/// NDJSON step lines, one per minute from `start`, for `source`.
public func minuteSteps(count: Int, source: String, start: Date = at("2026-11-30T00:00:00Z"), steps: Int = 10) -> String {
    let formatter = ISO8601DateFormatter()
    var lines = ""
    for minute in 0..<count {
        let from = start.addingTimeInterval(Double(minute) * 60)
        lines += #"{"type":"step-count","value":\#(steps),"start":"\#(formatter.string(from: from))","end":"\#(formatter.string(from: from.addingTimeInterval(60)))","source":"\#(source)","sync_id":"\#(source)/\#(minute)","sync_version":1}"# + "\n"
    }
    return lines
}
