/// JSON string literals (RFC 8259 §7) for the text BandKit writes: store metadata, the reader's
/// NDJSON events. The inverse of ``JSONLineParser``'s string reading.
public enum JSONString {
    /// Appends `text` as a quoted JSON string: `"`, `\` and control characters escaped
    /// (`\n`, `\r`, `\t` by name, the rest as `\u00XX`), everything else as it is.
    public static func appendQuoted(_ text: String, to out: inout String) {
        out += "\""
        // Nearly every value needs no escaping: append it whole instead of scalar by scalar.
        if !text.utf8.contains(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 < 0x20 }) {
            out += text
            out += "\""
            return
        }
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                out += scalar.value < 0x10 ? "\\u000" : "\\u001"
                out += String(scalar.value & 0xF, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }

    /// `text` as a quoted JSON string.
    public static func quoted(_ text: String) -> String {
        var out = ""
        appendQuoted(text, to: &out)
        return out
    }
}
