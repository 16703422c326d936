import Glibc

/// A fresh private directory per test (removed with everything in it afterwards).
public final class TemporaryDirectory {
    public let path: String
    public init() {
        var template = Array("/tmp/bandkit-link-test.XXXXXX".utf8CString)
        path = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
    }
    deinit {
        if let directory = opendir(path) {
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if name != "." && name != ".." { unlink("\(path)/\(name)") }
            }
            closedir(directory)
        }
        rmdir(path)
    }
    public func exists(_ name: String) -> Bool { access("\(path)/\(name)", F_OK) == 0 }
}
