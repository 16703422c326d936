#if canImport(Glibc)
import Glibc
#endif
import BandKitSystem

/// A Unix `SOCK_SEQPACKET` server socket: `bandsim serve` listens here and hands each
/// accepted connection to its GATT server as a ``SeqPacketLink``.
///
/// A socket file left behind by a crashed server is removed, but only after proving it is
/// stale (it is a socket and connecting to it is refused); a live server's socket or any
/// other kind of file is never deleted. The listener unlinks its own socket file on close.
public final class SeqPacketListener {
    public let path: String
    private var descriptor: Int32
    private let system: SystemCalls

    /// Binds and listens at `path` (its directory must exist; see ``SocketPath/prepareDirectory(_:system:)``).
    public init(path: String, backlog: Int32 = 4, system: SystemCalls = .live) throws(LinkError) {
        let address = try UnixSocketAddress.link(path: path)
        self.path = path
        self.system = system
        switch system.socket(domain: AF_UNIX, type: SocketFlags.seqPacket | SocketFlags.closeOnExec, protocol: 0) {
        case .success(let fd): descriptor = fd
        case .failure(let error): throw .system("socket", error)
        }
        do throws(LinkError) {
            var bound = address.withBytes { system.bind(descriptor, address: $0) }
            if case .failure(.addressInUse) = bound {
                try Self.removeStaleSocket(at: address, system: system)
                bound = address.withBytes { system.bind(descriptor, address: $0) }
            }
            if case .failure(let error) = bound { throw .system("bind \(path)", error) }
            if case .failure(let error) = system.listen(descriptor, backlog: backlog) {
                _ = system.unlink(path: path)
                throw .system("listen", error)
            }
        } catch {
            _ = system.close(descriptor: descriptor)
            descriptor = -1
            throw error
        }
    }

    /// Becomes readable when a connection is waiting.
    public var pollDescriptor: Int32 { descriptor }

    /// Waits up to `timeout` (nil: forever) for a connection; nil if none came.
    public func accept(timeout: Duration?, mtu: Int = 23) throws(LinkError) -> SeqPacketLink? {
        guard descriptor >= 0 else { throw .closed }
        let deadline = timeout.map { ContinuousClock.now.advanced(by: $0) }
        while true {
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let remaining = deadline.map { max(.zero, $0 - ContinuousClock.now) }
            switch system.pollOne(&entry, timeout: remaining) {
            case .success(0): return nil
            case .success: break
            case .failure(let error): throw .system("poll", error)
            }
            switch system.accept(descriptor, flags: SocketFlags.closeOnExec | SocketFlags.nonBlocking) {
            case .success(let fd):
                return SeqPacketLink(adopting: fd, mtu: mtu, system: system)
            case .failure(let error) where error == .wouldBlock || error == .connectionAborted:
                continue  // the client gave up between poll and accept
            case .failure(let error):
                throw .system("accept", error)
            }
        }
    }

    /// Stops listening and removes the socket file. Idempotent.
    public func close() {
        guard descriptor >= 0 else { return }
        _ = system.close(descriptor: descriptor)
        descriptor = -1
        _ = system.unlink(path: path)
    }

    deinit { close() }

    /// Unlinks `address.name` if it is a socket nobody is listening on; otherwise explains why not.
    private static func removeStaleSocket(at address: UnixSocketAddress, system: SystemCalls) throws(LinkError) {
        switch system.fileStatus(path: address.name) {
        case .success(let status) where status.st_mode & S_IFMT == S_IFSOCK: break
        case .success: throw .system("bind \(address.name) (exists and is not a socket)", .addressInUse)
        case .failure(.noSuchFileOrDirectory): return  // gone meanwhile: just retry the bind
        case .failure(let error): throw .system("lstat \(address.name)", error)
        }
        guard case .success(let probe) = system.socket(domain: AF_UNIX, type: SocketFlags.seqPacket | SocketFlags.closeOnExec, protocol: 0) else {
            throw .system("socket", .current)
        }
        defer { _ = system.close(descriptor: probe) }
        switch address.withBytes({ system.connect(probe, address: $0) }) {
        case .success, .failure(.interrupted), .failure(.inProgress), .failure(.wouldBlock):
            throw .system("bind \(address.name) (another server is listening there)", .addressInUse)
        case .failure(.connectionRefused):
            if case .failure(let error) = system.unlink(path: address.name), error != .noSuchFileOrDirectory {
                throw .system("unlink \(address.name)", error)
            }
        case .failure(let error):
            throw .system("connect \(address.name)", error)
        }
    }
}
