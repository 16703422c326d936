import HealthTestSupport
import Foundation
import HealthModel
import HealthStore
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `health serve` against hostile clients: a page on another name (DNS rebinding), malformed
/// heads libmicrohttpd answers badly, a full server, slow heads, event streams that leave, and
/// the newcomer's first page that says which grants are missing.
@Suite(.serialized) struct ServeLimitsTests {
    typealias Server = ServeCommandTests.Server
    let temp: TemporaryStore
    let health: HealthCommand

    init() throws {
        temp = try TemporaryStore()
        health = HealthCommand(store: temp.path)
    }

    static func request(_ port: UInt16, _ path: String, host: String) -> String {
        ServeCommandTests.exchange(port, "GET \(path) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n")
    }

    /// How many times `text` occurs in `response`.
    static func count(_ text: String, in response: String) -> Int { response.components(separatedBy: text).count - 1 }

    @Test func aRequestForAnotherNameIsRefusedSoAPageCannotRebindToTheDashboard() throws {
        #expect(try health.run("add", "step-count", "25", "--start", "2026-11-30T09:00:00Z", "--end", "2026-11-30T09:01:00Z").code == 0)
        #expect(try health.run("grant", "bandkit.dashboard", "step-count", "--read").code == 0)
        let server = try Server(health)
        let port = server.port
        for host in ["evil.example.com:\(port)", "evil.example.com", "127.0.0.1.nip.io:\(port)", "localhost:\(port + 1)",
                     "127.0.0.1", "localhost.:\(port)", "[::1]:\(port + 1)", ""] {
            let response = Self.request(port, "/day?date=2026-11-30", host: host)
            #expect(response.hasPrefix("HTTP/1.1 421 Misdirected Request"), "Host '\(host)': \(response.prefix(200))")
            #expect(!response.contains("data-value"), "no figure leaves for Host '\(host)'")
        }
        for host in ["127.0.0.1:\(port)", "localhost:\(port)", "LocalHost:\(port)", "[::1]:\(port)"] {
            let response = Self.request(port, "/day?date=2026-11-30", host: host)
            #expect(response.hasPrefix("HTTP/1.1 200") && response.contains(#"id="steps" data-value="25""#), "Host '\(host)': \(response.prefix(200))")
        }
        // The events stream and the chart are guarded alike.
        #expect(Self.request(port, "/events", host: "evil.example.com:\(port)").hasPrefix("HTTP/1.1 421"))
        #expect(Self.request(port, "/chart.svg?view=day&date=2026-11-30", host: "evil.example.com:\(port)").hasPrefix("HTTP/1.1 421"))
        #expect(server.stop().code == 0)
    }

    @Test func anotherListenAddressIsAcceptedAsHostAndEveryAddressAcceptsAddressesNotNames() throws {
        let loopback = try Server(health, ["--listen", "127.0.0.2"])
        func onSecond(_ host: String) -> String {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(fd) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = loopback.port.bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.2")
            guard withUnsafePointer(to: &address, { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }) == 0 else { return "" }
            var timeout = timeval(tv_sec: 5, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            ServeCommandTests.sendText(fd, "GET /health HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n")
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = recv(fd, &buffer, buffer.count, 0)
            return count > 0 ? String(decoding: buffer[0..<count], as: UTF8.self) : ""
        }
        #expect(onSecond("127.0.0.2:\(loopback.port)").hasPrefix("HTTP/1.1 200"))
        #expect(onSecond("evil.example.com:\(loopback.port)").hasPrefix("HTTP/1.1 421"))
        #expect(loopback.stop().code == 0)
        let everywhere = try Server(health, ["--listen", "0.0.0.0"])
        #expect(Self.request(everywhere.port, "/health", host: "192.168.1.20:\(everywhere.port)").hasPrefix("HTTP/1.1 200"))
        #expect(Self.request(everywhere.port, "/health", host: "evil.example.com:\(everywhere.port)").hasPrefix("HTTP/1.1 421"))
        #expect(Self.request(everywhere.port, "/health", host: "192.168.1.20:1").hasPrefix("HTTP/1.1 421"))
        #expect(everywhere.stop().code == 0)
    }

    /// libmicrohttpd 0.9.75 sent its status line and headers twice for these lengths and took a
    /// second Host header; the server answers each once, with 400, before the library sees it.
    @Test func malformedLengthsAndASecondHostGetOne400() throws {
        let server = try Server(health)
        let host = "Host: 127.0.0.1:\(server.port)\r\n"
        let heads = [
            "GET /health HTTP/1.1\r\n\(host)Content-Length: -1\r\nConnection: close\r\n\r\n",
            "GET /health HTTP/1.1\r\n\(host)Content-Length: 99999999999999999999999\r\nConnection: close\r\n\r\n",
            "GET /health HTTP/1.1\r\n\(host)Content-Length: 18446744073709551616\r\nConnection: close\r\n\r\n",
            "GET /health HTTP/1.1\r\n\(host)Content-Length: 1e3\r\nConnection: close\r\n\r\n",
            "GET /health HTTP/1.1\r\n\(host)Content-Length: 0\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            "GET /health HTTP/1.1\r\n\(host)\(host)Connection: close\r\n\r\n",
            "GET /health HTTP/1.1\r\n\(host)Host: evil.example.com\r\nConnection: close\r\n\r\n",
            "GET /health HTTP/1.1\r\n\(host) folded: line\r\nConnection: close\r\n\r\n",
        ]
        for head in heads {
            let seen = ServeCommandTests.answer(server.port, head)
            #expect(seen.bytes.hasPrefix("HTTP/1.1 400 Bad Request\r\n"), "\(head.debugDescription): \(seen.bytes.prefix(200))")
            #expect(Self.count("HTTP/1.1", in: seen.bytes) == 1 && Self.count("Content-Type:", in: seen.bytes) == 1,
                    "one status line and one set of headers for \(head.debugDescription): \(seen.bytes)")
            #expect(seen.closed)
        }
        #expect(ServeCommandTests.get(server.port, "/health").hasPrefix("HTTP/1.1 200"))
        #expect(server.stop().code == 0)
    }

    /// A socket that never finishes its head is answered 408 and closed (it held its slot for ever).
    @Test func aHeadThatDoesNotComeIsAnswered408() throws {
        let server = try Server(health)
        let slow = ServeCommandTests.connectedSocket(server.port, receiveTimeout: 30)
        defer { close(slow) }
        ServeCommandTests.sendText(slow, "GET /day HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nX-Slow: a")
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(slow, &buffer, buffer.count, 0)
        let text = count > 0 ? String(decoding: buffer[0..<count], as: UTF8.self) : ""
        #expect(text.hasPrefix("HTTP/1.1 408 Request Timeout"), "\(text)")
        #expect(server.stop().code == 0)
    }

    /// 64 connections open: the next is answered 503 with Retry-After (it used to get nothing at all),
    /// and the server serves again as soon as they close.
    @Test func aFullServerAnswers503WithRetryAfter() throws {
        let server = try Server(health)
        var held: [Int32] = []
        defer { held.forEach { close($0) } }
        for _ in 0..<64 { held.append(ServeCommandTests.connectedSocket(server.port, receiveTimeout: 5)) }
        #expect(held.allSatisfy { $0 >= 0 })
        // Give the acceptor the 64 before the 65th (accept order follows connect order on one listener).
        let full = Self.get(server.port, "/health", awaiting: "HTTP/1.1 503")
        #expect(full.hasPrefix("HTTP/1.1 503 Service Unavailable"), "\(full)")
        #expect(full.contains("Retry-After: 5\r\n"))
        held.forEach { close($0) }
        held = []
        let again = Self.get(server.port, "/health", awaiting: "HTTP/1.1 200")
        #expect(again.hasPrefix("HTTP/1.1 200"), "\(again)")
        #expect(server.stop().code == 0)
    }

    /// GETs `path` until the answer starts with `status` (at most 50 tries 0.1 s apart); the last answer.
    static func get(_ port: UInt16, _ path: String, awaiting status: String) -> String {
        var answer = ""
        for _ in 0..<50 {
            answer = ServeCommandTests.get(port, path)
            if answer.hasPrefix(status) { break }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return answer
    }

    /// Opens an event stream and reads up to its hello; the socket, or -1 with what came instead.
    static func openStream(_ port: UInt16) -> (fd: Int32, received: String) {
        let fd = ServeCommandTests.connectedSocket(port, receiveTimeout: 5)
        guard fd >= 0 else { return (-1, "") }
        ServeCommandTests.sendText(fd, "GET /events HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
        var received = ""
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !received.contains("event: hello") {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { close(fd); return (-1, received) }
            received += String(decoding: buffer[0..<count], as: UTF8.self)
        }
        return (fd, received)
    }

    /// The server's open descriptors that are inotify instances.
    static func inotifyInstances(_ pid: Int32) -> Int {
        let directory = "/proc/\(pid)/fd"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { (try? FileManager.default.destinationOfSymbolicLink(atPath: directory + "/" + $0)) == "anon_inode:inotify" }.count
    }

    /// 32 pages' event streams share one change watcher; a 33rd stream gets 503 (pages keep their
    /// room); streams whose pages close give their slots back at once (they sat ~30 s in
    /// CLOSE-WAIT), so 32 new pages get theirs; and a change reaches every one of them.
    @Test func eventStreamsShareOneWatcherAndLeaveAtOnce() throws {
        let server = try Server(health)
        let pid = server.started.0.processIdentifier
        var streams: [Int32] = []
        defer { streams.forEach { close($0) } }
        for index in 0..<32 {
            let opened = Self.openStream(server.port)
            #expect(opened.fd >= 0, "stream \(index): \(opened.received)")
            if opened.fd >= 0 { streams.append(opened.fd) }
        }
        #expect(Self.inotifyInstances(pid) == 1, "one watcher for all streams")
        let extra = Self.request(server.port, "/events", host: "127.0.0.1:\(server.port)")
        #expect(extra.hasPrefix("HTTP/1.1 503") && extra.contains("Retry-After: 5"), "\(extra.prefix(200))")
        #expect(ServeCommandTests.get(server.port, "/health").hasPrefix("HTTP/1.1 200"), "pages are still served")
        streams.forEach { close($0) }
        streams = []
        // The slots are back as soon as the server has seen the closes: within seconds, not at the next keep-alive.
        var reopened: [Int32] = []
        for _ in 0..<40 where reopened.count < 32 {
            let opened = Self.openStream(server.port)
            if opened.fd >= 0 { reopened.append(opened.fd) } else { Thread.sleep(forTimeInterval: 0.1) }
        }
        streams = reopened
        #expect(streams.count == 32, "32 new streams after 32 closed ones")
        #expect(try health.run("add", "step-count", "5", "--start", "2026-11-30T09:00:00Z", "--end", "2026-11-30T09:01:00Z").code == 0)
        var changed = 0
        var buffer = [UInt8](repeating: 0, count: 4096)
        for fd in streams {
            var text = ""
            while !text.contains("event: change") {
                let count = recv(fd, &buffer, buffer.count, 0)
                if count <= 0 { break }
                text += String(decoding: buffer[0..<count], as: UTF8.self)
            }
            if text.contains("event: change") { changed += 1 }
        }
        #expect(changed == 32, "every stream got the change")
        #expect(Self.inotifyInstances(pid) == 1)
        #expect(server.stop().code == 0)
    }

    /// The first run: every row "not allowed", and the page and the start line say which grants to run.
    @Test func theFirstPageAndTheStartLineSayWhichGrantsToRun() throws {
        let first = try Server(health, startedWhen: "workout --read")
        let output = first.startText
        #expect(first.stop().code == 0)
        #expect(output.contains("health grant bandkit.dashboard step-count --read"), "\(output)")
        #expect(output.contains("health grant bandkit.dashboard sleep-analysis --read"))
        let server = try Server(health)
        let page = ServeCommandTests.get(server.port, "/day?date=2026-11-30")
        #expect(page.contains(#"<section id="grant-hint">"#))
        #expect(page.contains("health grant bandkit.dashboard step-count --read\nhealth grant bandkit.dashboard distance-walking-running --read"))
        #expect(server.stop().code == 0)
        for type in ["step-count", "distance-walking-running", "active-energy-burned", "heart-rate", "sleep-analysis", "workout"] {
            #expect(try health.run("grant", "bandkit.dashboard", type, "--read").code == 0)
        }
        let granted = try Server(health)
        let complete = ServeCommandTests.get(granted.port, "/day?date=2026-11-30")
        #expect(complete.hasPrefix("HTTP/1.1 200") && !complete.contains("grant-hint") && !complete.contains("not allowed"))
        let stopped = granted.stop()
        #expect(stopped.code == 0 && !stopped.output.contains("health grant"), "\(stopped.output)")
    }

    /// A person's dashboard suggests grants for that person.
    @Test func aPersonsDashboardSuggestsThatPersonsGrants() throws {
        #expect(try health.run("people", "add", "ana maria").code == 0)
        let server = try Server(health, ["--person", "ana maria"])
        let page = ServeCommandTests.get(server.port, "/day?date=2026-11-30")
        #expect(page.contains("health grant bandkit.dashboard heart-rate --read --person &#39;ana maria&#39;")
                || page.contains("health grant bandkit.dashboard heart-rate --read --person &apos;ana maria&apos;")
                || page.contains("health grant bandkit.dashboard heart-rate --read --person 'ana maria'"), "\(page)")
        #expect(server.stop().code == 0)
    }
}
