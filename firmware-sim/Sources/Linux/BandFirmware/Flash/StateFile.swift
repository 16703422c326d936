#if canImport(Glibc)
import Glibc
#endif
import BandKitSystem
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
        let system = SystemCalls.live
        let fd: Int32
        switch system.open(path: path, flags: O_RDONLY) {
        case .success(let opened): fd = opened
        case .failure(.noSuchFileOrDirectory): return nil
        case .failure(let error): throw .system(call: "open", path: path, errno: error.rawValue)
        }
        defer { _ = system.close(descriptor: fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            switch chunk.withUnsafeMutableBytes({ system.read(fd, into: $0) }) {
            case .success(0): break
            case .success(let n): bytes += chunk[0..<n]; continue
            case .failure(let error): throw .system(call: "read", path: path, errno: error.rawValue)
            }
            break
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
}
