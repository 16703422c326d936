#if canImport(Glibc)
import Glibc
#endif
import BandKitSystem

/// `GET /metrics` for Prometheus over HTTP/1.1, on the owner's poll loop.
///
/// A small server of its own rather than the dashboard's (HealthHTTP, on libmicrohttpd): band must
/// not depend on the dashboard module, the manifest keeps libmicrohttpd to HealthHTTP and `health`
/// (scripts/check-manifest.py), and libmicrohttpd answers from threads of its own, whereas a
/// gateway renders its metrics from state its one loop owns. One path, one method, one short
/// answer per connection: a few hundred lines that a poll loop drives, with every limit explicit.
///
/// - `GET` (and `HEAD`) of the path answers 200 with the `body` closure's bytes (run on the
///   owner's loop), `Content-Type` ``MetricsRegistry/contentType``; any other path 404, any other
///   method 405 (with `Allow`), a malformed head 400, an overlong one 431, another version 505;
///   every answer has `Content-Length` and `Connection: close`.
/// - Listening on a loopback address, the `Host` must name a loopback address at this port
///   (421 otherwise), so a web page that rebinds its name to 127.0.0.1 cannot read the metrics.
/// - A client gets ``StreamServerLimits/clientDeadline`` from accept to the end of its answer.
public final class MetricsHTTPServer: PollDriven {
    /// The address listened on, with the port actually bound (when 0 was asked, the kernel's choice).
    public let address: MetricsListenAddress
    private let server: StreamRequestServer

    /// Binds and listens. Throws ``MetricsServerError/addressInUse(_:)`` when another process has
    /// the port, naming it; other failures name the call.
    public init(listeningOn requested: MetricsListenAddress, path: String = "/metrics",
                limits: StreamServerLimits = StreamServerLimits(maximumRequestBytes: 8192),
                body: @escaping () -> [UInt8]) throws(MetricsServerError) {
        let calls = SystemCalls.live
        let listener: Int32
        switch calls.socket(domain: requested.family, type: Int32(SOCK_STREAM.rawValue) | SocketFlags.closeOnExec | SocketFlags.nonBlocking, protocol: 0) {
        case .success(let fd): listener = fd
        case .failure(let error): throw .callFailed("socket", requested, error)
        }
        func fail(_ call: String, _ error: Errno) -> MetricsServerError {
            _ = calls.close(descriptor: listener)
            return error == .addressInUse ? .addressInUse(requested) : .callFailed(call, requested, error)
        }
        // A restarted service binds again at once, past the old connections' TIME_WAIT.
        _ = calls.setOption(listener, level: SOL_SOCKET, name: SO_REUSEADDR, value: Int32(1))
        if requested.family == AF_INET6 { _ = calls.setOption(listener, level: Int32(IPPROTO_IPV6), name: IPV6_V6ONLY, value: Int32(1)) }
        if case .failure(let error) = requested.withSocketAddress({ calls.bind(listener, address: $0) }) { throw fail("bind", error) }
        if case .failure(let error) = calls.listen(listener, backlog: 16) { throw fail("listen", error) }
        var bound = requested
        var storage = sockaddr_storage()
        let named = withUnsafeMutableBytes(of: &storage) { calls.socketName(listener, into: $0) }
        if case .success = named {
            bound.port = withUnsafeBytes(of: storage) { raw in UInt16(bigEndian: raw.load(fromByteOffset: 2, as: UInt16.self)) }
        }
        address = bound
        let hosts = bound.isLoopback ? bound.loopbackHosts : nil
        server = StreamRequestServer(listener: listener, limits: limits) { input, _ in
            let parse = HTTPRequestHead.parse(input, maximumBytes: limits.maximumRequestBytes)
            return Self.answer(to: parse, path: path, allowedHosts: hosts, body: body).map { .respond($0) } ?? .needMore
        }
    }

    /// What the server has done so far.
    public var counters: StreamServerCounters { server.counters }

    public func appendPollDescriptors(to descriptors: inout [pollfd]) { server.appendPollDescriptors(to: &descriptors) }
    public var nextDeadline: ContinuousClock.Instant? { server.nextDeadline }
    public func handle(_ polled: some Collection<pollfd>, now: ContinuousClock.Instant, budget: Duration) {
        server.handle(polled, now: now, budget: budget)
    }

    /// The whole answer (status line, headers, body) to what was parsed; `needMore` has none yet.
    static func answer(to parse: HTTPRequestHead.Parse, path: String, allowedHosts: Set<String>?, body: () -> [UInt8]) -> [UInt8]? {
        switch parse {
        case .needMore:
            return nil
        case .invalid(let status, let reason):
            return response(status: status, text: reason + "\n")
        case .complete(let head):
            if let allowedHosts, let host = head.host, !allowedHosts.contains(HTTPRequestHead.asciiLowercased(host)) {
                return response(status: 421, text: "this server answers to a loopback address only\n")
            }
            guard head.path == path else { return response(status: 404, text: "not found: the metrics are at \(path)\n") }
            guard head.method == "GET" || head.method == "HEAD" else {
                return response(status: 405, text: "only GET and HEAD\n", extraHeaders: "Allow: GET, HEAD\r\n")
            }
            return response(status: 200, contentType: MetricsRegistry.contentType, body: body(), omitBody: head.method == "HEAD")
        }
    }

    static func response(status: Int, text: String, extraHeaders: String = "") -> [UInt8] {
        response(status: status, contentType: "text/plain; charset=utf-8", body: Array(text.utf8), extraHeaders: extraHeaders)
    }

    static func response(status: Int, contentType: String, body: [UInt8], extraHeaders: String = "", omitBody: Bool = false) -> [UInt8] {
        let head = "HTTP/1.1 \(status) \(reasonPhrase(status))\r\nContent-Type: \(contentType)\r\nContent-Length: \(body.count)\r\n"
            + extraHeaders + "Connection: close\r\n\r\n"
        return Array(head.utf8) + (omitBody ? [] : body)
    }

    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 400: "Bad Request"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 421: "Misdirected Request"
        case 431: "Request Header Fields Too Large"
        case 505: "HTTP Version Not Supported"
        default: "Error"
        }
    }
}
