#if canImport(Glibc)
import Glibc
#endif

/// The process's environment variables.
public enum ProcessEnvironment {
    /// The process environment as a dictionary (an entry without `=` is skipped).
    public static func current() -> [String: String] {
        var result: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if let equals = text.firstIndex(of: "=") {
                result[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            entry += 1
        }
        return result
    }
}
