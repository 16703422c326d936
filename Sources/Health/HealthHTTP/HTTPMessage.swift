/// A request as the handler sees it: only what a read-only GET server needs.
public struct HTTPRequest: Sendable {
    public var method: String
    /// The path without the query, as the client sent it (percent-decoded by libmicrohttpd).
    public var path: String
    /// Query arguments (at most ``HTTPServer/Limits/maximumArguments``; a repeated name keeps the first).
    public var arguments: [String: String]

    public init(method: String, path: String, arguments: [String: String] = [:]) {
        self.method = method
        self.path = path
        self.arguments = arguments
    }
}

/// A body that is produced while it is sent (server-sent events). `next` may block (each
/// connection has its own thread) and returns nil to end the response; it should wait with
/// ``HTTPClient/wait(for:milliseconds:)`` so that a client that hangs up ends it at once.
public protocol HTTPStream: AnyObject, Sendable {
    func next(_ client: HTTPClient) -> [UInt8]?
}

public struct HTTPResponse: Sendable {
    public enum Body: Sendable {
        case bytes([UInt8])
        case stream(any HTTPStream)
    }

    public var status: Int
    public var headers: [(String, String)]
    public var body: Body

    public init(status: Int, contentType: String, body: [UInt8], headers: [(String, String)] = []) {
        self.status = status
        self.headers = [("Content-Type", contentType)] + headers
        self.body = .bytes(body)
    }

    public init(status: Int, contentType: String, text: String, headers: [(String, String)] = []) {
        self.init(status: status, contentType: contentType, body: Array(text.utf8), headers: headers)
    }

    public init(stream: any HTTPStream, contentType: String, headers: [(String, String)] = []) {
        status = 200
        self.headers = [("Content-Type", contentType)] + headers
        body = .stream(stream)
    }

    /// A plain-text error page: `404 not found: /x`.
    public static func error(_ status: Int, _ message: String) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "text/plain; charset=utf-8", text: "\(status) \(message)\n")
    }
}
