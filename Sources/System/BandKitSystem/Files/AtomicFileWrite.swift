#if canImport(Glibc)
import Glibc
#endif

/// A file operation that failed: the call, the path it acted on, and the kernel's reason.
public struct FileError: Error, Equatable, Sendable, CustomStringConvertible {
    public var call: String
    public var path: String
    public var errno: Errno

    public init(call: String, path: String, errno: Errno) {
        self.call = call
        self.path = path
        self.errno = errno
    }

    public var description: String { "\(call) \(path) failed: \(errno)" }
}

extension SystemCalls {
    /// Replaces the file at `path` with `bytes`, atomically and durably — the one way BandKit
    /// writes a small file that must never be seen half-written or lost after it was reported
    /// saved (the keystore, the LE key file, the band's flash image):
    ///
    /// 1. create `PATH.tmp.PID` beside it (same file system, so the rename is atomic; the pid
    ///    keeps two processes' temporaries apart — writers inside one process serialise, e.g.
    ///    under ``withExclusiveLock(_:_:)``), never following a symlink there;
    /// 2. set its mode with `fchmod` *before* any byte is written or the file is renamed, so the
    ///    umask cannot change it and the secret is never readable by others, not for an instant;
    /// 3. write everything, `fsync` it, close it;
    /// 4. `rename` it over `path`: a reader (or a crash) sees the old file or the new one;
    /// 5. `fsync` the directory, so the rename itself survives a power cut.
    ///
    /// Any failure before the rename removes the temporary file and leaves `path` untouched.
    /// A failing directory fsync is reported too: the new file is in place but not yet durable.
    public func replaceFile(at path: String, with bytes: [UInt8], mode: mode_t) -> Result<Void, FileError> {
        bytes.withUnsafeBytes { replaceFile(at: path, withContentsOf: $0, mode: mode) }
    }

    /// ``replaceFile(at:with:mode:)`` for bytes in a buffer the caller reuses.
    public func replaceFile(at path: String, withContentsOf bytes: UnsafeRawBufferPointer, mode: mode_t) -> Result<Void, FileError> {
        let temporary = "\(path).tmp.\(getpid())"
        let fd: Int32
        switch open(path: temporary, flags: O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, mode: mode) {
        case .success(let opened): fd = opened
        case .failure(let error): return .failure(FileError(call: "open", path: temporary, errno: error))
        }
        var failure: FileError?
        if case .failure(let error) = changeMode(fd, mode) {
            failure = FileError(call: "fchmod", path: temporary, errno: error)
        } else if case .failure(let error) = writeAll(fd, bytes) {
            failure = FileError(call: "write", path: temporary, errno: error)
        } else if case .failure(let error) = synchronize(fd) {
            failure = FileError(call: "fsync", path: temporary, errno: error)
        }
        if case .failure(let error) = close(descriptor: fd), failure == nil {
            failure = FileError(call: "close", path: temporary, errno: error)
        }
        if failure == nil, case .failure(let error) = rename(from: temporary, to: path) {
            failure = FileError(call: "rename", path: path, errno: error)
        }
        if let failure {
            _ = unlink(path: temporary)
            return .failure(failure)
        }
        return synchronizeDirectory(of: path)
    }

    /// `fsync` of the directory holding `path`, making a rename or creation in it durable.
    public func synchronizeDirectory(of path: String) -> Result<Void, FileError> {
        let parent = FilePaths.directory(of: path)
        let directory = parent.isEmpty ? "." : parent
        let fd: Int32
        switch open(path: directory, flags: O_RDONLY | O_DIRECTORY) {
        case .success(let opened): fd = opened
        case .failure(let error): return .failure(FileError(call: "open", path: directory, errno: error))
        }
        defer { _ = close(descriptor: fd) }
        return synchronize(fd).mapError { FileError(call: "fsync", path: directory, errno: $0) }
    }
}
