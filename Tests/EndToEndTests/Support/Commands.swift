import Foundation

/// The built `bandsim`, `band` and `health` executables, run as a user would run them.
///
/// Found in `$BANDKIT_BIN`, else in the package's `.build/debug` (what `swift build
/// --build-tests` produces before `swift test`). Every run has a timeout, captures stdout and
/// stderr, and can be signalled while it runs.
enum Commands {
    static let packageRoot: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static var binDirectory: String {
        ProcessInfo.processInfo.environment["BANDKIT_BIN"] ?? packageRoot.appendingPathComponent(".build/debug").path
    }

    static func path(_ tool: String) -> String { binDirectory + "/" + tool }

    static var available: Bool {
        ["bandsim", "band", "health"].allSatisfy { FileManager.default.isExecutableFile(atPath: path($0)) }
    }
}

/// One running command.
final class RunningCommand: @unchecked Sendable {
    let process = Process()
    let arguments: [String]
    private let stdoutPipe = Pipe()
    private let stderrPipe = Pipe()
    private let lock = NSLock()
    private var stdoutData = Data()
    private var stderrData = Data()

    /// `standardInput`: what the command reads (default /dev/null, never the test runner's own
    /// terminal, so a command that would prompt there sees no terminal).
    init(_ tool: String, _ arguments: [String], environment: [String: String] = [:], standardInput: FileHandle = .nullDevice) throws {
        self.arguments = [tool] + arguments
        process.standardInput = standardInput
        process.executableURL = URL(fileURLWithPath: Commands.path(tool))
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        process.environment = env
        process.standardOutput = stdoutPipe
        process.standardError = stderrPipe
        stdoutPipe.fileHandleForReading.readabilityHandler = { [unowned self] handle in
            let data = handle.availableData
            lock.lock(); stdoutData.append(data); lock.unlock()
        }
        stderrPipe.fileHandleForReading.readabilityHandler = { [unowned self] handle in
            let data = handle.availableData
            lock.lock(); stderrData.append(data); lock.unlock()
        }
        try process.run()
    }

    var stdout: String {
        lock.lock(); defer { lock.unlock() }
        return String(decoding: stdoutData, as: UTF8.self)
    }

    var stderr: String {
        lock.lock(); defer { lock.unlock() }
        return String(decoding: stderrData, as: UTF8.self)
    }

    /// Waits for the exit (killing the process after `timeout`); returns the exit status.
    @discardableResult
    func wait(timeout: Duration = .seconds(60)) -> Int32 {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while process.isRunning, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.01) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        process.waitUntilExit()
        // Let the pipe handlers drain what is left.
        Thread.sleep(forTimeInterval: 0.05)
        stdoutPipe.fileHandleForReading.readabilityHandler = nil
        stderrPipe.fileHandleForReading.readabilityHandler = nil
        lock.lock()
        stdoutData.append(stdoutPipe.fileHandleForReading.readDataToEndOfFile())
        stderrData.append(stderrPipe.fileHandleForReading.readDataToEndOfFile())
        lock.unlock()
        return process.terminationStatus
    }

    /// Waits until stdout contains `text`; false after `timeout`.
    func waitForOutput(_ text: String, timeout: Duration = .seconds(30)) -> Bool {
        waitUntil(timeout: timeout) { $0.stdout.contains(text) }
    }

    /// Waits until stderr contains `text`; false after `timeout` or when the process ended without it.
    func waitForError(_ text: String, timeout: Duration = .seconds(60)) -> Bool {
        waitUntil(timeout: timeout) { $0.stderr.contains(text) }
    }

    /// Polls `seen` until it holds, the process ends (one last look) or `timeout` passes.
    private func waitUntil(timeout: Duration, _ seen: (RunningCommand) -> Bool) -> Bool {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while ContinuousClock.now < deadline {
            if seen(self) { return true }
            if !process.isRunning { return seen(self) }
            Thread.sleep(forTimeInterval: 0.002)
        }
        return false
    }

    func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// Runs to the end and returns (status, stdout, stderr).
    static func run(_ tool: String, _ arguments: [String], environment: [String: String] = [:],
                    timeout: Duration = .seconds(120)) throws -> (status: Int32, stdout: String, stderr: String) {
        let command = try RunningCommand(tool, arguments, environment: environment)
        let status = command.wait(timeout: timeout)
        return (status, command.stdout, command.stderr)
    }
}
