import Foundation

/// A line on stderr, control characters escaped.
func printError(_ message: String) {
    FileHandle.standardError.write(Data("bandkit-downstream: \(message.escapingControlCharacters)\n".utf8))
}

extension String {
    /// The text with control characters as `\u{…}` escapes: what a trace or a store holds never
    /// reaches a terminal raw.
    var escapingControlCharacters: String {
        var out = ""
        for scalar in unicodeScalars {
            if scalar.value < 0x20 || (0x7F..<0xA0).contains(scalar.value) {
                out += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
