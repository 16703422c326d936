#if canImport(Glibc)
import Glibc
#endif
import BandKitSystem

/// Where `bandsim serve` listens and `band --socket` connects by default.
public enum SocketPath {
    /// `$XDG_RUNTIME_DIR/bandkit/band.sock` (the per-user runtime directory, mode 0700 by
    /// specification), else `/tmp/bandkit-<uid>/band.sock`.
    public static func defaultPath(environment: [String: String] = currentEnvironment()) -> String {
        "\(defaultDirectory(environment: environment))/band.sock"
    }

    /// The directory holding the default socket (see ``defaultPath(environment:)``).
    public static func defaultDirectory(environment: [String: String] = currentEnvironment()) -> String {
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
            return "\(runtime)/bandkit"
        }
        return "/tmp/bandkit-\(getuid())"
    }

    /// The directory a socket at `socketPath` lives in (`.` for a bare name): what
    /// ``prepareDirectory(_:system:)`` makes before a listener binds there.
    public static func directory(of socketPath: String) -> String {
        let directory = FilePaths.directory(of: socketPath)
        return directory.isEmpty ? "." : directory
    }

    /// Creates `directory` and its missing parents (mode 0700) if missing. An existing directory
    /// is kept as it is; anything else at that path is an error (`ENOTDIR`). See
    /// `PrivateDirectory.create(_:system:)` (BandKitSystem).
    public static func prepareDirectory(_ directory: String, system: SystemCalls = .live) throws(LinkError) {
        if case .failure(let failure) = PrivateDirectory.create(directory, system: system) {
            throw .system("\(failure.call) \(failure.path)", failure.error)
        }
    }

    /// The process environment as a dictionary.
    public static func currentEnvironment() -> [String: String] { ProcessEnvironment.current() }
}
