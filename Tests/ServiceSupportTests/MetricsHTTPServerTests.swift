#if canImport(Glibc)
import Glibc
#endif
import Foundation
import ServiceSupport
import Testing

/// The metrics endpoint on a real loopback port, asked by a real socket client.
@Suite struct MetricsHTTPServerTests {
    static func start(_ limits: StreamServerLimits = StreamServerLimits(maximumRequestBytes: 1024)) throws -> MetricsHTTPServer {
        let registry = MetricsRegistry()
        let scrapes = registry.series(registry.counter("scrapes_total", help: "Scrapes."), [])
        return try MetricsHTTPServer(listeningOn: MetricsListenAddress(parsing: "127.0.0.1:0"), limits: limits) {
            registry.add(scrapes)
            return registry.exposition()
        }
    }

    static func ask(_ server: MetricsHTTPServer, _ request: String) throws -> String {
        let port = server.address.port
        let answer = try drive([server]) { exchange(connectTCP(port: port), Array(request.utf8)) }
        return String(decoding: answer ?? [], as: UTF8.self)
    }

    @Test func servesMetrics() throws {
        let server = try Self.start()
        #expect(server.address.port != 0)
        let host = "127.0.0.1:\(server.address.port)"
        let answer = try Self.ask(server, "GET /metrics HTTP/1.1\r\nHost: \(host)\r\nAccept: text/plain\r\n\r\n")
        let body = "# HELP scrapes_total Scrapes.\n# TYPE scrapes_total counter\nscrapes_total 1\n"
        #expect(answer == "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body)
        // Again, with a query and as localhost: the closure runs per scrape.
        let second = try Self.ask(server, "GET /metrics?name[]=x HTTP/1.1\r\nHost: localhost:\(server.address.port)\r\n\r\n")
        #expect(second.hasSuffix("scrapes_total 2\n"))
        let head = try Self.ask(server, "HEAD /metrics HTTP/1.0\r\n\r\n")
        #expect(head.hasPrefix("HTTP/1.1 200 OK\r\n") && head.hasSuffix("Connection: close\r\n\r\n"))
        #expect(server.counters.answered == 3)
    }

    /// curl, an independent client (Debian package curl, scripts/packages.sh), reads the answer
    /// framing as a scraper does: status, Content-Type, Content-Length, Connection: close.
    @Test func curlScrapesIt() throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/curl"), "curl is a test package (scripts/packages.sh)")
        let server = try Self.start()
        let url = "http://127.0.0.1:\(server.address.port)/metrics"
        let run = { @Sendable (arguments: [String]) -> (status: Int32, output: String) in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
            process.arguments = ["--silent", "--show-error", "--http1.1", "--max-time", "10"] + arguments
            let pipe = Pipe()
            process.standardOutput = pipe
            do { try process.run() } catch { return (-1, "\(error)") }
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: data, as: UTF8.self))
        }
        let scrape = try drive([server]) { run(["--fail", "--include", url]) }
        #expect(scrape.status == 0)
        #expect(scrape.output.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(scrape.output.contains("Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"))
        #expect(scrape.output.hasSuffix("\r\n\r\n# HELP scrapes_total Scrapes.\n# TYPE scrapes_total counter\nscrapes_total 1\n"))
        let missing = try drive([server]) { run(["--output", "/dev/null", "--write-out", "%{http_code}", url + "x"]) }
        #expect(missing.status == 0 && missing.output == "404")
        let posted = try drive([server]) { run(["--output", "/dev/null", "--write-out", "%{http_code}", "--data", "x=1", url]) }
        #expect(posted.status == 0 && posted.output == "405")
    }

    @Test func answersEverythingElseWithTheRightStatus() throws {
        let server = try Self.start()
        let host = "Host: 127.0.0.1:\(server.address.port)\r\n"
        let cases: [(String, String)] = [
            ("GET / HTTP/1.1\r\n\(host)\r\n", "HTTP/1.1 404 Not Found\r\n"),
            ("GET /metricsx HTTP/1.1\r\n\(host)\r\n", "HTTP/1.1 404 Not Found\r\n"),
            ("POST /metrics HTTP/1.1\r\n\(host)Content-Length: 3\r\n\r\nabc", "HTTP/1.1 405 Method Not Allowed\r\n"),
            ("garbage\r\n\r\n", "HTTP/1.1 400 Bad Request\r\n"),
            ("GET /metrics HTTP/1.1\r\n\r\n", "HTTP/1.1 400 Bad Request\r\n"),
            ("GET /metrics HTTP/1.1\r\n\(host)X: " + String(repeating: "a", count: 2000) + "\r\n\r\n", "HTTP/1.1 431 Request Header Fields Too Large\r\n"),
            ("GET /metrics HTTP/3.0\r\n\(host)\r\n", "HTTP/1.1 505 HTTP Version Not Supported\r\n"),
            ("GET /metrics HTTP/1.1\r\nHost: attacker.example:\(server.address.port)\r\n\r\n", "HTTP/1.1 421 Misdirected Request\r\n"),
        ]
        for (request, status) in cases {
            let answer = try Self.ask(server, request)
            #expect(answer.hasPrefix(status), "\(request.prefix(40).debugDescription): \(answer.prefix(60).debugDescription)")
            #expect(answer.contains("Connection: close\r\n"))
        }
        #expect(try Self.ask(server, "PUT /metrics HTTP/1.1\r\n\(host)\r\n").contains("Allow: GET, HEAD\r\n"))
        // The server carries on.
        #expect(try Self.ask(server, "GET /metrics HTTP/1.1\r\n\(host)\r\n").hasPrefix("HTTP/1.1 200 OK\r\n"))
    }

    @Test func aClientThatSendsNothingIsDroppedAtItsDeadline() throws {
        let server = try Self.start(StreamServerLimits(maximumRequestBytes: 1024, clientDeadline: .milliseconds(200)))
        let port = server.address.port
        // Half a request, then silence: the server closes without an answer.
        let answer = try drive([server]) { exchange(connectTCP(port: port), Array("GET /metrics HTTP/1.1\r\n".utf8)) }
        #expect(answer == [])
        #expect(server.counters.timedOut == 1)
    }

    @Test func aTakenPortIsAnErrorNamingIt() throws {
        let first = try Self.start()
        let address = try MetricsListenAddress(parsing: "127.0.0.1:\(first.address.port)")
        #expect(throws: MetricsServerError.addressInUse(address)) { try MetricsHTTPServer(listeningOn: address) { [] } }
        #expect(MetricsServerError.addressInUse(address).description
                == "the metrics address 127.0.0.1:\(first.address.port) is in use: another process listens on port \(first.address.port)")
    }

    @Test func parsesListenAddresses() throws {
        #expect(try MetricsListenAddress(parsing: "127.0.0.1:9469").description == "127.0.0.1:9469")
        #expect(try MetricsListenAddress(parsing: "localhost:9469").description == "127.0.0.1:9469")
        #expect(try MetricsListenAddress(parsing: "[::1]:9469").description == "[::1]:9469")
        #expect(try MetricsListenAddress(parsing: "[::1]:9469").isLoopback)
        #expect(try !MetricsListenAddress(parsing: "0.0.0.0:9469").isLoopback)
        for bad in ["9469", "127.0.0.1", "127.0.0.1:", "127.0.0.1:65536", "127.0.0.1:-1", "example.com:9469", "::1:9469", "[::1:9469", "1.2.3:80", ":80"] {
            #expect(throws: MetricsServerError.invalidAddress(bad)) { try MetricsListenAddress(parsing: bad) }
        }
    }
}
