import CommandKit
import Testing
#if canImport(Glibc)
import Glibc
#endif

private struct Chatty: Command {
    static let configuration = CommandConfiguration(name: "chatty", abstract: "Prints.")
    init(arguments: ParsedArguments) throws(UsageError) {}
    func run() throws -> ExitCode { .success }
}

private struct Shell: Command {
    static let configuration = CommandConfiguration(name: "shell", abstract: "A tool.", subcommands: [Chatty.self])
}

/// Standard output through one writer whose failures are never silent.
@Suite struct StandardOutputTests {
    func fullDisk() throws -> Int32 {
        let fd = open("/dev/full", O_WRONLY | O_CLOEXEC)
        try #require(fd >= 0, "/dev/full is needed")
        return fd
    }

    @Test func aWriteErrorIsKeptAndThrownByFlush() throws {
        let fd = try fullDisk()
        defer { close(fd) }
        let output = StandardOutput(fileDescriptor: fd, capacity: 4096)
        output.line("lost")
        #expect(output.error == nil, "nothing written yet: the line is buffered")
        #expect(throws: OutputError.self) { try output.flush() }
        #expect(output.error?.errno == ENOSPC)
        // Later lines do not clear it: the output stays failed, as C's ferror.
        output.line("also lost")
        #expect(throws: OutputError.self) { try output.flush() }
    }

    @Test func lineNowWritesAtOnceAndRemembersTheFailure() throws {
        let fd = try fullDisk()
        defer { close(fd) }
        let output = StandardOutput(fileDescriptor: fd, capacity: 4096)
        output.lineNow("reading")
        #expect(output.error?.errno == ENOSPC)
    }

    @Test func manyLinesPastTheBufferFlushOnTheWayAndFailThere() throws {
        let fd = try fullDisk()
        defer { close(fd) }
        let output = StandardOutput(fileDescriptor: fd, capacity: 4096)
        for _ in 0..<1000 { output.line("0123456789abcdef") }
        #expect(output.error?.errno == ENOSPC, "a full buffer was written before the end")
    }

    @Test func theRunnerTurnsAFailedStandardOutputIntoExit1WithAMessage() throws {
        let fd = try fullDisk()
        defer { close(fd) }
        let output = StandardOutput(fileDescriptor: fd, capacity: 4096)
        var errors = ""
        let code = CommandRunner.run(Shell.self, arguments: ["--help"], standardOutput: output, errorOutput: { errors += $0 })
        #expect(code == .failure)
        #expect(errors.contains("shell: cannot write to standard output: No space left on device"))
    }

    @Test func aWorkingStandardOutputKeepsTheCommandsCode() throws {
        var fds: [Int32] = [0, 0]
        try #require(pipe(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        let output = StandardOutput(fileDescriptor: fds[1], capacity: 4096)
        var errors = ""
        #expect(CommandRunner.run(Shell.self, arguments: ["--help"], standardOutput: output, errorOutput: { errors += $0 }) == .success)
        #expect(errors.isEmpty)
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = read(fds[0], &buffer, buffer.count)
        #expect(String(decoding: buffer.prefix(max(0, n)), as: UTF8.self).hasPrefix("shell — A tool."))
    }
}
