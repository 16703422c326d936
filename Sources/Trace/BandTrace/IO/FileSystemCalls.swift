#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The raw system calls trace files use: the bottom of the three layers (raw, `Result` with
/// EINTR retry, public throwing API), as swift-system does it. A value so tests can replace
/// any call (short reads, EINTR, ENOSPC) without touching the file system.
struct FileSystemCalls: Sendable {
    var open: @Sendable (_ path: UnsafePointer<CChar>, _ flags: Int32, _ mode: mode_t) -> Int32
    var read: @Sendable (_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int
    var write: @Sendable (_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int
    var close: @Sendable (_ fd: Int32) -> Int32
    var errno: @Sendable () -> Int32

    static let live = FileSystemCalls(
        open: { path, flags, mode in Glibc.open(path, flags, mode) },
        read: { fd, buffer, count in Glibc.read(fd, buffer, count) },
        write: { fd, buffer, count in Glibc.write(fd, buffer, count) },
        close: { fd in Glibc.close(fd) },
        errno: { Glibc.errno })
}

/// An `errno` value from a failed call.
struct Errno: Error, Hashable, Sendable {
    var rawValue: Int32
}

// The middle layer: one call each, EINTR retried, failures as `Result`.
extension FileSystemCalls {
    func openRetrying(_ path: String, flags: Int32, mode: mode_t = 0o644) -> Result<Int32, Errno> {
        while true {
            let fd = path.withCString { open($0, flags | O_CLOEXEC, mode) }
            if fd >= 0 { return .success(fd) }
            let code = errno()
            if code != EINTR { return .failure(Errno(rawValue: code)) }
        }
    }

    /// Reads up to `buffer.count` bytes; 0 means end of file.
    func readRetrying(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Result<Int, Errno> {
        while true {
            let n = read(fd, buffer.baseAddress, buffer.count)
            if n >= 0 { return .success(n) }
            let code = errno()
            if code != EINTR { return .failure(Errno(rawValue: code)) }
        }
    }

    /// Writes all of `bytes`, continuing after short writes.
    func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Result<Void, Errno> {
        var done = 0
        while done < bytes.count {
            let n = write(fd, bytes.baseAddress! + done, bytes.count - done)
            if n > 0 {
                done += n
            } else if n < 0 {
                let code = errno()
                if code != EINTR { return .failure(Errno(rawValue: code)) }
            } else {
                return .failure(Errno(rawValue: EIO))
            }
        }
        return .success(())
    }

    func closeReportingErrors(_ fd: Int32) -> Result<Void, Errno> {
        // Never retry close on EINTR: on Linux the descriptor is gone either way.
        if close(fd) == 0 { return .success(()) }
        let code = errno()
        return code == EINTR ? .success(()) : .failure(Errno(rawValue: code))
    }
}

func systemErrorDescription(_ code: Int32) -> String {
    String(cString: strerror(code))
}
