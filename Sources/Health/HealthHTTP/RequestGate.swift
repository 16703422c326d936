import BandKitSystem

/// What the server decides from a request's first bytes, before libmicrohttpd sees them.
///
/// libmicrohttpd 0.9.75 answers some malformed requests badly (a `Content-Length` of `-1` or one
/// beyond 2⁶⁴ gets its status line and headers twice; a second `Host` header is accepted; a request
/// line without a method or target gets no answer at all), and it serves any `Host`, which lets a
/// web page that rebinds its own name to 127.0.0.1 read the dashboard (DNS rebinding). So the
/// acceptor peeks at the request head (without consuming it) and hands the connection to the
/// library only when the head is whole and passes these checks; otherwise it answers itself.
///
/// The head is read by BandKitSystem's `HTTPRequestHead` (request line, version, header names
/// and values, one `Host`, folded lines, size); this gate adds the dashboard's rules: a `Host` it
/// answers to, one well-formed `Content-Length`, no `Transfer-Encoding`.
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
        self.allowedHosts = Set(allowedHosts.map(HTTPRequestHead.asciiLowercased))
        self.maximumHeadBytes = maximumHeadBytes
        self.anyAddressPort = anyAddressPort
    }

    func accepts(host: String) -> Bool {
        if allowedHosts.contains(HTTPRequestHead.asciiLowercased(host)) { return true }
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
    /// The head's own rules come first, line by line as they arrive, so the verdict does not
    /// depend on how the bytes arrived; the dashboard's rules once the head is whole.
    public func verdict(_ head: some Collection<UInt8>) -> Verdict {
        let request: HTTPRequestHead
        switch HTTPRequestHead.parse(head, maximumBytes: maximumHeadBytes) {
        case .needMore: return .needMore
        case .invalid(let status, let reason): return .refuse(status: status, message: reason)
        case .complete(let parsed): request = parsed
        }
        if let host = request.host, !accepts(host: host) {
            return .refuse(status: 421, message: "this server answers only to \(allowedHosts.sorted().joined(separator: ", ")) (Host '\(Self.printable(host))')")
        }
        if !request.values(of: "transfer-encoding").isEmpty { return .refuse(status: 413, message: "a request body is not accepted") }
        let lengths = request.values(of: "content-length")
        if lengths.count > 1 { return .refuse(status: 400, message: "more than one Content-Length header") }
        // A valid length goes on (the handler refuses a body with 405 or 413); what the library
        // would misparse does not.
        if let length = lengths.first, !length.utf8.allSatisfy({ (0x30...0x39).contains($0) }) || UInt64(length) == nil {
            return .refuse(status: 400, message: "Content-Length '\(Self.printable(length))' is not a number of bytes (0 … 2⁶⁴ − 1)")
        }
        return .admit
    }

    /// At most 64 characters, controls and non-ASCII as `?`: a value echoed in an error.
    static func printable(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.prefix(64).map { $0.value >= 0x20 && $0.value < 0x7F ? $0 : "?" }))
    }
}
