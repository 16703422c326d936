#if canImport(Glibc)
import Glibc
#endif

/// BandKit's one source of unpredictable bytes: the kernel's CSPRNG through `getrandom(2)`.
///
/// Everything that must not be guessed draws from here — pairing keys and authentication
/// challenges, the band's keys, the random part of sample identifiers (HealthModel's UUIDv7).
/// In the system layer, below both the Band and the Health modules, because both need it and
/// neither may import the other (docs/architecture.md). Everything else in the simulator draws
/// from seeded PRNGs so runs are reproducible.
///
/// `getrandom` with no flags blocks only until the kernel's pool is first initialised (early
/// boot) and then never; it is interrupted by signals (retried) and may return fewer bytes than
/// asked for large requests (continued). On a kernel without the call (`ENOSYS`, before 3.17)
/// the same pool is read through `/dev/urandom`.
public enum KernelRandom {
    /// Fills `buffer` with random bytes.
    public static func fill(_ buffer: UnsafeMutableRawBufferPointer) throws(RandomSourceError) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        var filled = 0
        while filled < buffer.count {
            switch valueOrErrno({ getrandom(base + filled, buffer.count - filled) }) {
            case .success(0):
                throw RandomSourceError(call: "getrandom", errno: EIO)
            case .success(let count):
                filled += count
            case .failure(.notImplemented):
                try readDeviceRandom(UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
                return
            case .failure(let error):
                throw RandomSourceError(call: "getrandom", errno: error.rawValue)
            }
        }
    }

    /// `count` random bytes as an array (cold paths).
    public static func bytes(count: Int) throws(RandomSourceError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        let result: Result<Void, RandomSourceError> = out.withUnsafeMutableBytes { raw in
            do throws(RandomSourceError) { try fill(raw); return .success(()) } catch { return .failure(error) }
        }
        try result.get()
        return out
    }

    private static func readDeviceRandom(_ buffer: UnsafeMutableRawBufferPointer) throws(RandomSourceError) {
        let system = SystemCalls.live
        let fd: Int32
        switch system.open(path: "/dev/urandom", flags: O_RDONLY) {
        case .success(let opened): fd = opened
        case .failure(let error): throw RandomSourceError(call: "open /dev/urandom", errno: error.rawValue)
        }
        defer { _ = system.close(descriptor: fd) }
        var filled = 0
        while filled < buffer.count {
            switch system.read(fd, into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...])) {
            case .success(0): throw RandomSourceError(call: "read /dev/urandom", errno: EIO)
            case .success(let count): filled += count
            case .failure(let error): throw RandomSourceError(call: "read /dev/urandom", errno: error.rawValue)
            }
        }
    }

    typealias GetRandom = @convention(c) (UnsafeMutableRawPointer?, Int, UInt32) -> Int

    /// Swift's Glibc module does not export `<sys/random.h>`: the call is resolved by name once.
    private static let resolvedGetRandom: GetRandom? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "getrandom") else { return nil }
        return unsafeBitCast(symbol, to: GetRandom.self)
    }()

    private static func getrandom(_ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
        guard let call = resolvedGetRandom else {
            errno = ENOSYS
            return -1
        }
        return call(buffer, count, 0)
    }
}

/// The kernel's random source failed: which call, and the errno.
public struct RandomSourceError: Error, Equatable, Sendable, CustomStringConvertible {
    public var call: String
    public var errno: Int32

    public var description: String { "\(call) failed: \(Errno(rawValue: errno))" }
}
