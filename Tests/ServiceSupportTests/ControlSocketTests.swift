#if canImport(Glibc)
import Glibc
#endif
import ServiceSupport
import Testing

/// The control socket end to end on a real Unix socket: the server driven by the test's thread as
/// an owner's loop would, clients on threads of their own.
@Suite struct ControlSocketTests {
    static func echoServer(_ path: String, limits: StreamServerLimits = StreamServerLimits()) throws -> ControlSocketServer {
        try ControlSocketServer(path: path, limits: limits) { line in
            line == "refuse" ? nil : Array("you said \(line)\n".utf8)
        }
    }

    @Test func answersOneLineAndIsMode0600() throws {
        let directory = try temporaryDirectory()
        defer { removeTree(directory) }
        let path = directory + "/gateway.sock"
        let server = try Self.echoServer(path)
        var status = stat()
        #expect(lstat(path, &status) == 0)
        #expect(status.st_mode & S_IFMT == S_IFSOCK)
        #expect(status.st_mode & 0o777 == 0o600)

        let answer = try drive([server]) { Result { () throws(ControlSocketError) in try ControlSocketClient.request("status json", path: path) } }
        #expect(try answer.get() == Array("you said status json\n".utf8))
        #expect(server.counters.accepted == 1 && server.counters.answered == 1)
    }

    /// Driven by a loop that keeps its own poll set and knows only which descriptors are ready.
    @Test func aLoopWithItsOwnPollSetDrivesItByReadiness() throws {
        let directory = try temporaryDirectory()
        defer { removeTree(directory) }
        let path = directory + "/c.sock"
        let server = try Self.echoServer(path)
        let answer = try drive([]) {
            exchange(connectUnix(path), Array("status\n".utf8))
        } between: {
            var own: [pollfd] = []
            server.appendPollDescriptors(to: &own)
            _ = poll(&own, nfds_t(own.count), 5)
            let ready = Set(own.filter { $0.revents != 0 }.map(\.fd))
            server.handle(ready: { ready.contains($0) }, now: .now, budget: .milliseconds(20))
        }
        #expect(answer == Array("you said status\n".utf8))
    }

    @Test func acceptsCRLFAndALastLineWithoutNewline() throws {
        let directory = try temporaryDirectory()
        defer { removeTree(directory) }
        let path = directory + "/c.sock"
        let server = try Self.echoServer(path)
        let crlf = try drive([server]) { exchange(connectUnix(path), Array("status\r\n".utf8)) }
        #expect(crlf == Array("you said status\n".utf8))
        let unterminated = try drive([server]) { exchange(connectUnix(path), Array("status".utf8), shutdownAfterSending: true) }
        #expect(unterminated == Array("you said status\n".utf8))
    }

    @Test func garbageNothingAndOverlongLinesAreDroppedAndTheServerCarriesOn() throws {
        let directory = try temporaryDirectory()
        defer { removeTree(directory) }
        let path = directory + "/c.sock"
        let server = try Self.echoServer(path, limits: StreamServerLimits(maximumRequestBytes: 64))
        let bad: [[UInt8]] = [
            [0xFF, 0xFE, 0x0A],                                   // not UTF-8
            Array("sta\u{1B}[2Jtus\n".utf8),                       // a control character
            Array("\n".utf8),                                     // an empty line
            Array(repeating: UInt8(ascii: "a"), count: 65) + [0x0A],  // over the limit
            Array(repeating: UInt8(ascii: "a"), count: 5000),     // over the limit, never a newline
            Array("refuse\n".utf8),                               // the owner says no
        ]
        for request in bad {
            let answer = try drive([server]) { exchange(connectUnix(path), request, shutdownAfterSending: true) }
            #expect(answer == [], "\(request.prefix(16))")
        }
        // Nothing at all: connect and close.
        #expect(try drive([server]) { exchange(connectUnix(path), nil, shutdownAfterSending: true) } == [])
        #expect(server.counters.dropped == bad.count + 1)
        #expect(server.counters.answered == 0)
        // Unaffected.
        let answer = try drive([server]) { exchange(connectUnix(path), Array("status\n".utf8)) }
        #expect(answer == Array("you said status\n".utf8))
    }

    @Test func aSilentClientTimesOutWithoutHoldingUpOthers() throws {
        let directory = try temporaryDirectory()
        defer { removeTree(directory) }
        let path = directory + "/c.sock"
        let server = try Self.echoServer(path, limits: StreamServerLimits(clientDeadline: .milliseconds(300)))
        let silent = connectUnix(path)
        defer { close(silent) }
        server.pollOnce(timeout: .milliseconds(50))
        #expect(server.nextDeadline != nil)
        // Served while the silent client is connected.
        let answer = try drive([server]) { exchange(connectUnix(path), Array("status\n".utf8)) }
        #expect(answer == Array("you said status\n".utf8))
        let limit = ContinuousClock.now + .seconds(5)
        while server.counters.timedOut == 0, ContinuousClock.now < limit { server.pollOnce(timeout: .milliseconds(50)) }
        #expect(server.counters.timedOut == 1)
        #expect(server.nextDeadline == nil)
        // The server closed it: the silent client reads end of file.
        var byte: UInt8 = 0
        #expect(recv(silent, &byte, 1, 0) == 0)
    }

    /// A client that asks and never reads: the answer stops at the full socket buffer and the
    /// client is dropped at its deadline; the server never blocks on it.
    @Test func aClientThatNeverReadsIsDroppedAtItsDeadline() throws {
        let directory = try temporaryDirectory()
        defer { removeTree(directory) }
        let path = directory + "/c.sock"
        let server = try ControlSocketServer(path: path, limits: StreamServerLimits(clientDeadline: .milliseconds(300))) { _ in
            Array(repeating: UInt8(ascii: "x"), count: 16 << 20)
        }
        let fd = connectUnix(path)
        defer { close(fd) }
        _ = "status\n".withCString { send(fd, $0, 7, Int32(MSG_NOSIGNAL)) }
        let start = ContinuousClock.now
        while server.counters.timedOut == 0, ContinuousClock.now < start + .seconds(5) {
            let before = ContinuousClock.now
            server.pollOnce(timeout: .milliseconds(50))
            #expect(ContinuousClock.now - before < .seconds(1))
        }
        #expect(server.counters.timedOut == 1 && server.counters.answered == 0)
        #expect(server.nextDeadline == nil)
    }

    @Test func clientsBeyondTheLimitWaitInTheBacklog() throws {
        let directory = try temporaryDirectory()
        defer { removeTree(directory) }
        let path = directory + "/c.sock"
        let server = try Self.echoServer(path, limits: StreamServerLimits(clientDeadline: .seconds(5), maximumClients: 2))
        let idle = (0..<3).map { _ in connectUnix(path) }
        defer { idle.forEach { close($0) } }
        for _ in 0..<5 { server.pollOnce(timeout: .milliseconds(10)) }
        #expect(server.counters.accepted == 2)
        var descriptors: [pollfd] = []
        server.appendPollDescriptors(to: &descriptors)
        #expect(descriptors.count == 2)  // the clients, not the listener
    }

    @Test func oneStepAcceptsNoMoreThanItsShare() throws {
        let directory = try temporaryDirectory()
        defer { removeTree(directory) }
        let path = directory + "/c.sock"
        let server = try Self.echoServer(path, limits: StreamServerLimits(maximumClients: 8, acceptsPerStep: 2))
        let waiting = (0..<5).map { _ in connectUnix(path) }
        defer { waiting.forEach { close($0) } }
        var descriptors: [pollfd] = []
        server.appendPollDescriptors(to: &descriptors)
        #expect(descriptors.count == 1)
        descriptors[0].revents = Int16(POLLIN)
        server.handle(descriptors, now: .now, budget: .seconds(1))
        #expect(server.counters.accepted == 2)
        server.handle(descriptors, now: .now, budget: .seconds(1))
        #expect(server.counters.accepted == 4)
    }

    /// The answer is sent with MSG_NOSIGNAL: a client gone before it costs no SIGPIPE (which
    /// would end this test process) and leaves the server serving.
    @Test func aClientThatLeavesBeforeItsAnswerCostsNothing() throws {
        let directory = try temporaryDirectory()
        defer { removeTree(directory) }
        let path = directory + "/c.sock"
        let server = try ControlSocketServer(path: path) { _ in Array(repeating: UInt8(ascii: "x"), count: 1 << 20) }
        for _ in 0..<3 {
            let fd = connectUnix(path)
            _ = "status\n".withCString { send(fd, $0, 7, Int32(MSG_NOSIGNAL)) }
            close(fd)
            server.pollOnce(timeout: .milliseconds(100))
        }
        let limit = ContinuousClock.now + .seconds(5)
        while server.nextDeadline != nil, ContinuousClock.now < limit { server.pollOnce(timeout: .milliseconds(50)) }
        #expect(server.counters.accepted == 3 && server.counters.answered == 0)
        let answer = try drive([server]) { Result { () throws(ControlSocketError) in try ControlSocketClient.request("status", path: path) } }
        #expect(try answer.get().count == 1 << 20)
    }

    @Test func refusesALiveSocketAndReplacesAStaleOne() throws {
        let directory = try temporaryDirectory()
        defer { removeTree(directory) }
        let path = directory + "/c.sock"
        do {
            let server = try Self.echoServer(path)
            #expect(throws: ControlSocketError.alreadyRunning(path)) { try Self.echoServer(path) }
            _ = server
        }
        // Released: the file is gone.
        #expect(access(path, F_OK) != 0)

        // A stale socket: bound, then its process died (closed without unlinking).
        let stale = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in for (index, byte) in path.utf8.enumerated() { raw[index] = byte } }
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(stale, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        #expect(bound == 0)
        close(stale)
        #expect(access(path, F_OK) == 0)
        let server = try Self.echoServer(path)
        let answer = try drive([server]) { exchange(connectUnix(path), Array("x\n".utf8)) }
        #expect(answer == Array("you said x\n".utf8))
    }

    @Test func neverReplacesSomethingThatIsNotASocket() throws {
        let directory = try temporaryDirectory()
        defer { removeTree(directory) }
        let path = directory + "/file"
        let fd = open(path, O_CREAT | O_WRONLY, 0o644)
        close(fd)
        #expect(throws: ControlSocketError.notASocket(path)) { try Self.echoServer(path) }
        #expect(access(path, F_OK) == 0)
        #expect(throws: ControlSocketError.invalidPath("@abstract")) { try Self.echoServer("@abstract") }
    }

    @Test func makesItsDirectoryWhenAsked() throws {
        let directory = try temporaryDirectory()
        defer { removeTree(directory) }
        let path = directory + "/bandkit/gateway.sock"
        let server = try ControlSocketServer(path: path, createDirectory: true) { _ in [0x0A] }
        var status = stat()
        #expect(stat(directory + "/bandkit", &status) == 0)
        #expect(status.st_mode & 0o777 == 0o700)
        _ = server
    }

    /// Outside systemd the runtime directory may be missing too: every missing level is made,
    /// each private (only the last one was, and a missing parent failed the start).
    @Test func makesEveryMissingLevelOfItsDirectoryPrivate() throws {
        let directory = try temporaryDirectory()
        defer { removeTree(directory) }
        let server = try ControlSocketServer(path: directory + "/run/bandkit/gateway.sock", createDirectory: true) { _ in [0x0A] }
        for level in ["/run", "/run/bandkit"] {
            var status = stat()
            #expect(stat(directory + level, &status) == 0 && status.st_mode & 0o777 == 0o700, "\(level)")
        }
        _ = server
    }

    @Test func theClientNamesThePathWhenNothingRuns() throws {
        let directory = try temporaryDirectory()
        defer { removeTree(directory) }
        let path = directory + "/gateway.sock"
        #expect(throws: ControlSocketError.notRunning(path)) { try ControlSocketClient.request("status", path: path) }
        #expect(ControlSocketError.notRunning(path).description == "no gateway is running: nothing listens on \(path)")
        #expect(throws: ControlSocketError.invalidRequest("a\nb")) { try ControlSocketClient.request("a\nb", path: path) }
    }

    @Test func theClientReportsARefusalAndATimeout() throws {
        let directory = try temporaryDirectory()
        defer { removeTree(directory) }
        let path = directory + "/c.sock"
        let server = try Self.echoServer(path)
        let refused = try drive([server]) { Result { () throws(ControlSocketError) in try ControlSocketClient.request("refuse", path: path) } }
        #expect(throws: ControlSocketError.noAnswer(path)) { try refused.get() }
        // Nobody drives the server: the client gives up at its deadline.
        #expect(throws: ControlSocketError.timedOut(path)) { try ControlSocketClient.request("status", path: path, timeout: .milliseconds(200)) }
    }

    @Test func theClientBoundsTheAnswer() throws {
        let directory = try temporaryDirectory()
        defer { removeTree(directory) }
        let path = directory + "/c.sock"
        let server = try ControlSocketServer(path: path) { _ in Array(repeating: UInt8(ascii: "x"), count: 100_000) }
        let outcome = try drive([server]) {
            Result { () throws(ControlSocketError) in try ControlSocketClient.request("status", path: path, maximumAnswerBytes: 50_000) }
        }
        #expect(throws: ControlSocketError.answerTooLong(path, 50_000)) { try outcome.get() }
        let whole = try drive([server]) { Result { () throws(ControlSocketError) in try ControlSocketClient.request("status", path: path) } }
        #expect(try whole.get().count == 100_000)
    }

    @Test func defaultPathFollowsTheRuntimeDirectory() {
        #expect(ControlSocketClient.defaultPath(environment: ["XDG_RUNTIME_DIR": "/run/user/1000"]) == "/run/user/1000/bandkit/gateway.sock")
        #expect(ControlSocketClient.defaultPath(environment: [:]) == "/run/bandkit/gateway.sock")
        #expect(ControlSocketClient.defaultPath(environment: ["XDG_RUNTIME_DIR": "relative"]) == "/run/bandkit/gateway.sock")
    }
}
