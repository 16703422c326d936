@testable import HealthHTTP
import Testing

/// The acceptor's verdicts on request heads, before libmicrohttpd sees a byte: what it admits,
/// what it refuses with which status, and that a head's verdict does not depend on how its
/// bytes arrived.
@Suite struct RequestGateTests {
    static let gate = RequestGate(allowedHosts: RequestGate.hosts(listeningOn: "127.0.0.1", port: 8080), maximumHeadBytes: 256)

    func verdict(_ head: String, gate: RequestGate = Self.gate) -> RequestGate.Verdict { gate.verdict(Array(head.utf8)) }

    func status(_ verdict: RequestGate.Verdict) -> Int? {
        if case .refuse(let status, _) = verdict { return status }
        return nil
    }

    func message(_ verdict: RequestGate.Verdict) -> String {
        if case .refuse(_, let message) = verdict { return message }
        return ""
    }

    @Test(arguments: ["GET / HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n",
                      "GET /day?date=2026-11-30 HTTP/1.1\r\nhost: LOCALHOST:8080\r\nAccept: */*\r\n\r\n",
                      "HEAD / HTTP/1.1\nHost: [::1]:8080\n\n",             // LF alone ends lines (RFC 9112 §2.2)
                      "GET / HTTP/1.0\r\n\r\n",                           // HTTP/1.0 without Host: the library's call
                      "GET / HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nContent-Length: 0\r\n\r\n",
                      "GET / HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nContent-Length: \t18446744073709551615 \r\n\r\n"])
    func aWellFormedHeadIsAdmitted(head: String) {
        #expect(verdict(head) == .admit)
    }

    @Test func bytesAfterTheHeadAreNotJudged() {
        #expect(verdict("GET / HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\nnot a header\r\n\u{01}") == .admit)
    }

    @Test func anIncompleteHeadWaitsForMore() {
        let head = "GET / HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n"
        let bytes = Array(head.utf8)
        for count in 0..<bytes.count {
            #expect(Self.gate.verdict(bytes.prefix(count)) == .needMore, "after \(count) bytes")
        }
        #expect(Self.gate.verdict(bytes) == .admit)
    }

    @Test func aBadRequestLineIsRefusedAsSoonAsItIsWhole() {
        let bytes = Array("GET /\r\nHost: 127.0.0.1:8080\r\n".utf8)
        #expect(status(Self.gate.verdict(bytes.prefix(4))) == nil)  // "GET " could still be good
        let refused = Self.gate.verdict(bytes.prefix(7))
        #expect(status(refused) == 400)
        #expect(message(refused) == "the request line is not METHOD TARGET HTTP/VERSION")
    }

    @Test(arguments: [" / HTTP/1.1", "GET  HTTP/1.1", "GET / FTP/1.1", "GET /a b HTTP/1.1", "G(T / HTTP/1.1", "GET /\u{7F} HTTP/1.1", "GET / HTTP/1.1 extra"])
    func aRequestLineThatIsNotMethodTargetVersionIs400(line: String) {
        #expect(status(verdict(line + "\r\nHost: 127.0.0.1:8080\r\n\r\n")) == 400)
    }

    @Test func aSecondHostHeaderIs400EvenWhenBothAreAllowed() {
        let refused = verdict("GET / HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nHost: 127.0.0.1:8080\r\n\r\n")
        #expect(status(refused) == 400)
        #expect(message(refused).contains("more than one Host header"))
    }

    @Test(arguments: ["evil.example:8080", "127.0.0.1", "127.0.0.1:8081", "localhost.:8080", "127.0.0.1:8080.evil"])
    func aHostThisServerIsNotIs421(host: String) {
        #expect(status(verdict("GET / HTTP/1.1\r\nHost: \(host)\r\n\r\n")) == 421)
    }

    /// U+212A KELVIN SIGN lower-cases to "k" in Unicode: host names compare in ASCII only.
    @Test func hostNamesCompareWithoutCaseInASCIIOnly() {
        let gate = RequestGate(allowedHosts: ["kiosk:80"], maximumHeadBytes: 256)
        #expect(verdict("GET / HTTP/1.1\r\nHost: KIOSK:80\r\n\r\n", gate: gate) == .admit)
        #expect(status(verdict("GET / HTTP/1.1\r\nHost: \u{212A}iosk:80\r\n\r\n", gate: gate)) == 421)
    }

    @Test func theRefusedHostIsEchoedPrintableAndShort() {
        let host = "evil\u{E9}" + String(repeating: "x", count: 100) + ":8080"
        let refused = message(verdict("GET / HTTP/1.1\r\nHost: \(host)\r\n\r\n"))
        #expect(refused.contains("(Host 'evil?" + String(repeating: "x", count: 59) + "')"), "\(refused)")
        // A control character never reaches the Host check: the head parser refuses it first.
        let escape = verdict("GET / HTTP/1.1\r\nHost: evil\u{1B}[31m:8080\r\n\r\n")
        #expect(status(escape) == 400 && !message(escape).contains("\u{1B}"))
    }

    @Test(arguments: ["-1", "18446744073709551616", "+5", "0x10", "1 2", "", "5,5", "\u{661}"])
    func aContentLengthThatIsNotAByteCountIs400(length: String) {
        let refused = verdict("GET / HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nContent-Length: \(length)\r\n\r\n")
        #expect(status(refused) == 400)
        #expect(message(refused).hasPrefix("Content-Length '"), "\(message(refused))")
    }

    @Test func twoContentLengthsAre400AndABodyByTransferEncodingIs413() {
        #expect(status(verdict("GET / HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nContent-Length: 0\r\nContent-Length: 0\r\n\r\n")) == 400)
        #expect(status(verdict("GET / HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nTransfer-Encoding: chunked\r\n\r\n")) == 413)
    }

    @Test(arguments: [" ", "\t"])
    func aFoldedHeaderLineIs400(fold: String) {
        let refused = verdict("GET / HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nX-Long: a\r\n\(fold)b\r\n\r\n")
        #expect(status(refused) == 400)
        #expect(message(refused).contains("folded header line"))
    }

    @Test func aHeaderLineWithoutAColonIs400() {
        #expect(status(verdict("GET / HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nno colon here\r\n\r\n")) == 400)
    }

    @Test func aHeadLongerThanTheLimitIs431WholeOrNot() {
        let filler = "X-Filler: " + String(repeating: "a", count: 300) + "\r\n"
        let whole = "GET / HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n" + filler + "\r\n"
        #expect(status(verdict(whole)) == 431)
        // Still arriving, but already at the limit without its blank line: it can only be too long.
        let arriving = Array(whole.utf8).prefix(256)
        #expect(status(Self.gate.verdict(arriving)) == 431)
        #expect(Self.gate.verdict(arriving.prefix(255)) == .needMore)
        // A head of exactly the limit is admitted.
        let head = "GET / HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nX: "
        let exact = head + String(repeating: "b", count: 256 - head.utf8.count - 4) + "\r\n\r\n"
        #expect(exact.utf8.count == 256)
        #expect(verdict(exact) == .admit)
        #expect(status(verdict(exact.replacing("X: b", with: "X: bb"))) == 431)
    }

    /// A request line longer than the limit is too long, not a bad request line, however it ends.
    @Test func aRequestLinePastTheLimitIs431() {
        let line = "GET /" + String(repeating: "a", count: 300) + " HTTP/1.1\r\n\r\n"
        #expect(status(verdict(line)) == 431)
    }

    @Test func listeningOnEveryAddressAdmitsAnyIPv4AddressWithThePortButNoOtherName() {
        let gate = RequestGate(allowedHosts: RequestGate.hosts(listeningOn: "0.0.0.0", port: 8080), maximumHeadBytes: 256,
                               anyAddressPort: 8080)
        for host in ["192.168.1.20:8080", "10.0.0.1:8080", "127.0.0.1:8080", "localhost:8080"] {
            #expect(verdict("GET / HTTP/1.1\r\nHost: \(host)\r\n\r\n", gate: gate) == .admit, "\(host)")
        }
        for host in ["192.168.1.20:8081", "256.1.1.1:8080", "1.2.3:8080", "1.2.3.4.5:8080", "evil.example:8080", "1.2.3.04444:8080"] {
            #expect(status(verdict("GET / HTTP/1.1\r\nHost: \(host)\r\n\r\n", gate: gate)) == 421, "\(host)")
        }
    }

    @Test func theHostsOfAServerAreItsLoopbackNamesAndAddressWithThePortAndWithoutItOn80() {
        #expect(RequestGate.hosts(listeningOn: "192.168.1.20", port: 8080)
                == ["127.0.0.1:8080", "localhost:8080", "[::1]:8080", "192.168.1.20:8080"])
        #expect(RequestGate.hosts(listeningOn: "0.0.0.0", port: 80)
                == ["127.0.0.1:80", "localhost:80", "[::1]:80", "127.0.0.1", "localhost", "[::1]"])
    }

    /// The dashboard reads heads with the metrics server's parser: what it refuses, the gate
    /// refuses before libmicrohttpd sees it (each of these was handed to the library before).
    @Test(arguments: [("GET / HTTP/2.0\r\nHost: 127.0.0.1:8080\r\n\r\n", 505),
                      ("GET / HTTP/1.1\r\n\r\n", 400),                                        // HTTP/1.1 without Host
                      ("GET / HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nX: a\u{1B}[2Jb\r\n\r\n", 400),  // a control character in a value
                      ("GET / HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nBad Name: x\r\n\r\n", 400),
                      ("GET /\u{E9} HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n", 400),          // a target that is not ASCII
                      ("AVERYLONGMETHODNAME / HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n", 400)])
    func whatTheHeadParserRefusesNeverReachesTheLibrary(head: String, expected: Int) {
        #expect(status(verdict(head)) == expected)
    }
}
