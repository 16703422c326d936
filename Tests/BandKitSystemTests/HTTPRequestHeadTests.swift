import BandKitSystem
import Testing

@Suite struct HTTPRequestHeadTests {
    func parse(_ text: String, limit: Int = 512) -> HTTPRequestHead.Parse { HTTPRequestHead.parse(Array(text.utf8), maximumBytes: limit) }

    @Test func readsAWholeHead() {
        let text = "GET /metrics?x=1 HTTP/1.1\r\nHost: 127.0.0.1:9469\r\nUser-Agent: Prometheus/2.45\r\nAccept: */*\r\n\r\nBODY"
        guard case .complete(let head) = parse(text) else { Issue.record("\(parse(text))"); return }
        #expect(head.method == "GET" && head.target == "/metrics?x=1" && head.path == "/metrics")
        #expect(head.minorVersion == 1 && head.host == "127.0.0.1:9469")
        #expect(head.length == text.utf8.count - 4)
    }

    @Test func acceptsBareLineFeedsAndHTTP10WithoutHost() {
        guard case .complete(let head) = parse("GET / HTTP/1.0\n\n") else { Issue.record("not complete"); return }
        #expect(head.minorVersion == 0 && head.host == nil && head.length == 16)
    }

    @Test func waitsForTheRestOfAHead() {
        for text in ["", "GET", "GET /metrics HTTP/1.1", "GET /metrics HTTP/1.1\r\nHost: a", "GET /metrics HTTP/1.1\r\nHost: a\r\n"] {
            #expect(parse(text) == .needMore, "\(text)")
        }
    }

    @Test func refusesMalformedHeads() {
        let cases: [(String, Int)] = [
            ("GET /metrics\r\n\r\n", 400),
            ("GET  /metrics HTTP/1.1\r\n\r\n", 400),
            ("G(T /metrics HTTP/1.1\r\n\r\n", 400),
            ("GET /m\u{7F} HTTP/1.1\r\n\r\n", 400),
            ("GET /metrics HTTP/2.0\r\n\r\n", 505),
            ("GET /metrics HTTX/1.1\r\n\r\n", 400),
            ("GET /metrics HTTP/1.1\r\n\r\n", 400),  // no Host
            ("GET /metrics HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400),
            ("GET /metrics HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n", 400),
            ("GET /metrics HTTP/1.1\r\nNoColon\r\n\r\n", 400),
            ("GET /metrics HTTP/1.1\r\nBad Name: x\r\n\r\n", 400),
            ("GET /metrics HTTP/1.1\r\nX: a\u{1B}b\r\n\r\n", 400),
            ("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 505),
        ]
        for (text, status) in cases {
            guard case .invalid(let got, let reason) = parse(text) else { Issue.record("\(text.debugDescription): \(parse(text))"); continue }
            #expect(got == status, "\(text.debugDescription): \(reason)")
            #expect(!reason.unicodeScalars.contains { $0.value < 0x20 })
        }
    }

    @Test func refusesAHeadOverTheLimit() {
        let long = "GET /metrics HTTP/1.1\r\nHost: a\r\nX: " + String(repeating: "y", count: 600) + "\r\n\r\n"
        #expect(parse(long) == .invalid(status: 431, reason: "the request head is longer than 512 bytes"))
        // Exactly at the limit is fine.
        let exact = "GET / HTTP/1.1\r\nHost: a\r\nX: " + String(repeating: "y", count: 512 - 28 - 4) + "\r\n\r\n"
        #expect(exact.utf8.count == 512)
        guard case .complete = parse(exact) else { Issue.record("\(parse(exact))"); return }
    }

    @Test func aPrefixNeverDecidesDifferentlyFromTheWhole() {
        let samples = ["GET /metrics HTTP/1.1\r\nHost: localhost:9469\r\n\r\n", "GET /metrics HTTP/1.1\r\nX\r\n\r\n",
                       "BAD\r\nHost: a\r\n\r\n", "GET / HTTP/1.1\r\nHost: a\r\n" + String(repeating: "z", count: 600)]
        for sample in samples {
            let bytes = Array(sample.utf8)
            let whole = HTTPRequestHead.parse(bytes, maximumBytes: 512)
            for cut in 0...bytes.count {
                let early = HTTPRequestHead.parse(bytes[..<cut], maximumBytes: 512)
                if early != .needMore { #expect(early == whole, "\(sample.debugDescription) cut at \(cut)") }
            }
        }
    }

    @Test func keepsEveryFieldInOrderAndFindsThemWithoutASCIICase() {
        let text = "GET / HTTP/1.1\r\nHost: a\r\nX-One:  1 \r\ncontent-length:\t0\r\nX-ONE: 2\r\n\r\n"
        guard case .complete(let head) = parse(text) else { Issue.record("\(parse(text))"); return }
        #expect(head.fields == [HTTPHeaderField(name: "Host", value: "a"), HTTPHeaderField(name: "X-One", value: "1"),
                                HTTPHeaderField(name: "content-length", value: "0"), HTTPHeaderField(name: "X-ONE", value: "2")])
        #expect(head.values(of: "x-one") == ["1", "2"] && head.values(of: "Content-Length") == ["0"] && head.values(of: "Accept").isEmpty)
    }

    /// U+212A KELVIN SIGN lower-cases to "k" in Unicode; names and hosts compare in ASCII only.
    @Test func lowerCasesASCIIOnly() {
        #expect(HTTPRequestHead.asciiLowercased("LocalHOST:80") == "localhost:80")
        #expect(HTTPRequestHead.asciiLowercased("\u{212A}iosk") == "\u{212A}iosk")
    }
}
