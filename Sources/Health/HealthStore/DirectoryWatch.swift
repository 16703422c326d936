#if canImport(Glibc)
import Glibc
#endif
import BandKitSystem

/// An inotify watch on a directory: wakes a waiter when a file in it is written.
///
/// Three layers, as swift-system: the raw calls; `Result<_, Errno>` helpers (BandKitSystem's `valueOrErrno`);
/// a throwing method. Without inotify (other systems, or when the watch cannot be set up) the
/// wait is a plain timed `poll(2)` on nothing, and the caller's periodic re-check does the work.
final class DirectoryWatch {
    private var descriptor: Int32 = -1

    init(directory: String) {
        #if canImport(Glibc)
        let fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard fd >= 0 else { return }
        let mask = UInt32(IN_MODIFY | IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE)
        if inotify_add_watch(fd, directory, mask) < 0 {
            close(fd)
            return
        }
        descriptor = fd
        #endif
    }

    deinit { if descriptor >= 0 { close(descriptor) } }

    /// Layer 2: one `poll(2)`, retried on EINTR.
    private func pollOnce(milliseconds: Int32) -> Result<Bool, Errno> {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return valueOrErrno { poll(&entry, descriptor >= 0 ? 1 : 0, milliseconds) }.map { $0 > 0 }
    }

    /// Layer 2: discards queued events (their content does not matter, only that they came).
    private func drain() {
        guard descriptor >= 0 else { return }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while buffer.withUnsafeMutableBytes({ read(descriptor, $0.baseAddress, $0.count) }) > 0 {}
    }

    /// Layer 3: waits for a write in the directory or the timeout.
    func wait(milliseconds: Int32) throws {
        switch pollOnce(milliseconds: max(0, milliseconds)) {
        case .success(let woke): if woke { drain() }
        case .failure(let error): throw error
        }
    }
}
