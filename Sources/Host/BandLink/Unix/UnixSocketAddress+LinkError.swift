import BandKitSystem

extension UnixSocketAddress {
    /// `path` (a file system path, never an abstract name) as the link's socket address, or the
    /// error `bind` and `connect` would give for it.
    static func link(path: String) throws(LinkError) -> UnixSocketAddress {
        if let address = UnixSocketAddress(path: path) { return address }
        if path.isEmpty || path.utf8.contains(0) { throw .system("bind", .invalidArgument) }
        throw .system("socket path", .nameTooLong)
    }
}
