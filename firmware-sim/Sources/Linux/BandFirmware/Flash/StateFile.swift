#if canImport(Glibc)
import Glibc
#endif
import BandLink
import BandWire

/// The `--state` file: the band's flash image on disk, replaced atomically.
///
/// Saving goes through BandLink's `SystemCalls/replaceFile(at:with:mode:)`: a temporary file
/// beside it (mode 0600 set first), fsynced, renamed over `PATH` (atomic on POSIX file systems),
/// then the directory fsynced so the rename itself survives a power cut: a crash leaves the old
/// image or the new one, never a mix.
public enum StateFile {
    public enum Failure: Error, CustomStringConvertible {
        case system(call: String, path: String, errno: Int32)
        case damaged(path: String, ParseError)

        public var description: String {
            switch self {
            case .system(let call, let path, let errno):
                return "\(call) \(path): \(String(cString: strerror(errno))) (errno \(errno))"
            case .damaged(let path, let error):
                return "\(path): not a usable band state file: \(error)"
            }
        }
    }

    /// The image stored at `path`, or nil when there is no file yet.
    public static func load(_ path: String, capacity: Int) throws(Failure) -> FlashImage? {
        let fd = retrying { open(path, O_RDONLY | O_CLOEXEC) }
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw .system(call: "open", path: path, errno: errno)
        }
        defer { _ = close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { raw in retrying { read(fd, raw.baseAddress, raw.count) } }
            if n < 0 { throw .system(call: "read", path: path, errno: errno) }
            if n == 0 { break }
            bytes += chunk[0..<n]
        }
        let result: Result<FlashImage, ParseError> = bytes.withUnsafeBytes { raw in
            do throws(ParseError) { return .success(try FlashImage(parsing: raw, capacity: capacity)) } catch { return .failure(error) }
        }
        switch result {
        case .success(let image): return image
        case .failure(let error): throw .damaged(path: path, error)
        }
    }

    /// Replaces the file at `path` with `image` (`SystemCalls/replaceFile(at:with:mode:)`).
    public static func save(_ image: FlashImage, to path: String) throws(Failure) {
        if case .failure(let error) = SystemCalls.live.replaceFile(at: path, with: image.serialized(), mode: 0o600) {
            throw .system(call: error.call, path: error.path, errno: error.errno.rawValue)
        }
    }

    /// Repeats a system call interrupted by a signal.
    private static func retrying<T: BinaryInteger>(_ call: () -> T) -> T {
        while true {
            let result = call()
            if result < 0, errno == EINTR { continue }
            return result
        }
    }
}
