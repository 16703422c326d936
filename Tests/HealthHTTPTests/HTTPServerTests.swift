#if canImport(Glibc)
import Glibc
#endif
import HealthHTTP
import Testing

/// The server end to end on a loopback port, in process: what the acceptor answers itself (the
/// gate's refusals, the connection limit) and what the library's handler adds (methods, Host,
/// arguments). No timing: every answer is read until the server closes.
@Suite struct HTTPServerTests {
    static func start(_ limits: HTTPServer.Limits = HTTPServer.Limits()) throws -> HTTPServer {
        try HTTPServer(host: "127.0.0.1", port: 0, limits: limits) { request in
            let arguments = request.arguments.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "&")
            return HTTPResponse(status: 200, contentType: "text/plain", text: "\(request.method) \(request.path) \(arguments)\n")
        }
    }

    /// A connected client socket (blocking, reads give up after 10 s rather than hang a test).
    static func connect(_ port: UInt16) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(descriptor >= 0)
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if connected != 0 { close(descriptor) }
        try #require(connected == 0)
        return descriptor
    }

    /// Sends `request` and returns everything the server answers until it closes.
    static func exchange(_ descriptor: Int32, _ request: String) -> String {
        let bytes = Array(request.utf8)
        _ = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let got = recv(descriptor, &buffer, buffer.count, 0)
            if got <= 0 { break }
            answer += buffer[..<got]
        }
        return String(decoding: answer, as: UTF8.self)
    }

    static func ask(_ server: HTTPServer, _ request: String) throws -> String {
        let descriptor = try connect(server.port)
        defer { close(descriptor) }
        return exchange(descriptor, request)
    }

    func host(_ server: HTTPServer) -> String { "127.0.0.1:\(server.port)" }

    @Test func aGoodRequestReachesTheHandlerWithItsArguments() throws {
        let server = try Self.start()
        defer { server.stop() }
        let answer = try Self.ask(server, "GET /day?date=2026-11-30&person=ana HTTP/1.1\r\nHost: \(host(server))\r\n\r\n")
        #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer)")
        #expect(answer.hasSuffix("\r\n\r\nGET /day date=2026-11-30&person=ana\n"), "\(answer)")
    }

    @Test func whatTheGateRefusesIsAnsweredBeforeTheLibrarySeesIt() throws {
        let server = try Self.start()
        defer { server.stop() }
        let cases: [(String, String)] = [
            ("GET / HTTP/1.1\r\nHost: evil.example:\(server.port)\r\n\r\n", "HTTP/1.1 421 "),
            ("GET / HTTP/1.1\r\nHost: \(host(server))\r\nHost: \(host(server))\r\n\r\n", "HTTP/1.1 400 "),
            ("GET / HTTP/1.1\r\nHost: \(host(server))\r\nContent-Length: -1\r\n\r\n", "HTTP/1.1 400 "),
            ("GET / HTTP/1.1\r\nHost: \(host(server))\r\nX: a\r\n b\r\n\r\n", "HTTP/1.1 400 "),
            ("GET / HTTP/1.1\r\nHost: \(host(server))\r\nTransfer-Encoding: chunked\r\n\r\n", "HTTP/1.1 413 "),
            ("GET\r\n\r\n", "HTTP/1.1 400 "),
        ]
        for (request, statusLine) in cases {
            let answer = try Self.ask(server, request)
            #expect(answer.hasPrefix(statusLine), "\(request.debugDescription) → \(answer)")
            // One status line, one head: what libmicrohttpd got wrong for a Content-Length of -1.
            #expect(answer.split(separator: "HTTP/1.1 ", omittingEmptySubsequences: false).count == 2, "\(answer)")
            #expect(answer.contains("Connection: close\r\n"), "\(answer)")
        }
    }

    @Test func aHeadBeyondTheMemoryPerConnectionIs431() throws {
        var limits = HTTPServer.Limits()
        limits.memoryPerConnection = 1024
        let server = try Self.start(limits)
        defer { server.stop() }
        let long = "GET / HTTP/1.1\r\nHost: \(host(server))\r\nX-Filler: \(String(repeating: "a", count: 2_000))\r\n\r\n"
        #expect(try Self.ask(server, long).hasPrefix("HTTP/1.1 431 "))
        #expect(try Self.ask(server, "GET / HTTP/1.1\r\nHost: \(host(server))\r\n\r\n").hasPrefix("HTTP/1.1 200 "))
    }

    @Test func theHandlerSideRefusesOtherMethodsAndAnHTTP11RequestWithoutHost() throws {
        let server = try Self.start()
        defer { server.stop() }
        let post = try Self.ask(server, "POST / HTTP/1.1\r\nHost: \(host(server))\r\n\r\n")
        #expect(post.hasPrefix("HTTP/1.1 405 ") && post.contains("Allow: GET, HEAD\r\n"), "\(post)")
        #expect(try Self.ask(server, "GET / HTTP/1.1\r\n\r\n").hasPrefix("HTTP/1.1 400 "))
        let head = try Self.ask(server, "HEAD / HTTP/1.1\r\nHost: \(host(server))\r\n\r\n")
        #expect(head.hasPrefix("HTTP/1.1 200 ") && head.hasSuffix("\r\n\r\n"), "\(head)")
    }

    @Test func moreThanTheArgumentLimitIs400() throws {
        var limits = HTTPServer.Limits()
        limits.maximumArguments = 3
        let server = try Self.start(limits)
        defer { server.stop() }
        #expect(try Self.ask(server, "GET /?a=1&b=2&c=3 HTTP/1.1\r\nHost: \(host(server))\r\n\r\n").hasPrefix("HTTP/1.1 200 "))
        #expect(try Self.ask(server, "GET /?a=1&b=2&c=3&d=4 HTTP/1.1\r\nHost: \(host(server))\r\n\r\n").hasPrefix("HTTP/1.1 400 "))
    }

    /// A connection still waiting for its head counts: with a limit of one, the next gets 503
    /// and Retry-After at once, and the waiting one is served when its head arrives.
    @Test func pastTheConnectionLimitAnAnswerIs503WithRetryAfter() throws {
        var limits = HTTPServer.Limits()
        limits.connections = 1
        limits.retryAfterSeconds = 7
        let server = try Self.start(limits)
        defer { server.stop() }
        let first = try Self.connect(server.port)
        defer { close(first) }
        // The acceptor takes connections in the order they were made: the first one holds the only place.
        let refused = try Self.ask(server, "GET / HTTP/1.1\r\nHost: \(host(server))\r\n\r\n")
        #expect(refused.hasPrefix("HTTP/1.1 503 "), "\(refused)")
        #expect(refused.contains("Retry-After: 7\r\n"), "\(refused)")
        let served = Self.exchange(first, "GET /first HTTP/1.1\r\nHost: \(host(server))\r\n\r\n")
        #expect(served.hasPrefix("HTTP/1.1 200 ") && served.hasSuffix("GET /first \n"), "\(served)")
    }

    @Test func aBadAddressIsRefusedByName() {
        #expect(throws: HTTPServerError.self) { try HTTPServer(host: "localhost", port: 0) { _ in .error(500, "") } }
        do {
            _ = try HTTPServer(host: "300.1.1.1", port: 0) { _ in .error(500, "") }
            Issue.record("no error")
        } catch {
            #expect(error.description == "'300.1.1.1' is not an IPv4 address")
        }
    }
}
