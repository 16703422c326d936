internal import CMicroHTTPD
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// An HTTP/1.1 server for read-only GET requests on libmicrohttpd (Debian's, through CMicroHTTPD).
///
/// `Acceptor` owns the listening socket: it waits for each request head (at most
/// ``Limits/headerTimeoutSeconds``, else 408), refuses what ``RequestGate`` refuses (a Host this
/// server is not, DNS rebinding: 421; two Host or Content-Length headers, a malformed length or
/// request line: 400; a body: 413; a head beyond ``Limits/memoryPerConnection``: 431) and answers
/// 503 with `Retry-After` when ``Limits/connections`` are open, before libmicrohttpd sees a byte
/// (its own answers to some of these are wrong: a `Content-Length: -1` got its status line and
/// headers twice). The library then parses the request, runs one thread per connection and drops a
/// client idle for ``Limits/idleTimeoutSeconds``. Every response closes its connection, so every
/// request passes the gate. This type adds the rest: only GET and HEAD (others 405), a Host header
/// on HTTP/1.1 (400), at most ``Limits/maximumArguments`` query arguments (400), at most
/// ``Limits/maximumStreams`` streams at once (503; pages keep their room); everything else is the
/// handler's. A stream learns at once that its client hung up (``HTTPClient``).
public final class HTTPServer: @unchecked Sendable {
    public struct Limits: Sendable {
        /// Open connections in total (waiting for their head, or served); more get 503.
        public var connections: UInt32 = 64
        /// Of those, server-sent event streams; more get 503.
        public var maximumStreams = 32
        /// The whole request head must arrive within this (a slow sender is answered 408).
        public var headerTimeoutSeconds: UInt32 = 10
        /// A served client that neither sends nor receives for this long is dropped.
        public var idleTimeoutSeconds: UInt32 = 30
        public var memoryPerConnection = 32 * 1024
        public var maximumArguments = 16
        /// The `Retry-After` of a 503.
        public var retryAfterSeconds = 5
        public init() {}
    }

    public typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

    final class Context: @unchecked Sendable {
        let handler: Handler
        let limits: Limits
        /// Connections libmicrohttpd holds now.
        let connections = Atomic<Int>(0)
        /// Streams being sent now.
        let streams = Atomic<Int>(0)
        init(handler: @escaping Handler, limits: Limits) {
            self.handler = handler
            self.limits = limits
        }
    }

    /// The libmicrohttpd this process runs (`MHD_get_version`), e.g. `0.9.75`; `health serve`
    /// prints it when it starts.
    public static var libraryVersion: String { String(cString: MHD_get_version()) }

    private let daemon: OpaquePointer
    private let context: Unmanaged<Context>
    private let acceptor: Acceptor
    public let port: UInt16
    /// The Host values this server answers to (``RequestGate/hosts(listeningOn:port:)``).
    public let allowedHosts: Set<String>
    private var stopped = false

    /// Listens on `host` (an IPv4 address, e.g. 127.0.0.1) and `port` (0: any free port, see ``port``).
    public init(host: String, port: UInt16, limits: Limits = Limits(), handler: @escaping Handler) throws(HTTPServerError) {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { throw .badAddress(host) }
        let listener = bandkit_stream_socket()
        var one: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard listener >= 0, bound == 0, listen(listener, 128) == 0 else {
            let reason = String(cString: strerror(errno))
            if listener >= 0 { close(listener) }
            throw .cannotListen(host: host, port: port, reason: reason)
        }
        var boundAddress = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &boundAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        self.port = UInt16(bigEndian: boundAddress.sin_port)
        allowedHosts = RequestGate.hosts(listeningOn: host, port: self.port)
        let context = Unmanaged.passRetained(Context(handler: handler, limits: limits))
        // The library's own limit is a backstop above the acceptor's (which answers 503 first).
        guard let started = bandkit_mhd_start(accessHandler, context.toOpaque(), limits.connections + 8, limits.idleTimeoutSeconds,
                                              limits.memoryPerConnection, connectionNotifier, context.toOpaque()) else {
            close(listener)
            context.release()
            throw .cannotListen(host: host, port: port, reason: "libmicrohttpd did not start")
        }
        daemon = started
        self.context = context
        do throws(HTTPServerError) {
            acceptor = try Acceptor(listener: listener, gate: RequestGate(allowedHosts: allowedHosts, maximumHeadBytes: limits.memoryPerConnection,
                                                                     anyAddressPort: host == "0.0.0.0" ? self.port : nil),
                                    limits: limits, daemon: started, context: context.takeUnretainedValue())
        } catch {
            MHD_stop_daemon(started)
            close(listener)
            context.release()
            throw error
        }
        acceptor.start()
    }

    /// Stops listening and waits for the connection threads (streams must end within a second or so).
    public func stop() {
        guard !stopped else { return }
        stopped = true
        acceptor.stop()
        MHD_stop_daemon(daemon)
        context.release()
    }

    deinit { stop() }
}

public enum HTTPServerError: Error, Sendable, CustomStringConvertible {
    case badAddress(String)
    case cannotListen(host: String, port: UInt16, reason: String)

    public var description: String {
        switch self {
        case .badAddress(let host): "'\(host)' is not an IPv4 address"
        case .cannotListen(let host, let port, let reason): "cannot listen on \(host):\(port): \(reason)"
        }
    }
}

// MARK: - libmicrohttpd callbacks

private let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, version, _, uploadDataSize, perRequest in
    guard let cls, let connection, let perRequest, let uploadDataSize else { return bandkit_mhd_no() }
    let context = Unmanaged<HTTPServer.Context>.fromOpaque(cls).takeUnretainedValue()
    if perRequest.pointee != nil {
        // A later call of a request already answered: a body arrived anyway; discard it.
        uploadDataSize.pointee = 0
        return bandkit_mhd_yes()
    }
    perRequest.pointee = UnsafeMutableRawPointer(bitPattern: 1)
    let methodName = method.map { String(cString: $0) } ?? ""
    let path = url.map { String(cString: $0) } ?? "/"
    let response: HTTPResponse
    if methodName != "GET" && methodName != "HEAD" {
        response = HTTPResponse(status: 405, contentType: "text/plain; charset=utf-8", text: "405 only GET and HEAD\n",
                                headers: [("Allow", "GET, HEAD")])
    } else if version.map({ String(cString: $0) }) == "HTTP/1.1",
              MHD_lookup_connection_value(connection, bandkit_mhd_header_kind(), "Host") == nil {
        response = .error(400, "an HTTP/1.1 request needs a Host header (RFC 9112 §3.2)")
    } else if hasBody(connection) {
        response = .error(413, "a request body is not accepted")
    } else {
        var collector = ArgumentCollector(limit: context.limits.maximumArguments)
        withUnsafeMutablePointer(to: &collector) { pointer in
            _ = MHD_get_connection_values(connection, bandkit_mhd_argument_kind(), argumentIterator, pointer)
        }
        if collector.overflow {
            response = .error(400, "more than \(context.limits.maximumArguments) query arguments")
        } else {
            response = context.handler(HTTPRequest(method: methodName, path: path, arguments: collector.arguments))
        }
    }
    return queue(response, on: connection, context: context)
}

private func hasBody(_ connection: OpaquePointer) -> Bool {
    if let length = MHD_lookup_connection_value(connection, bandkit_mhd_header_kind(), "Content-Length") {
        let text = String(cString: length)
        return text != "0"
    }
    return MHD_lookup_connection_value(connection, bandkit_mhd_header_kind(), "Transfer-Encoding") != nil
}

private struct ArgumentCollector {
    var arguments: [String: String] = [:]
    var count = 0
    var overflow = false
    let limit: Int
    init(limit: Int) { self.limit = limit }
}

private let argumentIterator: MHD_KeyValueIterator = { cls, _, key, value in
    guard let cls else { return bandkit_mhd_no() }
    let collector = cls.assumingMemoryBound(to: ArgumentCollector.self)
    collector.pointee.count += 1
    if collector.pointee.count > collector.pointee.limit {
        collector.pointee.overflow = true
        return bandkit_mhd_no()
    }
    if let key {
        let name = String(cString: key)
        if collector.pointee.arguments[name] == nil { collector.pointee.arguments[name] = value.map { String(cString: $0) } ?? "" }
    }
    return bandkit_mhd_yes()
}

private let connectionNotifier: MHD_NotifyConnectionCallback = { cls, _, _, code in
    guard let cls else { return }
    let context = Unmanaged<HTTPServer.Context>.fromOpaque(cls).takeUnretainedValue()
    if code == bandkit_mhd_notify_started() {
        context.connections.add(1, ordering: .releasing)
    } else if code == bandkit_mhd_notify_closed() {
        context.connections.subtract(1, ordering: .releasing)
    }
}

private func queue(_ response: HTTPResponse, on connection: OpaquePointer, context: HTTPServer.Context) -> MHD_Result {
    var response = response
    if case .stream = response.body {
        if context.streams.add(1, ordering: .acquiringAndReleasing).newValue > context.limits.maximumStreams {
            context.streams.subtract(1, ordering: .releasing)
            response = .error(503, "\(context.limits.maximumStreams) event streams are open; try again shortly")
            response.headers.append(("Retry-After", "\(context.limits.retryAfterSeconds)"))
        }
    }
    let made: OpaquePointer?
    switch response.body {
    case .bytes(let bytes):
        made = bytes.withUnsafeBytes { buffer in
            MHD_create_response_from_buffer(buffer.count, UnsafeMutableRawPointer(mutating: buffer.baseAddress), bandkit_mhd_must_copy())
        }
    case .stream(let stream):
        let box = Unmanaged.passRetained(StreamBox(stream, client: HTTPClient(descriptor: bandkit_mhd_connection_fd(connection)), context: context))
        made = MHD_create_response_from_callback(bandkit_mhd_size_unknown(), 4096, streamReader, box.toOpaque(), streamRelease)
        if made == nil { box.release() }   // its deinit gives the stream's slot back
    }
    guard let made else { return bandkit_mhd_no() }
    defer { MHD_destroy_response(made) }
    for (name, value) in response.headers { _ = MHD_add_response_header(made, name, value) }
    _ = MHD_add_response_header(made, "X-Content-Type-Options", "nosniff")
    _ = MHD_add_response_header(made, "Cache-Control", "no-store")
    // One request per connection: every request passes the acceptor's checks.
    _ = MHD_add_response_header(made, "Connection", "close")
    return MHD_queue_response(connection, UInt32(response.status), made)
}

/// A stream's pending bytes between calls of libmicrohttpd's reader.
private final class StreamBox {
    let stream: any HTTPStream
    let client: HTTPClient
    let context: HTTPServer.Context
    var pending: [UInt8] = []
    init(_ stream: any HTTPStream, client: HTTPClient, context: HTTPServer.Context) {
        self.stream = stream
        self.client = client
        self.context = context
    }
    deinit { context.streams.subtract(1, ordering: .releasing) }
}

private let streamReader: MHD_ContentReaderCallback = { cls, _, buffer, maximum in
    guard let cls, let buffer else { return bandkit_mhd_end_of_stream() }
    let box = Unmanaged<StreamBox>.fromOpaque(cls).takeUnretainedValue()
    if box.pending.isEmpty {
        guard let next = box.stream.next(box.client) else { return bandkit_mhd_end_of_stream() }
        box.pending = next
        if next.isEmpty { return 0 }
    }
    let count = min(maximum, box.pending.count)
    box.pending.withUnsafeBytes { bytes in
        UnsafeMutableRawPointer(buffer).copyMemory(from: bytes.baseAddress!, byteCount: count)
    }
    box.pending.removeFirst(count)
    return count
}

private let streamRelease: MHD_ContentReaderFreeCallback = { cls in
    guard let cls else { return }
    Unmanaged<StreamBox>.fromOpaque(cls).release()
}
