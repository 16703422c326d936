/// What the server decides from a request's first bytes, before libmicrohttpd sees them.
///
/// libmicrohttpd 0.9.75 answers some malformed requests badly (a `Content-Length` of `-1` or one
/// beyond 2⁶⁴ gets its status line and headers twice; a second `Host` header is accepted; a request
/// line without a method or target gets no answer at all), and it serves any `Host`, which lets a
/// web page that rebinds its own name to 127.0.0.1 read the dashboard (DNS rebinding). So the
/// acceptor peeks at the request head (without consuming it) and hands the connection to the
/// library only when the head is whole and passes these checks; otherwise it answers itself.
public struct RequestGate: Sendable {
    public enum Verdict: Equatable, Sendable {
        /// The head is not complete yet: wait for more bytes (up to the size and time limits).
        case needMore
        /// Hand the connection to the library.
        case admit
        /// Answer with this status and message and close.
        case refuse(status: Int, message: String)
    }

    /// `Host` values accepted, lower case, each with its port (`127.0.0.1:8080`).
    public let allowedHosts: Set<String>
    /// Longest head accepted (bytes up to and including the blank line).
    public let maximumHeadBytes: Int

    /// Listening on every address (0.0.0.0): any IPv4 address with the port is accepted too (the
    /// machine's own, as a client on the network spells it); a name that is not a loopback name
    /// never is, which is what defeats rebinding.
    public let anyAddressPort: UInt16?

    public init(allowedHosts: Set<String>, maximumHeadBytes: Int, anyAddressPort: UInt16? = nil) {
        self.allowedHosts = Set(allowedHosts.map(Self.asciiLowercased))
        self.maximumHeadBytes = maximumHeadBytes
        self.anyAddressPort = anyAddressPort
    }

    func accepts(host: String) -> Bool {
        if allowedHosts.contains(Self.asciiLowercased(host)) { return true }
        guard let port = anyAddressPort, let colon = host.lastIndex(of: ":"), host[host.index(after: colon)...] == String(port) else { return false }
        let parts = host[..<colon].split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in
            (1...3).contains(part.utf8.count) && part.utf8.allSatisfy { (0x30...0x39).contains($0) } && Int(part)! <= 255
        }
    }

    /// The Host values a server listening on `address` (IPv4) at `port` answers to: the loopback
    /// names and the address itself; without a port when it is 80 (a browser then omits it).
    public static func hosts(listeningOn address: String, port: UInt16) -> Set<String> {
        var names: Set<String> = ["127.0.0.1", "localhost", "[::1]"]
        if address != "0.0.0.0" { names.insert(address) }
        var hosts = Set(names.map { "\($0):\(port)" })
        if port == 80 { hosts.formUnion(names) }
        return hosts
    }

    /// Judges the bytes received so far (`head` may hold more than the head; the rest is ignored).
    public func verdict(_ head: some Collection<UInt8>) -> Verdict {
        let bytes = Array(head.prefix(maximumHeadBytes + 4))
        // In the same order for a part of the head as for all of it, so that the verdict does not
        // depend on how the bytes arrived: the request line once it is whole, the size, the headers.
        // Only a line end inside the limit counts: past it the head is too long whatever the line says.
        if let lineEnd = bytes.prefix(maximumHeadBytes).firstIndex(of: 0x0A), case .refuse(let status, let message) = Self.checkRequestLine(bytes[..<lineEnd]) {
            return .refuse(status: status, message: message)
        }
        let end = Self.endOfHead(bytes)
        if (end ?? bytes.count) > maximumHeadBytes || (end == nil && bytes.count == maximumHeadBytes) {
            return .refuse(status: 431, message: "the request head is longer than \(maximumHeadBytes) bytes")
        }
        guard let end else { return .needMore }
        let lines = Self.lines(bytes[..<end])
        var hosts: [String] = []
        var lengths: [String] = []
        for line in lines.dropFirst() {
            if line.first == 0x20 || line.first == 0x09 { return .refuse(status: 400, message: "a folded header line (obsolete, RFC 9112 §5.2)") }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
                return .refuse(status: 400, message: "a header line without a colon")
            }
            let name = String(decoding: line[line.startIndex..<colon], as: UTF8.self).lowercased()
            let value = String(decoding: line[(colon + 1)...], as: UTF8.self).trimmingSpaceAndTab()
            switch name {
            case "host": hosts.append(value)
            case "content-length": lengths.append(value)
            case "transfer-encoding": return .refuse(status: 413, message: "a request body is not accepted")
            default: break
            }
        }
        if hosts.count > 1 { return .refuse(status: 400, message: "more than one Host header (RFC 9112 §3.2)") }
        if let host = hosts.first, !accepts(host: host) {
            return .refuse(status: 421, message: "this server answers only to \(allowedHosts.sorted().joined(separator: ", ")) (Host '\(Self.printable(host))')")
        }
        if lengths.count > 1 { return .refuse(status: 400, message: "more than one Content-Length header") }
        // A valid length goes on (the handler refuses a body with 405 or 413); what the library
        // would misparse does not.
        if let length = lengths.first, !length.utf8.allSatisfy({ (0x30...0x39).contains($0) }) || UInt64(length) == nil {
            return .refuse(status: 400, message: "Content-Length '\(Self.printable(length))' is not a number of bytes (0 … 2⁶⁴ − 1)")
        }
        return .admit
    }

    /// `METHOD SP TARGET SP HTTP/…`: anything else is a 400 (the library would close silently).
    static func checkRequestLine(_ line: ArraySlice<UInt8>) -> Verdict {
        var line = line
        if line.last == 0x0D { line = line.dropLast() }
        let parts = line.split(separator: 0x20, omittingEmptySubsequences: false)
        let tokenCharacters = Set(Array("!#$%&'*+-.^_`|~".utf8))
        guard parts.count == 3, !parts[0].isEmpty,
              parts[0].allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) || tokenCharacters.contains($0) }),
              !parts[1].isEmpty, parts[1].allSatisfy({ $0 > 0x20 && $0 != 0x7F }),
              parts[2].starts(with: Array("HTTP/".utf8)) else {
            return .refuse(status: 400, message: "the request line is not METHOD TARGET HTTP/VERSION")
        }
        return .admit
    }

    /// Where the head ends (just after its blank line: CRLF CRLF, or LF LF as RFC 9112 allows).
    static func endOfHead(_ bytes: [UInt8]) -> Int? {
        var index = 0
        while index < bytes.count {
            if bytes[index] == 0x0A {
                if index + 1 < bytes.count, bytes[index + 1] == 0x0A { return index + 2 }
                if index + 2 < bytes.count, bytes[index + 1] == 0x0D, bytes[index + 2] == 0x0A { return index + 3 }
            }
            index += 1
        }
        return nil
    }

    /// The head's lines without their line ends, up to the blank line.
    static func lines(_ head: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        var result: [ArraySlice<UInt8>] = []
        for var line in head.split(separator: 0x0A, omittingEmptySubsequences: false) {
            if line.last == 0x0D { line = line.dropLast() }
            if line.isEmpty { break }
            result.append(line)
        }
        return result
    }

    /// Host names compare without case in ASCII only (Unicode case mapping turns U+212A into `k`).
    static func asciiLowercased(_ text: String) -> String {
        String(decoding: text.utf8.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    /// At most 64 characters, controls and non-ASCII as `?`: a value echoed in an error.
    static func printable(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.prefix(64).map { $0.value >= 0x20 && $0.value < 0x7F ? $0 : "?" }))
    }
}

extension String {
    func trimmingSpaceAndTab() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first == " " || first == "\t" { scalars = scalars.dropFirst() }
        while let last = scalars.last, last == " " || last == "\t" { scalars = scalars.dropLast() }
        return String(scalars)
    }
}
