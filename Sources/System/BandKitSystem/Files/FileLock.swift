#if canImport(Glibc)
import Glibc
#endif

extension SystemCalls {
    /// Runs `body` holding an exclusive `flock` on `lockPath` (created 0600, empty, never
    /// renamed, so every process locks the same inode) — the one way BandKit serialises a
    /// load–modify–replace of a small file that several processes may change at once (the
    /// keystore, the LE key file): without it two `band pair` runs both load the old file and
    /// the second rename drops the first one's key. The lock is released when `body` returns or
    /// throws, and by the kernel if the process dies. Readers need no lock:
    /// ``replaceFile(at:with:mode:)`` makes every version they can see whole.
    ///
    /// Locks taken through separate opens of the file exclude each other also inside one
    /// process (a `flock` belongs to the open file description), so threads are covered too.
    public func withExclusiveLock<T, Failure: Error>(
        _ lockPath: String, _ body: () throws(Failure) -> T
    ) throws(LockedFileError<Failure>) -> T {
        let fd: Int32
        switch open(path: lockPath, flags: O_RDWR | O_CREAT | O_NOFOLLOW, mode: 0o600) {
        case .success(let opened): fd = opened
        case .failure(let error): throw .lock(FileError(call: "open", path: lockPath, errno: error))
        }
        defer { _ = close(descriptor: fd) }
        if case .failure(let error) = lockFile(fd, LOCK_EX) {
            throw .lock(FileError(call: "flock", path: lockPath, errno: error))
        }
        do throws(Failure) {
            return try body()
        } catch {
            throw .body(error)
        }
    }
}

/// ``SystemCalls/withExclusiveLock(_:_:)`` failed: taking the lock, or the work done under it.
public enum LockedFileError<Failure: Error>: Error {
    case lock(FileError)
    case body(Failure)
}
