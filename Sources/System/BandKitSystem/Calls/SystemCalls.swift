#if canImport(Glibc)
import Glibc
#endif

/// The raw system calls BandKit makes (links, files, locks), as a table of replaceable functions.
///
/// The bottom of three layers (as swift-system): these are the C calls exactly, returning
/// `-1` and setting `errno` on failure. ``SystemCalls/live`` calls the C library; tests copy
/// it and replace entries to script failures (`EINTR`, `ECONNREFUSED`, short reads) and to
/// check arguments. A mock reports failure the way the kernel does: it sets `errno` (a
/// thread-local, read straight after the call on the same thread) and returns `-1`.
///
/// A table of closures injected into each link rather than global mutable hooks, so tests
/// running in parallel each see only their own mocks (Swift 6 strict concurrency).
///
/// The middle layer (``SystemCalls/socket(domain:type:protocol:)`` and friends, `package`
/// access) retries `EINTR` through ``valueOrErrno(retryOnInterrupt:_:)`` and returns
/// `Result<_, Errno>`; the public API on top (links, ``replaceFile(at:with:mode:)``, locks)
/// throws errors naming the call that failed.
public struct SystemCalls: Sendable {
    public var socket: @Sendable (_ domain: Int32, _ type: Int32, _ protocol: Int32) -> Int32
    public var socketpair: @Sendable (_ domain: Int32, _ type: Int32, _ protocol: Int32, _ pair: UnsafeMutablePointer<Int32>) -> Int32
    public var bind: @Sendable (_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32
    public var listen: @Sendable (_ fd: Int32, _ backlog: Int32) -> Int32
    public var accept4: @Sendable (_ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>?, _ length: UnsafeMutablePointer<socklen_t>?, _ flags: Int32) -> Int32
    public var connect: @Sendable (_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32
    public var send: @Sendable (_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int, _ flags: Int32) -> Int
    public var recv: @Sendable (_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int, _ flags: Int32) -> Int
    public var poll: @Sendable (_ fds: UnsafeMutablePointer<pollfd>?, _ count: nfds_t, _ timeoutMilliseconds: Int32) -> Int32
    public var close: @Sendable (_ fd: Int32) -> Int32
    public var setsockopt: @Sendable (_ fd: Int32, _ level: Int32, _ name: Int32, _ value: UnsafeRawPointer?, _ length: socklen_t) -> Int32
    public var getsockopt: @Sendable (_ fd: Int32, _ level: Int32, _ name: Int32, _ value: UnsafeMutableRawPointer?, _ length: UnsafeMutablePointer<socklen_t>?) -> Int32
    public var getsockname: @Sendable (_ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>?, _ length: UnsafeMutablePointer<socklen_t>?) -> Int32
    public var unlink: @Sendable (_ path: UnsafePointer<CChar>) -> Int32
    public var lstat: @Sendable (_ path: UnsafePointer<CChar>, _ status: UnsafeMutablePointer<stat>) -> Int32
    public var mkdir: @Sendable (_ path: UnsafePointer<CChar>, _ mode: mode_t) -> Int32
    /// `fcntl` with an integer argument (`F_GETFL`, `F_SETFL`, `F_SETFD`, …).
    public var fcntl: @Sendable (_ fd: Int32, _ command: Int32, _ argument: Int32) -> Int32
    public var pipe: @Sendable (_ fds: UnsafeMutablePointer<Int32>) -> Int32
    public var read: @Sendable (_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int
    public var write: @Sendable (_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int
    public var open: @Sendable (_ path: UnsafePointer<CChar>, _ flags: Int32, _ mode: mode_t) -> Int32
    public var fsync: @Sendable (_ fd: Int32) -> Int32
    public var rename: @Sendable (_ from: UnsafePointer<CChar>, _ to: UnsafePointer<CChar>) -> Int32
    public var fchmod: @Sendable (_ fd: Int32, _ mode: mode_t) -> Int32
    /// `flock(2)`: whole-file advisory locks, released when the descriptor closes.
    public var flock: @Sendable (_ fd: Int32, _ operation: Int32) -> Int32

    public init(
        socket: @escaping @Sendable (Int32, Int32, Int32) -> Int32,
        socketpair: @escaping @Sendable (Int32, Int32, Int32, UnsafeMutablePointer<Int32>) -> Int32,
        bind: @escaping @Sendable (Int32, UnsafePointer<sockaddr>, socklen_t) -> Int32,
        listen: @escaping @Sendable (Int32, Int32) -> Int32,
        accept4: @escaping @Sendable (Int32, UnsafeMutablePointer<sockaddr>?, UnsafeMutablePointer<socklen_t>?, Int32) -> Int32,
        connect: @escaping @Sendable (Int32, UnsafePointer<sockaddr>, socklen_t) -> Int32,
        send: @escaping @Sendable (Int32, UnsafeRawPointer?, Int, Int32) -> Int,
        recv: @escaping @Sendable (Int32, UnsafeMutableRawPointer?, Int, Int32) -> Int,
        poll: @escaping @Sendable (UnsafeMutablePointer<pollfd>?, nfds_t, Int32) -> Int32,
        close: @escaping @Sendable (Int32) -> Int32,
        setsockopt: @escaping @Sendable (Int32, Int32, Int32, UnsafeRawPointer?, socklen_t) -> Int32,
        getsockopt: @escaping @Sendable (Int32, Int32, Int32, UnsafeMutableRawPointer?, UnsafeMutablePointer<socklen_t>?) -> Int32,
        getsockname: @escaping @Sendable (Int32, UnsafeMutablePointer<sockaddr>?, UnsafeMutablePointer<socklen_t>?) -> Int32,
        unlink: @escaping @Sendable (UnsafePointer<CChar>) -> Int32,
        lstat: @escaping @Sendable (UnsafePointer<CChar>, UnsafeMutablePointer<stat>) -> Int32,
        mkdir: @escaping @Sendable (UnsafePointer<CChar>, mode_t) -> Int32,
        fcntl: @escaping @Sendable (Int32, Int32, Int32) -> Int32,
        pipe: @escaping @Sendable (UnsafeMutablePointer<Int32>) -> Int32,
        read: @escaping @Sendable (Int32, UnsafeMutableRawPointer?, Int) -> Int,
        write: @escaping @Sendable (Int32, UnsafeRawPointer?, Int) -> Int,
        open: @escaping @Sendable (UnsafePointer<CChar>, Int32, mode_t) -> Int32,
        fsync: @escaping @Sendable (Int32) -> Int32,
        rename: @escaping @Sendable (UnsafePointer<CChar>, UnsafePointer<CChar>) -> Int32,
        fchmod: @escaping @Sendable (Int32, mode_t) -> Int32,
        flock: @escaping @Sendable (Int32, Int32) -> Int32
    ) {
        self.socket = socket
        self.socketpair = socketpair
        self.bind = bind
        self.listen = listen
        self.accept4 = accept4
        self.connect = connect
        self.send = send
        self.recv = recv
        self.poll = poll
        self.close = close
        self.setsockopt = setsockopt
        self.getsockopt = getsockopt
        self.getsockname = getsockname
        self.unlink = unlink
        self.lstat = lstat
        self.mkdir = mkdir
        self.fcntl = fcntl
        self.pipe = pipe
        self.read = read
        self.write = write
        self.open = open
        self.fsync = fsync
        self.rename = rename
        self.fchmod = fchmod
        self.flock = flock
    }

    /// The C library.
    public static let live = SystemCalls(
        socket: { Glibc.socket($0, $1, $2) },
        socketpair: { Glibc.socketpair($0, $1, $2, $3) },
        bind: { Glibc.bind($0, $1, $2) },
        listen: { Glibc.listen($0, $1) },
        accept4: { GNUFunctions.accept4($0, $1, $2, $3) },
        connect: { Glibc.connect($0, $1, $2) },
        send: { Glibc.send($0, $1, $2, $3) },
        recv: { Glibc.recv($0, $1, $2, $3) },
        poll: { Glibc.poll($0, $1, $2) },
        close: { Glibc.close($0) },
        setsockopt: { Glibc.setsockopt($0, $1, $2, $3, $4) },
        getsockopt: { Glibc.getsockopt($0, $1, $2, $3, $4) },
        getsockname: { Glibc.getsockname($0, $1, $2) },
        unlink: { Glibc.unlink($0) },
        lstat: { Glibc.lstat($0, $1) },
        mkdir: { Glibc.mkdir($0, $1) },
        fcntl: { Glibc.fcntl($0, $1, $2) },
        pipe: { Glibc.pipe($0) },
        read: { Glibc.read($0, $1, $2) },
        write: { Glibc.write($0, $1, $2) },
        open: { Glibc.open($0, $1, $2) },
        fsync: { Glibc.fsync($0) },
        rename: { Glibc.rename($0, $1) },
        fchmod: { Glibc.fchmod($0, $1) },
        flock: { GNUFunctions.flock($0, $1) }
    )
}

/// GNU extensions the Swift `Glibc` module does not export (it is built without `_GNU_SOURCE`).
///
/// `accept4` is resolved from the C library by name once, with its exact C signature, so the
/// accepted descriptor is close-on-exec atomically (as swift-nio's shim does in C).
enum GNUFunctions {
    typealias Accept4 = @convention(c) (Int32, UnsafeMutablePointer<sockaddr>?, UnsafeMutablePointer<socklen_t>?, Int32) -> Int32

    static let resolvedAccept4: Accept4? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "accept4") else { return nil }
        return unsafeBitCast(symbol, to: Accept4.self)
    }()

    static func accept4(_ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>?, _ length: UnsafeMutablePointer<socklen_t>?, _ flags: Int32) -> Int32 {
        if let accept4 = resolvedAccept4 { return accept4(fd, address, length, flags) }
        // No accept4 in this C library: accept, then apply the flags (single-threaded callers only).
        let accepted = Glibc.accept(fd, address, length)
        guard accepted >= 0 else { return accepted }
        if flags & SocketFlags.closeOnExec != 0 { _ = Glibc.fcntl(accepted, F_SETFD, FD_CLOEXEC) }
        if flags & SocketFlags.nonBlocking != 0 {
            _ = Glibc.fcntl(accepted, F_SETFL, Glibc.fcntl(accepted, F_GETFL) | O_NONBLOCK)
        }
        return accepted
    }
}

extension GNUFunctions {
    typealias Flock = @convention(c) (Int32, Int32) -> Int32

    /// `flock(2)`: Swift imports `flock` as the `struct flock` of `fcntl`, hiding the function.
    static let resolvedFlock: Flock? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "flock") else { return nil }
        return unsafeBitCast(symbol, to: Flock.self)
    }()

    static func flock(_ fd: Int32, _ operation: Int32) -> Int32 {
        guard let flock = resolvedFlock else {
            errno = ENOSYS
            return -1
        }
        return flock(fd, operation)
    }
}

/// Socket constants as plain `Int32` (Glibc imports several as enums).
package enum SocketFlags {
    package static let seqPacket = Int32(SOCK_SEQPACKET.rawValue)
    package static let raw = Int32(SOCK_RAW.rawValue)
    package static let closeOnExec = Int32(SOCK_CLOEXEC.rawValue)
    package static let nonBlocking = Int32(SOCK_NONBLOCK.rawValue)
    package static let messageTruncated = Int32(MSG_TRUNC)
    package static let dontWait = Int32(MSG_DONTWAIT)
    package static let noSignal = Int32(MSG_NOSIGNAL)
    /// `POLLRDHUP` (Linux `<poll.h>` under `_GNU_SOURCE`): the peer shut down its writing side.
    package static let pollReadHangUp: Int16 = 0x2000
}
