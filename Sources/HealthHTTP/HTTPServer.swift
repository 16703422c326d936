import CMicroHTTPD
#if canImport(Glibc)
import Glibc
#endif

/// An HTTP/1.1 server for read-only GET requests on libmicrohttpd (Debian's, through CMicroHTTPD).
///
/// The library parses requests (a malformed request line or header gets its 400, a header block
/// larger than ``Limits/memoryPerConnection`` its 431/414 and the connection closed), runs one
/// thread per connection (a slow or streaming client holds only its own thread), drops a client
/// idle for ``Limits/idleTimeoutSeconds`` and refuses connections beyond the limits.
///
/// A request line without a space (`NONSENSE`, `GET` alone) or starting with one (no method) gets
/// no status at all: libmicrohttpd 0.9.75 (Debian's) gives up on it in
/// `parse_initial_message_line` without queueing a response, shuts the socket down for writing
/// and closes it, so the client reads end-of-file with zero bytes, at once (not after the idle
/// timeout). No documented hook can answer instead: the access handler and the URI log callback
/// run only after the method and target were split off, and the connection-closed notification
/// comes after `shutdown(SHUT_WR)`. libmicrohttpd 1.0 (a rewritten request-line parser) still
/// closes such a line silently unless it starts with a known method (`GET` alone: 400). A line
/// with a method and a space but no target (`GET `) is a 400 from either. See ``libraryVersion``
/// and docs/architecture.md. This type adds the rest of the contract: only GET and HEAD
/// (others 405), a Host header on HTTP/1.1 (400), no request body (413), at most
/// ``Limits/maximumArguments`` query arguments (400); everything else is the handler's.
public final class HTTPServer: @unchecked Sendable {
    public struct Limits: Sendable {
        public var connections: UInt32 = 64
        public var connectionsPerAddress: UInt32 = 16
        public var idleTimeoutSeconds: UInt32 = 30
        public var memoryPerConnection = 32 * 1024
        public var maximumArguments = 16
        public init() {}
    }

    public typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

    final class Context: @unchecked Sendable {
        let handler: Handler
        let limits: Limits
        init(handler: @escaping Handler, limits: Limits) {
            self.handler = handler
            self.limits = limits
        }
    }

    /// The libmicrohttpd this process runs (`MHD_get_version`), e.g. `0.9.75`: what a garbage
    /// request line gets depends on it (see above); `health serve` prints it when it starts.
    public static var libraryVersion: String { String(cString: MHD_get_version()) }

    private let daemon: OpaquePointer
    private let context: Unmanaged<Context>
    public let port: UInt16
    private var stopped = false

    /// Listens on `host` (an IPv4 address, e.g. 127.0.0.1) and `port` (0: any free port, see ``port``).
    public init(host: String, port: UInt16, limits: Limits = Limits(), handler: @escaping Handler) throws(HTTPServerError) {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { throw .badAddress(host) }
        let context = Unmanaged.passRetained(Context(handler: handler, limits: limits))
        let started = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bandkit_mhd_start(socketAddress, accessHandler, context.toOpaque(), limits.connections,
                                  limits.connectionsPerAddress, limits.idleTimeoutSeconds, limits.memoryPerConnection)
            }
        }
        guard let started else {
            context.release()
            throw .cannotListen(host: host, port: port, reason: String(cString: strerror(errno)))
        }
        daemon = started
        self.context = context
        self.port = bandkit_mhd_port(started)
    }

    /// Stops listening and waits for the connection threads (streams must end within a second or so).
    public func stop() {
        guard !stopped else { return }
        stopped = true
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
    return queue(response, on: connection)
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

private func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
    let made: OpaquePointer?
    switch response.body {
    case .bytes(let bytes):
        made = bytes.withUnsafeBytes { buffer in
            MHD_create_response_from_buffer(buffer.count, UnsafeMutableRawPointer(mutating: buffer.baseAddress), bandkit_mhd_must_copy())
        }
    case .stream(let stream):
        let box = Unmanaged.passRetained(StreamBox(stream))
        made = MHD_create_response_from_callback(bandkit_mhd_size_unknown(), 4096, streamReader, box.toOpaque(), streamRelease)
        if made == nil { box.release() }
    }
    guard let made else { return bandkit_mhd_no() }
    defer { MHD_destroy_response(made) }
    for (name, value) in response.headers { _ = MHD_add_response_header(made, name, value) }
    _ = MHD_add_response_header(made, "X-Content-Type-Options", "nosniff")
    _ = MHD_add_response_header(made, "Cache-Control", "no-store")
    return MHD_queue_response(connection, UInt32(response.status), made)
}

/// A stream's pending bytes between calls of libmicrohttpd's reader.
private final class StreamBox {
    let stream: any HTTPStream
    var pending: [UInt8] = []
    init(_ stream: any HTTPStream) { self.stream = stream }
}

private let streamReader: MHD_ContentReaderCallback = { cls, _, buffer, maximum in
    guard let cls, let buffer else { return bandkit_mhd_end_of_stream() }
    let box = Unmanaged<StreamBox>.fromOpaque(cls).takeUnretainedValue()
    if box.pending.isEmpty {
        guard let next = box.stream.next() else { return bandkit_mhd_end_of_stream() }
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
