#if canImport(Glibc)
import Glibc
#endif
import BandKitSystem

/// One gateway per keystore: an exclusive, non-blocking `flock` on `<keystore>.gateway`, held
/// for the process's life (the kernel releases it when the process dies, SIGKILL included), with
/// the holder's PID written in the file so a second gateway can say whom it yields to.
public final class GatewayLock {
    public let path: String
    private let descriptor: Int32

    /// Another gateway holds the lock (`pid`: the PID it wrote, nil if unreadable), or the lock
    /// file could not be opened.
    public enum Failure: Error, CustomStringConvertible {
        case held(path: String, pid: Int32?)
        case system(FileError)

        public var description: String {
            switch self {
            case .held(let path, let pid):
                "another gateway (PID \(pid.map(String.init) ?? "unknown")) serves this keystore; it holds \(path)"
            case .system(let error): "\(error)"
            }
        }
    }

    /// The lock file for a keystore.
    public static func path(keystore: String) -> String { keystore + ".gateway" }

    public init(keystorePath: String) throws(Failure) {
        let system = SystemCalls.live
        path = Self.path(keystore: keystorePath)
        let fd: Int32
        switch system.open(path: path, flags: O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, mode: 0o600) {
        case .success(let opened): fd = opened
        case .failure(let error): throw .system(FileError(call: "open", path: path, errno: error))
        }
        if case .failure(let error) = system.lockFile(fd, LOCK_EX | LOCK_NB) {
            defer { _ = system.close(descriptor: fd) }
            guard error == .wouldBlock else { throw .system(FileError(call: "flock", path: path, errno: error)) }
            var buffer = [UInt8](repeating: 0, count: 32)
            let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
            let text = count > 0 ? String(decoding: buffer[0..<count], as: UTF8.self) : ""
            throw .held(path: path, pid: Int32(text.split(separator: "\n").first ?? ""))
        }
        descriptor = fd
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
    }

    deinit { _ = SystemCalls.live.close(descriptor: descriptor) }
}
