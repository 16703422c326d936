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

    /// Makes sure the store file at `path` exists (unless `create` is false) and is private.
    ///
    /// A missing file is created with mode 0600 (missing parent directories 0700), also when
    /// `path` is a symbolic link to a file that does not exist yet: the link's target is
    /// created, with `O_NOFOLLOW` so that nothing else is followed on the way. SQLite gives its
    /// `-wal` and `-shm` files the database file's mode, so health data is never readable by
    /// other users.
    ///
    /// An existing store (or `-wal` file) that group or others may access is refused, as the
    /// keystore and ssh refuse such a private file: health data is as private as keys. The
    /// message names the file, its mode and the fix (`chmod 600`).
    static func prepare(_ path: String, create: Bool) throws(HealthStoreError) {
        let target = try resolvingLinks(path)
        var info = stat()
        if stat(target, &info) != 0 {
            let code = errno
            guard code == ENOENT else { throw .file(path: path, reason: "cannot stat: \(String(cString: strerror(code)))") }
            guard create else { throw .file(path: path, reason: "does not exist (a read-only command opens an existing store; 'health import' or 'band sync' creates it)") }
            try createPrivately(target, named: path)
            return
        }
        try checkPrivate(target, info: info, named: path)
        var wal = stat()
        if stat(target + "-wal", &wal) == 0 { try checkPrivate(target + "-wal", info: wal, named: path + "-wal") }
    }

    private static func checkPrivate(_ file: String, info: stat, named name: String) throws(HealthStoreError) {
        guard info.st_mode & S_IFMT == S_IFREG else { throw .file(path: name, reason: "is not a regular file") }
        guard info.st_mode & 0o077 == 0 else {
            let mode = String(info.st_mode & 0o777, radix: 8)
            let fix = file == name ? "chmod 600 \(name)" : "chmod 600 \(file) (the file \(name) links to)"
            throw .file(path: name, reason: "is accessible by group or others (mode \(mode)); health data is private: run \(fix)")
        }
    }

    /// The file a chain of symbolic links ends at (the path itself when it is no link), even
    /// when that file does not exist yet; relative targets are read from the link's directory.
    static func resolvingLinks(_ path: String) throws(HealthStoreError) -> String {
        var current = path
        for _ in 0..<40 {  // Linux's MAXSYMLINKS
            var info = stat()
            guard lstat(current, &info) == 0, info.st_mode & S_IFMT == S_IFLNK else { return current }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let length = readlink(current, &buffer, buffer.count - 1)
            guard length > 0 else { throw .file(path: path, reason: "cannot read the link \(current): \(String(cString: strerror(errno)))") }
            let target = String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let base = directory(of: current)
            current = target.hasPrefix("/") || base.isEmpty ? target : (base == "/" ? "/" : base + "/") + target
        }
        throw .file(path: path, reason: "too many levels of symbolic links")
    }

    private static func createPrivately(_ target: String, named name: String) throws(HealthStoreError) {
        let directory = directory(of: target)
        if !directory.isEmpty, access(directory, F_OK) != 0 {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                        attributes: [.posixPermissions: 0o700])
            } catch {
                throw .file(path: directory, reason: "cannot create directory: \(error)")
            }
        }
        let descriptor = open(target, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0o600)
        if descriptor < 0 {
            let code = errno
            if code == EEXIST {  // created meanwhile (another process, or a link put there): check what is there now
                var info = stat()
                guard lstat(target, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
                    throw .file(path: name, reason: "\(target) appeared as something other than a regular file while the store was being created")
                }
                return try checkPrivate(target, info: info, named: name)
            }
            throw .file(path: name, reason: "cannot create\(target == name ? "" : " " + target): \(String(cString: strerror(code)))")
        }
        defer { close(descriptor) }
        // O_CREAT's mode passes through the umask (only ever stricter); make it exactly 0600.
        guard fchmod(descriptor, 0o600) == 0 else {
            throw .file(path: name, reason: "cannot set mode 0600: \(String(cString: strerror(errno)))")
        }
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
