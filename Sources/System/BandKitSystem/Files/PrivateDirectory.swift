#if canImport(Glibc)
import Glibc
#endif

/// A directory only its owner may enter, made where sockets and secrets go (a listener's socket
/// directory, a service's control socket directory).
public enum PrivateDirectory {
    /// Why ``create(_:system:)`` failed: the call, the path it failed on, and the error.
    public struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
        /// `mkdir` or `lstat`.
        public let call: String
        /// The level that could not be made or checked (a parent of the directory asked for, or itself).
        public let path: String
        public let error: Errno
        public var description: String { "\(call) \(path): \(error)" }
    }

    /// Creates `directory` and every missing level above it, each with mode 0700. Levels that
    /// exist are kept as they are; anything at `directory` that is not a directory (a symbolic
    /// link included: another user could have planted it in `/tmp`) is an error (`ENOTDIR`), as is a
    /// level above it that is neither a directory nor a link to one.
    public static func create(_ directory: String, system: SystemCalls = .live) -> Result<Void, Failure> {
        var missing: [String] = []
        var level = directory
        while !level.isEmpty {
            switch system.fileStatus(path: level) {
            case .success(let status) where status.st_mode & S_IFMT == S_IFDIR:
                level = ""
            case .success(let status) where status.st_mode & S_IFMT == S_IFLNK && level != directory && isDirectory(following: level):
                level = ""  // a level above, such as /var/run → /run
            case .success:
                // The directory asked for, or a level above it, is a file or a socket.
                return .failure(Failure(call: "mkdir", path: level, error: .notDirectory))
            case .failure(.noSuchFileOrDirectory), .failure(.notDirectory):
                // Missing, or below something that is not a directory: the level above says which.
                missing.append(level)
                let parent = FilePaths.directory(of: level)
                level = parent == level ? "" : parent
            case .failure(let error):
                return .failure(Failure(call: "lstat", path: level, error: error))
            }
        }
        for level in missing.reversed() {
            switch system.makeDirectory(path: level, mode: 0o700) {
            case .success: continue
            case .failure(.fileExists):
                // Made meanwhile by someone else: fine if it is a directory.
                guard case .success(let status) = system.fileStatus(path: level), status.st_mode & S_IFMT == S_IFDIR else {
                    return .failure(Failure(call: "mkdir", path: level, error: .notDirectory))
                }
            case .failure(let error):
                return .failure(Failure(call: "mkdir", path: level, error: error))
            }
        }
        return .success(())
    }

    private static func isDirectory(following path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
    }
}
