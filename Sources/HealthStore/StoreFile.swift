#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FoundationEssentials

/// Where the store lives and how its file is created.
enum StoreFile {
    /// `BANDKIT_STORE`, else `$XDG_DATA_HOME/bandkit/health.sqlite`, else
    /// `~/.local/share/bandkit/health.sqlite`.
    static func defaultPath(environment: [String: String]) -> String {
        if let path = environment["BANDKIT_STORE"], !path.isEmpty { return path }
        let dataHome: String
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            dataHome = xdg
        } else {
            dataHome = (environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path) + "/.local/share"
        }
        return dataHome + "/bandkit/health.sqlite"
    }

    /// Creates the file with mode 0600 (and missing parent directories with 0700) unless it
    /// exists. SQLite gives its `-wal` and `-shm` files the database file's mode, so health data
    /// is never readable by other users.
    static func createIfMissing(_ path: String) throws(HealthStoreError) {
        if access(path, F_OK) == 0 { return }
        let directory = directory(of: path)
        if !directory.isEmpty, access(directory, F_OK) != 0 {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                        attributes: [.posixPermissions: 0o700])
            } catch {
                throw .file(path: directory, reason: "cannot create directory: \(error)")
            }
        }
        let descriptor = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        if descriptor < 0 {
            let code = errno
            if code == EEXIST { return }  // another process won the race; fine
            throw .file(path: path, reason: "cannot create: \(String(cString: strerror(code)))")
        }
        close(descriptor)
    }

    /// The directory part of `path`: `/a/b` for `/a/b/c`, `/` for `/c`, empty for a bare file
    /// name (as `NSString.deletingLastPathComponent`).
    static func directory(of path: String) -> String {
        var path = Substring(path)
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
