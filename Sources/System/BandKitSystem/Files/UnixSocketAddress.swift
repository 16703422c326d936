#if canImport(Glibc)
import Glibc
#endif

/// A `sockaddr_un`, checked for length: the one Unix socket address of the project (`bandsim
/// serve`'s link sockets, a service's control socket, systemd's `NOTIFY_SOCKET`).
///
/// ``init(path:)`` takes a file system path as it is. ``init(name:)`` also takes a name in Linux's
/// abstract namespace written with a leading `@` (as systemd writes `NOTIFY_SOCKET`): `@name`
/// becomes a NUL byte then `name`, with the address length cut to the name (abstract names are
/// not NUL-terminated).
public struct UnixSocketAddress: Sendable {
    private var storage = sockaddr_un()
    private let length: Int
    /// The path or `@name` as given.
    public let name: String

    /// The longest path or name: `sun_path` less the path's terminating NUL or the name's leading one.
    public static let maximumNameBytes = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    /// A file system path (a leading `@` is part of the file name). Nil when `path` is empty,
    /// longer than ``maximumNameBytes``, or holds a NUL byte.
    public init?(path: String) {
        self.init(name: path, abstractAllowed: false)
    }

    /// A path, or `@name` in the abstract namespace. Nil when `name` is empty, longer than
    /// ``maximumNameBytes`` (the `@` not counted), holds a NUL byte, or is `@` alone.
    public init?(name: String) {
        self.init(name: name, abstractAllowed: true)
    }

    private init?(name: String, abstractAllowed: Bool) {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty, !bytes.contains(0) else { return nil }
        let abstract = abstractAllowed && bytes[0] == UInt8(ascii: "@")
        let stored = abstract ? [0] + bytes.dropFirst() : bytes
        guard stored.count - (abstract ? 1 : 0) <= Self.maximumNameBytes, !(abstract && stored.count == 1) else { return nil }
        self.name = name
        storage.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &storage.sun_path) { path in
            for (index, byte) in stored.enumerated() { path[index] = byte }
        }
        let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path)!
        length = pathOffset + stored.count + (abstract ? 0 : 1)
    }

    /// The address as the kernel wants it (`bind`, `connect`, `sendto`): family, path and its
    /// NUL, or family, NUL and the abstract name.
    public func withBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        withUnsafeBytes(of: storage) { body(UnsafeRawBufferPointer(rebasing: $0[..<length])) }
    }
}
