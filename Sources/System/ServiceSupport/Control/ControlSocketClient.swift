#if canImport(Glibc)
import Glibc
#endif
import BandKitSystem

/// The client side of a ``ControlSocketServer``: connect, send one line, read the answer until
/// the server closes. Blocking, with one deadline for the whole exchange, for a command such as
/// `band status`.
public enum ControlSocketClient {
    /// Where a service's control socket is by default: `$XDG_RUNTIME_DIR/bandkit/NAME` (a user's
    /// service, systemd's `%t` in a user unit), else `/run/bandkit/NAME` (the system service).
    public static func defaultPath(name: String = "gateway.sock", environment: [String: String] = ProcessEnvironment.current()) -> String {
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") { return runtime + "/bandkit/" + name }
        return "/run/bandkit/" + name
    }

    /// Sends `request` (one line; the newline is added) to the server at `path` and returns its
    /// answer: every byte until the server closes, at most `maximumAnswerBytes`.
    ///
    /// Errors name the path: ``ControlSocketError/notRunning(_:)`` when nothing listens there
    /// (no file, or a stale one), ``ControlSocketError/permissionDenied(_:)``,
    /// ``ControlSocketError/timedOut(_:)`` when the exchange takes longer than `timeout`,
    /// ``ControlSocketError/answerTooLong(_:_:)``, ``ControlSocketError/noAnswer(_:)`` when the
    /// server closed without answering (it refused the request).
    public static func request(_ request: String, path: String, timeout: Duration = .seconds(5),
                               maximumAnswerBytes: Int = 4 << 20) throws(ControlSocketError) -> [UInt8] {
        guard let address = UnixSocketAddress(name: path) else { throw .invalidPath(path) }
        guard !request.utf8.contains(0x0A) else { throw .invalidRequest(request) }
        let calls = SystemCalls.live
        let deadline = ContinuousClock.now + timeout
        let fd: Int32
        switch calls.socket(domain: AF_UNIX, type: Int32(SOCK_STREAM.rawValue) | SocketFlags.closeOnExec, protocol: 0) {
        case .success(let opened): fd = opened
        case .failure(let error): throw .callFailed("socket", path, error)
        }
        defer { _ = calls.close(descriptor: fd) }

        // A Unix connect waits while the server's backlog is full; the send timeout bounds that wait.
        let (seconds, attoseconds) = timeout.components
        let limit = timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
        _ = calls.setOption(fd, level: SOL_SOCKET, name: SO_SNDTIMEO, value: limit)
        switch address.withBytes({ calls.connect(fd, address: $0) }) {
        case .success: break
        case .failure(.noSuchFileOrDirectory), .failure(.connectionRefused), .failure(.notDirectory): throw .notRunning(path)
        case .failure(.permissionDenied), .failure(.notPermitted): throw .permissionDenied(path)
        case .failure(.wouldBlock), .failure(.inProgress), .failure(.interrupted): throw .timedOut(path)
        case .failure(let error): throw .callFailed("connect", path, error)
        }
        let flagged = calls.fileControl(fd, command: F_GETFL).flatMap { calls.fileControl(fd, command: F_SETFL, argument: $0 | O_NONBLOCK) }
        if case .failure(let error) = flagged { throw .callFailed("fcntl", path, error) }

        let line = Array((request + "\n").utf8)
        var sent = 0
        while sent < line.count {
            try wait(fd, for: Int16(POLLOUT), until: deadline, path: path)
            switch line.withUnsafeBytes({ calls.send(fd, UnsafeRawBufferPointer(rebasing: $0[sent...]), flags: SocketFlags.noSignal) }) {
            case .success(let count): sent += count
            case .failure(.wouldBlock): continue
            case .failure(.brokenPipe), .failure(.connectionReset): throw .noAnswer(path)
            case .failure(let error): throw .callFailed("send", path, error)
            }
        }

        var answer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16384)
        while true {
            try wait(fd, for: Int16(POLLIN), until: deadline, path: path)
            switch chunk.withUnsafeMutableBytes({ calls.receive(fd, into: $0, flags: 0) }) {
            case .success(0):
                guard !answer.isEmpty else { throw .noAnswer(path) }
                return answer
            case .success(let count):
                guard answer.count + count <= maximumAnswerBytes else { throw .answerTooLong(path, maximumAnswerBytes) }
                answer += chunk[..<count]
            case .failure(.wouldBlock): continue
            case .failure(.connectionReset): throw .noAnswer(path)
            case .failure(let error): throw .callFailed("recv", path, error)
            }
        }
    }

    private static func wait(_ fd: Int32, for events: Int16, until deadline: ContinuousClock.Instant, path: String) throws(ControlSocketError) {
        var entry = pollfd(fd: fd, events: events, revents: 0)
        switch SystemCalls.live.pollOne(&entry, timeout: max(.zero, deadline - .now)) {
        case .success(0): throw .timedOut(path)
        case .success: return
        case .failure(let error): throw .callFailed("poll", path, error)
        }
    }
}

/// Why a control socket could not be served or asked.
public enum ControlSocketError: Error, Equatable, CustomStringConvertible {
    /// Empty, longer than a socket address holds, holding a NUL byte, or (for a server) an `@` abstract name.
    case invalidPath(String)
    /// A request holding a line break (the protocol is one line).
    case invalidRequest(String)
    /// A server already answers at the path: another instance of the service is running.
    case alreadyRunning(String)
    /// Something other than a socket is at the path; it is left alone.
    case notASocket(String)
    /// Nothing listens at the path: no file there, or a stale socket.
    case notRunning(String)
    /// The socket is not this user's (mode 0600).
    case permissionDenied(String)
    /// The exchange took longer than the client's timeout.
    case timedOut(String)
    /// The server closed without an answer (it refused the request).
    case noAnswer(String)
    /// The answer was longer than the client accepts (bytes).
    case answerTooLong(String, Int)
    /// A system call failed: the call, the path, the error.
    case callFailed(String, String, Errno)

    public var description: String {
        switch self {
        case .invalidPath(let path): "\(escaped(path)) cannot be a control socket path (empty, over \(UnixSocketAddress.maximumNameBytes) bytes, a NUL byte, or an @abstract name)"
        case .invalidRequest(let request): "the request \(escaped(request)) is not one line"
        case .alreadyRunning(let path): "another process is already serving the control socket \(escaped(path))"
        case .notASocket(let path): "\(escaped(path)) exists and is not a socket; not replacing it"
        case .notRunning(let path): "no gateway is running: nothing listens on \(escaped(path))"
        case .permissionDenied(let path): "not allowed to connect to \(escaped(path)) (it is the service user's; try as that user or root)"
        case .timedOut(let path): "no answer from \(escaped(path)) in time"
        case .noAnswer(let path): "\(escaped(path)) closed the connection without answering"
        case .answerTooLong(let path, let limit): "the answer from \(escaped(path)) is longer than \(limit) bytes"
        case .callFailed(let call, let path, let error): "\(call) \(escaped(path)): \(error)"
        }
    }

    private func escaped(_ text: String) -> String { TerminalText.escaped(text) }
}
