/// Path arithmetic on plain strings (no Foundation), shared by everything that writes files
/// beside others: the keystore, the LE key file, the band's flash state.
public enum FilePaths {
    /// The directory part of `path`: `/a/b` for `/a/b/c`, `/` for `/c`, empty for a bare file
    /// name (as `NSString.deletingLastPathComponent`). Trailing slashes are ignored.
    public static func directory(of path: String) -> String {
        var path = Substring(path)
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
