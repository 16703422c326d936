#if canImport(Glibc)
import Glibc
#endif
import BandKitSystem

/// The service's Unix control socket: one request line per connection, one answer, then close.
///
/// - The socket file is created with mode 0600 (only the service's user, and root, may connect):
///   the process's umask is narrowed to 0177 for the one `bind`, then the mode is set and checked
///   again, so no moment exists at which another user could connect.
/// - A path that exists is refused when a server answers there (another instance is running),
///   and removed when nothing does (a stale socket from a process that was killed); a path that
///   exists and is not a socket is never touched.
/// - Each peer's credentials are checked at accept (`SO_PEERCRED`): the service's own user or root.
/// - A request is one line of UTF-8 without control characters, at most
///   ``StreamServerLimits/maximumRequestBytes`` with its `\n` (`\r\n` and a missing final newline
///   before the client shuts its side are accepted). Anything else — garbage, an overlong line,
///   nothing at all, a client slower than ``StreamServerLimits/clientDeadline`` — is dropped
///   without an answer and costs the server nothing more.
/// - The owner's `respond` closure turns the line into the answer's bytes (nil: drop); it runs
///   on the owner's loop, so it may read the owner's state without locks.
///
/// Driven by the owner's poll loop (``PollDriven``); the socket file is removed when the server
/// is released, if it is still the one this server made.
public final class ControlSocketServer: PollDriven {
    /// The socket's path.
    public let path: String
    private let server: StreamRequestServer
    /// Device and inode of the socket file made by `bind`: removed at the end only if unchanged.
    private let identity: (device: UInt64, inode: UInt64)

    /// Binds and listens at `path`. Throws ``ControlSocketError`` when another server answers at
    /// `path`, when it is not a socket, or when a call fails (naming the call and the path).
    /// `createDirectory`: make the parent directory and every missing level above it (mode 0700),
    /// as outside systemd (`RuntimeDirectory=` makes it there).
    public init(path: String, limits: StreamServerLimits = StreamServerLimits(), createDirectory: Bool = false,
                respond: @escaping (String) -> [UInt8]?) throws(ControlSocketError) {
        guard let address = UnixSocketAddress(name: path), !path.hasPrefix("@") else {
            throw .invalidPath(path)
        }
        self.path = path
        let calls = SystemCalls.live
        if createDirectory { try Self.makeParentDirectory(of: path) }
        try Self.clearStaleSocket(at: path, address: address)

        let listener: Int32
        switch calls.socket(domain: AF_UNIX, type: Int32(SOCK_STREAM.rawValue) | SocketFlags.closeOnExec | SocketFlags.nonBlocking, protocol: 0) {
        case .success(let fd): listener = fd
        case .failure(let error): throw .callFailed("socket", path, error)
        }
        func fail(_ call: String, _ error: Errno) -> ControlSocketError {
            _ = calls.close(descriptor: listener)
            return error == .addressInUse ? .alreadyRunning(path) : .callFailed(call, path, error)
        }
        let previousMask = umask(0o177)
        let bound = address.withBytes { calls.bind(listener, address: $0) }
        umask(previousMask)
        if case .failure(let error) = bound { throw fail("bind", error) }
        var status = stat()
        guard chmod(path, 0o600) == 0, lstat(path, &status) == 0 else { let error = Errno.current; _ = unlink(path); throw fail("chmod", error) }
        guard status.st_mode & 0o777 == 0o600 else { _ = unlink(path); throw fail("chmod", .permissionDenied) }
        if case .failure(let error) = calls.listen(listener, backlog: 16) { _ = unlink(path); throw fail("listen", error) }
        identity = (UInt64(status.st_dev), UInt64(status.st_ino))
        let ownUser = geteuid()
        server = StreamRequestServer(listener: listener, limits: limits, admit: { Self.peerIsTrusted($0, ownUser: ownUser) }) { input, ended in
            Self.judge(input, ended: ended, maximumBytes: limits.maximumRequestBytes, respond: respond)
        }
    }

    deinit {
        var status = stat()
        if lstat(path, &status) == 0, UInt64(status.st_dev) == identity.device, UInt64(status.st_ino) == identity.inode {
            _ = unlink(path)
        }
    }

    /// What the server has done so far.
    public var counters: StreamServerCounters { server.counters }

    public func appendPollDescriptors(to descriptors: inout [pollfd]) { server.appendPollDescriptors(to: &descriptors) }
    public var nextDeadline: ContinuousClock.Instant? { server.nextDeadline }
    public func handle(_ polled: some Collection<pollfd>, now: ContinuousClock.Instant, budget: Duration) {
        server.handle(polled, now: now, budget: budget)
    }

    /// The request line in `input`, once whole: the server's rule for what a request is.
    static func judge(_ input: [UInt8], ended: Bool, maximumBytes: Int, respond: (String) -> [UInt8]?) -> RequestJudgement {
        var line: ArraySlice<UInt8>
        if let newline = input.firstIndex(of: 0x0A) {
            guard newline < maximumBytes else { return .drop }
            line = input[..<newline]
        } else if ended, !input.isEmpty, input.count <= maximumBytes {
            line = input[...]
        } else {
            return .needMore
        }
        if line.last == 0x0D { line = line.dropLast() }
        guard let text = String(validating: line, as: UTF8.self),
              !text.unicodeScalars.contains(where: { TerminalText.needsEscape($0) && $0 != "\\" }),
              !text.isEmpty
        else { return .drop }
        return respond(text).map { .respond($0) } ?? .drop
    }

    /// The peer is this process's user or root (`SO_PEERCRED`).
    static func peerIsTrusted(_ descriptor: Int32, ownUser: uid_t) -> Bool {
        // struct ucred { pid_t pid; uid_t uid; gid_t gid; }
        switch SystemCalls.live.option(descriptor, level: SOL_SOCKET, name: SO_PEERCRED, as: (Int32, UInt32, UInt32).self) {
        case .success(let credentials): return credentials.1 == 0 || credentials.1 == ownUser
        case .failure: return false
        }
    }

    private static func makeParentDirectory(of path: String) throws(ControlSocketError) {
        let directory = FilePaths.directory(of: path)
        guard !directory.isEmpty else { return }
        if case .failure(let failure) = PrivateDirectory.create(directory) { throw .callFailed(failure.call, failure.path, failure.error) }
    }

    /// Removes a socket nothing answers at; refuses a live one and anything that is not a socket.
    private static func clearStaleSocket(at path: String, address: UnixSocketAddress) throws(ControlSocketError) {
        var status = stat()
        guard lstat(path, &status) == 0 else { return }
        guard status.st_mode & S_IFMT == S_IFSOCK else { throw .notASocket(path) }
        // Non-blocking: a live server whose backlog is full answers EAGAIN instead of holding us up.
        let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | SocketFlags.closeOnExec | SocketFlags.nonBlocking, 0)
        guard probe >= 0 else { throw .callFailed("socket", path, .current) }
        defer { close(probe) }
        let connected = address.withBytes { SystemCalls.live.connect(probe, address: $0) }
        switch connected {
        case .success, .failure(.wouldBlock), .failure(.inProgress): throw .alreadyRunning(path)
        case .failure(.connectionRefused):
            guard unlink(path) == 0 || errno == ENOENT else { throw .callFailed("unlink", path, .current) }
        case .failure(let error): throw .callFailed("connect", path, error)
        }
    }
}
