#if canImport(Glibc)
import Glibc
#endif

/// A `sockaddr_un` for a path, or for a name in Linux's abstract namespace written with a leading
/// `@` (as systemd writes `NOTIFY_SOCKET`): `@name` becomes a NUL byte then `name`, with the
/// address length cut to the name (abstract names are not NUL-terminated).
struct UnixSocketAddress {
    private var storage = sockaddr_un()
    private let length: Int

    /// The longest path or name: `sun_path` less the path's terminating NUL or the name's leading one.
    static let maximumNameBytes = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    /// Nil when `name` is empty, longer than ``maximumNameBytes``, or holds a NUL byte.
    init?(_ name: String) {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty, !bytes.contains(0) else { return nil }
        let abstract = bytes[0] == UInt8(ascii: "@")
        let stored = abstract ? [0] + bytes.dropFirst() : bytes
        guard stored.count - (abstract ? 1 : 0) <= Self.maximumNameBytes, !(abstract && stored.count == 1) else { return nil }
        storage.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &storage.sun_path) { path in
            for (index, byte) in stored.enumerated() { path[index] = byte }
        }
        let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path)!
        length = pathOffset + stored.count + (abstract ? 0 : 1)
    }

    func withBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        withUnsafeBytes(of: storage) { body(UnsafeRawBufferPointer(rebasing: $0[..<length])) }
    }
}
