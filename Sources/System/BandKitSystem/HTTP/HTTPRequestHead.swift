/// The head of an HTTP/1.x request (RFC 9112), read from the bytes a client sent so far: the one
/// request-head parser of the project's HTTP servers (the gateway's metrics server and the
/// dashboard's acceptor, which each add their own rules about `Host`, methods and bodies).
///
/// The parse is strict and bounded, and a prefix of the bytes never decides differently from the
/// whole: lines are judged in order once their line end has arrived, so a server can parse
/// again each time bytes arrive and act on the first decision.
public struct HTTPRequestHead: Equatable, Sendable {
    /// The method, a token of at most 16 bytes (`GET`).
    public var method: String
    /// The request target as sent (`/metrics?x=1`), visible ASCII.
    public var target: String
    /// 0 for HTTP/1.0, 1 for HTTP/1.1.
    public var minorVersion: Int
    /// The `Host` header's value, trimmed; nil when absent (allowed in HTTP/1.0 only).
    public var host: String?
    /// The header fields after the request line, in order (`Host` among them).
    public var fields: [HTTPHeaderField]
    /// Bytes of the head, through its blank line.
    public var length: Int

    /// The target's path: the target up to a `?` or `#`.
    public var path: Substring { target.prefix { $0 != "?" && $0 != "#" } }

    /// The trimmed values of every field named `name` (compared without ASCII case), in order.
    public func values(of name: String) -> [String] {
        let wanted = Self.asciiLowercased(name)
        return fields.filter { Self.asciiLowercased($0.name) == wanted }.map(\.value)
    }

    /// What the bytes so far say.
    public enum Parse: Equatable, Sendable {
        /// No decision yet: the head is not whole and not over the limit.
        case needMore
        /// A whole, well-formed head.
        case complete(HTTPRequestHead)
        /// Refused with this status (400, 431, 505) and a reason (ASCII, no control characters).
        case invalid(status: Int, reason: String)
    }

    static let maximumMethodBytes = 16

    /// Parses the head at the start of `bytes` (bytes after it are ignored). A head longer than
    /// `maximumBytes` (through its blank line) is refused with 431; so is a request line whose end
    /// lies past the limit, whatever it says.
    public static func parse(_ bytes: some Collection<UInt8>, maximumBytes: Int) -> Parse {
        let input = Array(bytes.prefix(maximumBytes))
        var lineStart = 0
        var head: HTTPRequestHead?
        while let newline = input[lineStart...].firstIndex(of: 0x0A) {
            var line = input[lineStart..<newline]
            if line.last == 0x0D { line = line.dropLast() }
            lineStart = newline + 1
            guard var request = head else {
                switch requestLine(line) {
                case .success(let parsed): head = parsed
                case .failure(let refusal): return refusal.parse
                }
                continue
            }
            if line.isEmpty {
                guard request.minorVersion == 0 || request.host != nil else {
                    return .invalid(status: 400, reason: "an HTTP/1.1 request without a Host header")
                }
                request.length = lineStart
                return .complete(request)
            }
            switch headerLine(line) {
            case .failure(let refusal): return refusal.parse
            case .success(let field):
                if asciiLowercased(field.name) == "host" {
                    guard request.host == nil else { return .invalid(status: 400, reason: "more than one Host header (RFC 9112 §3.2)") }
                    request.host = field.value
                }
                request.fields.append(field)
                head = request
            }
        }
        if bytes.count >= maximumBytes || input.count >= maximumBytes {
            return .invalid(status: 431, reason: "the request head is longer than \(maximumBytes) bytes")
        }
        return .needMore
    }

    /// `text` with ASCII letters in lower case and nothing else changed: how host and field names
    /// compare (Unicode case mapping would turn U+212A KELVIN SIGN into `k`).
    public static func asciiLowercased(_ text: String) -> String {
        String(decoding: text.utf8.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    struct Refusal: Error {
        let status: Int
        let reason: String
        var parse: Parse { .invalid(status: status, reason: reason) }
    }

    private static func requestLine(_ line: ArraySlice<UInt8>) -> Result<HTTPRequestHead, Refusal> {
        let parts = line.split(separator: 0x20, omittingEmptySubsequences: false)
        guard parts.count == 3 else { return .failure(Refusal(status: 400, reason: "the request line is not METHOD TARGET HTTP/VERSION")) }
        let (method, target, version) = (parts[0], parts[1], parts[2])
        guard !method.isEmpty, method.count <= maximumMethodBytes, method.allSatisfy(isTokenByte) else {
            return .failure(Refusal(status: 400, reason: "the method is not a token of at most \(maximumMethodBytes) bytes"))
        }
        guard !target.isEmpty, target.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            return .failure(Refusal(status: 400, reason: "the request target is empty or not visible ASCII"))
        }
        let minor: Int
        switch Array(version) {
        case Array("HTTP/1.1".utf8): minor = 1
        case Array("HTTP/1.0".utf8): minor = 0
        default:
            let isVersion = version.count == 8 && version.starts(with: "HTTP/".utf8) && isDigit(version[version.startIndex + 5])
                && version[version.startIndex + 6] == UInt8(ascii: ".") && isDigit(version[version.startIndex + 7])
            return .failure(isVersion ? Refusal(status: 505, reason: "only HTTP/1.0 and HTTP/1.1 are served")
                                      : Refusal(status: 400, reason: "the request line does not end in HTTP/1.x"))
        }
        return .success(HTTPRequestHead(method: String(decoding: method, as: UTF8.self), target: String(decoding: target, as: UTF8.self),
                                        minorVersion: minor, host: nil, fields: [], length: 0))
    }

    private static func headerLine(_ line: ArraySlice<UInt8>) -> Result<HTTPHeaderField, Refusal> {
        if line.first == 0x20 || line.first == 0x09 { return .failure(Refusal(status: 400, reason: "a folded header line (obsolete, RFC 9112 §5.2)")) }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return .failure(Refusal(status: 400, reason: "a header line without a colon")) }
        let name = line[..<colon]
        guard !name.isEmpty, name.allSatisfy(isTokenByte) else { return .failure(Refusal(status: 400, reason: "a header name that is not a token")) }
        let value = line[(colon + 1)...]
        // Field values: visible ASCII, space, tab and bytes ≥ 0x80 (obs-text); no other control.
        guard value.allSatisfy({ $0 == 0x09 || $0 >= 0x20 && $0 != 0x7F }) else {
            return .failure(Refusal(status: 400, reason: "a control character in a header value"))
        }
        let trimmed = value.drop { $0 == 0x20 || $0 == 0x09 }.reversed().drop { $0 == 0x20 || $0 == 0x09 }.reversed()
        return .success(HTTPHeaderField(name: String(decoding: name, as: UTF8.self), value: String(decoding: trimmed, as: UTF8.self)))
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }

    /// RFC 9110 §5.6.2 tchar.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }
}

/// One header field of an ``HTTPRequestHead``: its name as sent, its value without the spaces and
/// tabs around it.
public struct HTTPHeaderField: Equatable, Sendable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}
