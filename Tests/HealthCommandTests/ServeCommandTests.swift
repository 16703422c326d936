import HealthTestSupport
import Foundation
import HealthModel
import HealthStore
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `health serve`: numbers equal `health stats`, "not allowed" per type, the HTTP bad-input list,
/// live events while another process writes, a writer's lock, a slow client, a clean stop.
@Suite(.serialized) struct ServeCommandTests {
    let temp: TemporaryStore
    let health: HealthCommand

    init() throws {
        temp = try TemporaryStore()
        health = HealthCommand(store: temp.path)
    }

    /// A running `health serve --port 0`, stopped with SIGTERM at the end of the test.
    final class Server {
        let started: (Process, Pipe, Pipe)
        let port: UInt16
        /// The libmicrohttpd version the server reported at start (`libmicrohttpd X.Y.Z;`).
        let libraryVersion: String?
        /// What the server printed up to `startedWhen` (its first line by default).
        let startText: String
        init(_ health: HealthCommand, _ arguments: [String] = [], startedWhen marker: String = "\n") throws {
            started = try health.start(["serve", "--port", "0", "--tz", "Europe/Berlin"] + arguments)
            var text = ""
            let handle = started.1.fileHandleForReading
            while !text.contains(marker) {
                let data = handle.availableData
                if data.isEmpty { break }
                text += String(decoding: data, as: UTF8.self)
            }
            guard let range = text.range(of: #":[0-9]+/"#, options: .regularExpression) else {
                started.0.terminate()
                throw ServerFailed(output: text)
            }
            port = UInt16(text[range].dropFirst().dropLast())!
            startText = text
            libraryVersion = text.range(of: #"libmicrohttpd [0-9.]+"#, options: .regularExpression)
                .map { String(text[$0].dropFirst("libmicrohttpd ".count)) }
        }
        func stop() -> HealthCommand.Result {
            kill(started.0.processIdentifier, SIGTERM)
            return HealthCommand.finish(started)
        }
        deinit { if started.0.isRunning { started.0.terminate() } }
    }

    struct ServerFailed: Error { var output: String }

    /// A TCP connection to the server on 127.0.0.1 with a receive timeout; -1 when it cannot connect.
    static func connectedSocket(_ port: UInt16, receiveTimeout seconds: Int) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard connected == 0 else { close(fd); return -1 }
        var timeval = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeval, socklen_t(MemoryLayout<timeval>.size))
        return fd
    }

    /// Sends `text` as it is (no terminator).
    static func sendText(_ fd: Int32, _ text: String) {
        _ = text.utf8CString.withUnsafeBufferPointer { send(fd, $0.baseAddress, $0.count - 1, Int32(MSG_NOSIGNAL)) }
    }

    /// One raw HTTP exchange over TCP; returns what the server sent before closing (or `timeout`).
    static func exchange(_ port: UInt16, _ request: String, timeout: Double = 5) -> String {
        let fd = connectedSocket(port, receiveTimeout: Int(timeout))
        guard fd >= 0 else { return "" }
        defer { close(fd) }
        sendText(fd, request)
        var received = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received += buffer[0..<count]
        }
        return String(decoding: received, as: UTF8.self)
    }

    static func get(_ port: UInt16, _ path: String) -> String {
        exchange(port, "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n")
    }

    static func value(_ id: String, in page: String) -> String? {
        guard let range = page.range(of: "id=\"\(id)\" data-value=\"[^\"]*\"", options: .regularExpression) else { return nil }
        return String(page[range].split(separator: "\"")[3])
    }

    func statistic(_ arguments: String...) throws -> Double { try statistic(arguments) }

    func statistic(_ arguments: [String]) throws -> Double {
        let result = try health.run(["stats"] + arguments + ["--json"])
        let array = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as! [[String: Any]]
        return (array[0]["value"] as! NSNumber).doubleValue
    }

    func fill() throws {
        var lines = minuteSteps(count: 600, source: "bandkit.band", start: at("2026-11-30T06:00:00Z"), steps: 12)
        lines += minuteSteps(count: 60, source: "com.example.phone", start: at("2026-11-30T08:00:00Z"), steps: 40)
        for minute in 0..<120 {
            let time = at("2026-11-30T09:00:00Z").addingTimeInterval(Double(minute * 60))
            lines += #"{"type":"heart-rate","value":\#(60 + minute % 50),"start":"\#(ISO8601DateFormatter().string(from: time))","source":"bandkit.band"}"# + "\n"
        }
        #expect(try health.run("import", "-", input: lines).code == 0)
        for type in ["step-count", "heart-rate"] {
            #expect(try health.run("grant", "bandkit.dashboard", type, "--read").code == 0)
        }
    }

    @Test func theDayPageShowsHealthStatsAndNotAllowedForTypesItMayNotRead() throws {
        try fill()
        let server = try Server(health)
        let page = Self.get(server.port, "/day?date=2026-11-30")
        #expect(page.hasPrefix("HTTP/1.1 200"))
        let day = ["--day", "2026-11-30", "--tz", "Europe/Berlin"]
        #expect(Self.value("steps", in: page).flatMap(Double.init) == (try statistic(["step-count"] + day + ["--sum"])))
        #expect(Self.value("hr-avg", in: page).flatMap(Double.init) == (try statistic(["heart-rate"] + day + ["--avg"])))
        #expect(Self.value("hr-max", in: page).flatMap(Double.init) == (try statistic(["heart-rate"] + day + ["--max"])))
        #expect(page.contains(#"<td id="energy" class="not-allowed">not allowed</td>"#))
        #expect(page.contains(#"<td id="asleep" class="not-allowed">not allowed</td>"#))
        let week = Self.get(server.port, "/week?date=2026-11-30")
        #expect(Self.value("steps", in: week).flatMap(Double.init) == (try statistic("step-count", "--from", "2026-11-30T00:00:00+01:00", "--to", "2026-12-07T00:00:00+01:00", "--sum")))
        let chart = Self.get(server.port, "/chart.svg?view=day&date=2026-11-30")
        #expect(chart.contains("Content-Type: image/svg+xml") && chart.contains("class=\"steps\""))
        let night = Self.get(server.port, "/chart.svg?view=night&date=2026-11-29")
        #expect(night.hasPrefix("HTTP/1.1 200") && night.contains("night of 2026-11-29"))
        #expect(server.stop().code == 0)
    }

    /// The week and month views read all their nights in one query: each must still be the sum of
    /// what `health sleep` says night by night (priority between sources, a nap across the noon
    /// that separates two nights counted in both halves, nights outside the range left out).
    @Test func theWeeksSleepIsTheSumOfHealthSleepPerNight() throws {
        func line(_ value: String, _ start: String, _ end: String, _ source: String) -> String {
            #"{"type":"sleep-analysis","value":"\#(value)","start":"\#(start)","end":"\#(end)","source":"\#(source)"}"# + "\n"
        }
        let lines = line("inBed", "2026-11-29T22:00:00Z", "2026-11-30T06:00:00Z", "bandkit.band")
            + line("asleepCore", "2026-11-29T22:10:00Z", "2026-11-30T02:00:00Z", "bandkit.band")
            + line("awake", "2026-11-30T02:00:00Z", "2026-11-30T02:20:00Z", "bandkit.band")
            + line("asleepDeep", "2026-11-30T02:20:00Z", "2026-11-30T05:50:00Z", "bandkit.band")
            + line("asleepUnspecified", "2026-11-29T21:00:00Z", "2026-11-30T07:00:00Z", "com.example.phone")
            + line("asleepUnspecified", "2026-12-01T10:00:00Z", "2026-12-01T13:00:00Z", "com.example.phone")   // across noon (Berlin 11:00–14:00)
            + line("asleepUnspecified", "2026-12-03T23:00:00Z", "2026-12-04T06:30:00Z", "com.example.phone")
            + line("asleepUnspecified", "2026-11-27T23:00:00Z", "2026-11-28T06:30:00Z", "com.example.phone")   // before the week
            + line("asleepUnspecified", "2026-12-06T23:00:00Z", "2026-12-07T06:30:00Z", "com.example.phone")   // ends after it
        #expect(try health.run("import", "-", input: lines).code == 0)
        #expect(try health.run("priority", "sleep-analysis", "bandkit.band", "com.example.phone").code == 0)
        #expect(try health.run("grant", "bandkit.dashboard", "sleep-analysis", "--read").code == 0)
        // The week of 2026-11-30 (Berlin): the nights that end on its days, 2026-11-29 … 2026-12-05.
        var expected = 0.0
        for day in 29...35 {
            let night = day <= 30 ? "2026-11-\(day)" : String(format: "2026-12-%02d", day - 30)
            let result = try health.run("sleep", "--night", night, "--tz", "Europe/Berlin", "--json")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
            expected += try #require((object["asleep_s"] as? NSNumber)?.doubleValue)
        }
        // By hand: 11-29 the band's core 230 + deep 210 min, the phone's asleep where the band has
        // nothing (21:00–22:00, 06:00–07:00) 120 min; the nap 60 min on 11-30 and 120 on 12-01; 12-03 450 min.
        #expect(expected == Double(230 + 210 + 120 + 60 + 120 + 450) * 60, "the fixture's nights as worked out by hand")
        let server = try Server(health)
        let week = Self.get(server.port, "/week?date=2026-11-30")
        #expect(Self.value("asleep", in: week).flatMap(Double.init) == expected, "\(week)")
        #expect(server.stop().code == 0)
    }

    @Test func badRequestsGetTheirStatusAndNothingElse() throws {
        let server = try Server(health)
        func status(_ response: String) -> String { String(response.prefix(12)) }
        #expect(status(Self.get(server.port, "/nope")) == "HTTP/1.1 404")
        #expect(status(Self.get(server.port, "/../../etc/passwd")) == "HTTP/1.1 404")
        #expect(status(Self.get(server.port, "/%2e%2e/%2e%2e/etc/passwd")) == "HTTP/1.1 404")
        #expect(status(Self.get(server.port, "/day?date=2026-02-30")) == "HTTP/1.1 400")
        #expect(status(Self.get(server.port, "/chart.svg?view=year")) == "HTTP/1.1 400")
        #expect(status(Self.get(server.port, "/chart.svg?view=night&date=2026-13-01")) == "HTTP/1.1 400")
        #expect(status(Self.get(server.port, "/day?" + (0..<40).map { "a\($0)=1" }.joined(separator: "&"))) == "HTTP/1.1 400")
        #expect(status(Self.exchange(server.port, "POST /day HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc")) == "HTTP/1.1 405")
        #expect(status(Self.exchange(server.port, "GET /day HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc")) == "HTTP/1.1 413")
        let huge = String(repeating: "a", count: 40_000)
        #expect(status(Self.exchange(server.port, "GET /day HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nX-Big: \(huge)\r\nConnection: close\r\n\r\n")) == "HTTP/1.1 431")
        #expect(status(Self.exchange(server.port, "GET /day\r\n\r\n")) == "HTTP/1.1 400")
        #expect(status(Self.exchange(server.port, "GET /day HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nBad Header Line\r\n\r\n")) == "HTTP/1.1 400")
        #expect(status(Self.exchange(server.port, "GET /day HTTP/9.9\r\nHost: 127.0.0.1:\(server.port)\r\n\r\n")) == "HTTP/1.1 505")
        #expect(status(Self.exchange(server.port, "GET /day HTTP/1.1\r\nConnection: close\r\n\r\n")) == "HTTP/1.1 400")  // HTTP/1.1 needs Host
        #expect(status(Self.get(server.port, "/health")) == "HTTP/1.1 200")
        #expect(server.stop().code == 0)
    }

    /// What a client sees for one raw request: the bytes the server sent, and whether it then
    /// closed the connection (end-of-file) rather than leaving it open until `timeout`.
    static func answer(_ port: UInt16, _ request: String, timeout: Int = 20) -> (bytes: String, closed: Bool) {
        let fd = connectedSocket(port, receiveTimeout: timeout)
        guard fd >= 0 else { return ("", false) }
        defer { close(fd) }
        sendText(fd, request)
        var received = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count > 0 { received += buffer[0..<count]; continue }
            // 0: end-of-file; ECONNRESET: closed with unread bytes; EAGAIN: still open at the timeout.
            return (String(decoding: received, as: UTF8.self), count == 0 || errno == ECONNRESET)
        }
    }

    /// A request line with no method, no target or no version: libmicrohttpd 0.9.75 closes such a
    /// line without a byte; the server's own check of the request head answers 400 first, whatever
    /// the library's version, and the server keeps serving.
    @Test func garbageRequestLinesAreRefusedWith400() throws {
        let server = try Server(health)
        #expect(server.libraryVersion != nil, "health serve prints the libmicrohttpd version")
        for line in ["NONSENSE", " /day HTTP/1.1", "\u{01}\u{02}\u{7f}", "GET", "GET ", "GET /day", "GET  /day HTTP/1.1"] {
            let seen = Self.answer(server.port, line + "\r\n\r\n")
            #expect(seen.bytes.hasPrefix("HTTP/1.1 400") && seen.closed, "\(line.debugDescription): \(seen)")
        }
        #expect(Self.get(server.port, "/health").hasPrefix("HTTP/1.1 200"), "the server still answers")
        #expect(server.stop().code == 0)
    }

    @Test func aSlowClientAndAWritersLockDoNotStallThePage() throws {
        try fill()
        let server = try Server(health)
        // A client that sends half a request and then nothing.
        let slow = Self.connectedSocket(server.port, receiveTimeout: 1)
        defer { close(slow) }
        Self.sendText(slow, "GET /day HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nX-Slow")
        // A writer holding the store's write lock, in this process, until the page has come — or
        // for 30 s, which only a page that waits for the lock would make it do: an order, not a
        // stopwatch.
        let writer = try HealthStore(path: temp.path)
        let holding = DispatchSemaphore(value: 0)
        let pageServed = DispatchSemaphore(value: 0)
        let released = DispatchSemaphore(value: 0)
        final class Outcome: @unchecked Sendable { var writerGaveUp = false }   // read after `released`
        let outcome = Outcome()
        Thread.detachNewThread {
            try? writer.write(as: .owner) { transaction in
                _ = try transaction.save(steps(1, "2026-11-30T20:00:00Z", "2026-11-30T20:01:00Z"))
                holding.signal()
                outcome.writerGaveUp = pageServed.wait(timeout: .now() + 30) == .timedOut
            }
            released.signal()
        }
        holding.wait()
        let page = Self.get(server.port, "/day?date=2026-11-30")
        pageServed.signal()
        released.wait()
        #expect(page.hasPrefix("HTTP/1.1 200"))
        #expect(!outcome.writerGaveUp, "the page waited for the writer's lock")
        #expect(server.stop().code == 0)
    }

    @Test func eventsArriveWhileAnotherProcessWrites() throws {
        try fill()
        let server = try Server(health)
        let received = Mutex(String())
        let fd = Self.connectedSocket(server.port, receiveTimeout: 1)
        #expect(fd >= 0)
        defer { close(fd) }
        Self.sendText(fd, "GET /events HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n\r\n")
        func read(until text: String, seconds: Int) -> Bool {
            var buffer = [UInt8](repeating: 0, count: 4096)
            for _ in 0..<seconds {
                let count = recv(fd, &buffer, buffer.count, 0)
                if count > 0 { received.withLock { $0 += String(decoding: buffer[0..<count], as: UTF8.self) } }
                if received.withLock({ $0.contains(text) }) { return true }
            }
            return false
        }
        #expect(read(until: "event: hello", seconds: 5))
        #expect(try health.run("add", "step-count", "25", "--start", "2026-11-30T21:00:00Z", "--end", "2026-11-30T21:01:00Z").code == 0)
        #expect(read(until: "event: change", seconds: 5), "\(received.withLock { $0 })")
        #expect(received.withLock { $0.contains("Content-Type: text/event-stream") })
        #expect(server.stop().code == 0)
    }

    /// Runs `sql` with psql on the test database and returns its unaligned, tuples-only output.
    static func psqlRows(_ url: String, _ sql: String) throws -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["psql", "--no-psqlrc", "-At", "--set=ON_ERROR_STOP=1", "--dbname=" + url, "--command=" + sql]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// On PostgreSQL (Tests/checks/postgres.sh): the pages' live events come from the store's
    /// change feed over LISTEN/NOTIFY on ONE connection per server process, however many pages are
    /// open (a connection per page let viewers exhaust max_connections and lock writers out); a
    /// write by another process reaches every page; and when that connection is killed, pages get
    /// an error that names neither the socket directory nor the database user.
    ///
    /// It stops the whole database server, so it runs only when it has the server to itself:
    /// Tests/checks/postgres.sh runs it alone, after the other suites (BANDKIT_TEST_POSTGRES_OUTAGE).
    @Test(.enabled(if: TemporaryStore.usesPostgreSQL && ProcessInfo.processInfo.environment["BANDKIT_TEST_POSTGRES_OUTAGE"] == "1",
                   "PostgreSQL only, with the server to itself: Tests/checks/postgres.sh"))
    func liveEventsOnPostgreSQLComeFromOneListeningConnection() throws {
        try fill()
        // The server's connections carry a name of their own, to be told apart in pg_stat_activity.
        let name = "serve-test-" + UUID().uuidString.prefix(8).lowercased()
        let server = try Server(HealthCommand(store: temp.path + "&application_name=" + name))
        let url = try #require(TemporaryStore.postgresURL)
        func listeners() throws -> [String] {
            try Self.psqlRows(url, "SELECT pid FROM pg_stat_activity WHERE application_name = '\(name)' AND query LIKE 'LISTEN%'")
        }
        #expect(try listeners().isEmpty, "nothing listens before a page asks for events")
        var streams: [(fd: Int32, received: String)] = []
        defer { streams.forEach { close($0.fd) } }
        for _ in 0..<3 {
            let fd = Self.connectedSocket(server.port, receiveTimeout: 1)
            #expect(fd >= 0)
            Self.sendText(fd, "GET /events HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n\r\n")
            streams.append((fd, ""))
        }
        func read(_ index: Int, until text: String, seconds: Int) -> Bool {
            var buffer = [UInt8](repeating: 0, count: 4096)
            for _ in 0..<seconds {
                let count = recv(streams[index].fd, &buffer, buffer.count, 0)
                if count > 0 { streams[index].received += String(decoding: buffer[0..<count], as: UTF8.self) }
                if streams[index].received.contains(text) { return true }
            }
            return false
        }
        for index in streams.indices { #expect(read(index, until: "event: hello", seconds: 20)) }
        // The first stream sets the server's listener up; give it a bounded while, then keep its pid.
        var first: [String] = []
        for _ in 0..<100 where first.isEmpty {
            first = try listeners()
            if first.isEmpty { Thread.sleep(forTimeInterval: 0.1) }
        }
        #expect(first.count == 1, "one LISTEN connection for three streams: \(first)")
        // Several wait slices later, still the same backend.
        Thread.sleep(forTimeInterval: 3)
        #expect(try listeners() == first, "the server kept its connection across its wait slices")
        #expect(try health.run("add", "step-count", "25", "--start", "2026-11-30T21:00:00Z", "--end", "2026-11-30T21:01:00Z").code == 0)
        for index in streams.indices { #expect(read(index, until: "event: change", seconds: 20), "\(streams[index].received)") }
        #expect(try listeners() == first)
        // The database goes away (Tests/support/postgres-cluster.sh stops the server; the listener's
        // reconnection fails with libpq's message, which names the socket path): every page hears
        // that the feed failed, and nothing else; the server's log gets the details.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
        func cluster(_ command: String) -> Int32 {
            system("bash -c \"source '\(root)/Tests/support/postgres-cluster.sh' && \(command)\"")
        }
        let user = try Self.psqlRows(url, "SELECT current_user").first ?? "postgres"
        let socketDirectory = try Self.psqlRows(url, "SELECT current_setting('unix_socket_directories')").first ?? "/tmp"
        #expect(cluster("postgres_cluster_down") == 0)
        for index in streams.indices {
            #expect(read(index, until: "event: error", seconds: 20), "\(streams[index].received)")
            let error = streams[index].received.components(separatedBy: "event: error").last ?? ""
            #expect(error.contains("change feed is unavailable"), "\(error)")
            #expect(!error.contains(socketDirectory) && !error.contains(user) && !error.contains("socket"), "the error names the deployment: \(error)")
        }
        #expect(cluster("postgres_cluster_launch") == 0)
        let stopped = server.stop()
        #expect(stopped.code == 0)
        #expect(stopped.error.contains("the change feed failed") && stopped.error.contains(socketDirectory),
                "the details go to the server's log: \(stopped.error)")
    }

    @Test func listeningElsewhereWarnsAndBadOptionsAreUsageErrors() throws {
        // Another loopback address: only there, no warning.
        let loopback = try Server(health, ["--listen", "127.0.0.2"])
        #expect(Self.get(loopback.port, "/health").isEmpty)  // not on 127.0.0.1
        let quiet = loopback.stop()
        #expect(quiet.code == 0 && !quiet.error.contains("warning"))
        // Every address: a warning that anyone who can reach it reads the data.
        let everywhere = try Server(health, ["--listen", "0.0.0.0"])
        #expect(Self.get(everywhere.port, "/health").hasPrefix("HTTP/1.1 200"))
        let stopped = everywhere.stop()
        #expect(stopped.code == 0)
        #expect(stopped.error.contains("warning: listening on 0.0.0.0"))
        for (arguments, message) in [(["serve", "--port", "70000"], "--port '70000'"), (["serve", "--listen", "localhost"], "--listen 'localhost'"),
                                     (["serve", "--tz", "Mars/Olympus"], "--tz 'Mars/Olympus'")] {
            let result = try health.run(arguments)
            #expect(result.code == 64)
            #expect(result.error.contains(message), "\(result.error)")
        }
    }
}
