#if canImport(Glibc)
import Glibc
#endif

/// A filesystem `sockaddr_un`, checked for length (108 bytes including the NUL on Linux).
struct UnixSocketAddress {
    private var storage = sockaddr_un()
    let path: String

    init(path: String) throws(LinkError) {
        self.path = path
        let capacity = MemoryLayout.size(ofValue: storage.sun_path)
        let utf8 = Array(path.utf8)
        guard !utf8.isEmpty, !utf8.contains(0) else { throw .system("bind", .invalidArgument) }
        guard utf8.count < capacity else { throw .system("socket path", .nameTooLong) }
        storage.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &storage.sun_path) { raw in
            raw.copyBytes(from: utf8)
        }
    }

    /// The address as the kernel wants it: family plus path plus its NUL.
    func withRawAddress<T>(_ body: (UnsafeRawBufferPointer) -> T) -> T {
        withUnsafeBytes(of: storage) { raw in
            let length = MemoryLayout<sa_family_t>.size + path.utf8.count + 1
            return body(UnsafeRawBufferPointer(rebasing: raw[0..<length]))
        }
    }
}
