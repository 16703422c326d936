#if canImport(Glibc)
import Glibc
#endif
import BandKitSystem

/// An inotify watch on the keystore's directory that says when the keystore file was replaced:
/// `band pair` and `band forget` write it whole and rename it into place, so the watch is on the
/// directory (the file's inode changes with every write) and looks for the file's name.
/// Without inotify the gateway still reloads on SIGHUP.
final class KeystoreWatch {
    /// Readable when events are queued; nil when inotify could not be set up.
    let pollDescriptor: Int32?
    private let fileName: String

    init(keystorePath: String) {
        let slash = keystorePath.lastIndex(of: "/")
        let directory = slash.map { $0 == keystorePath.startIndex ? "/" : String(keystorePath[..<$0]) } ?? "."
        fileName = slash.map { String(keystorePath[keystorePath.index(after: $0)...]) } ?? keystorePath
        let fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard fd >= 0 else {
            pollDescriptor = nil
            return
        }
        let mask = UInt32(IN_MOVED_TO | IN_CLOSE_WRITE | IN_DELETE | IN_CREATE)
        guard inotify_add_watch(fd, directory, mask) >= 0 else {
            _ = SystemCalls.live.close(descriptor: fd)
            pollDescriptor = nil
            return
        }
        pollDescriptor = fd
    }

    /// Reads the queued events; true when one names the keystore file.
    func keystoreChanged() -> Bool {
        guard let fd = pollDescriptor else { return false }
        var changed = false
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            var offset = 0
            // struct inotify_event: wd, mask, cookie, len (4 × 4 bytes), then len bytes of name, NUL padded.
            while offset + 16 <= count {
                let length = Int(buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self) })
                let end = min(count, offset + 16 + length)
                let name = buffer[(offset + 16)..<end].prefix { $0 != 0 }
                if name.elementsEqual(fileName.utf8) { changed = true }
                offset = end
            }
        }
        return changed
    }

    deinit {
        if let pollDescriptor { _ = SystemCalls.live.close(descriptor: pollDescriptor) }
    }
}
