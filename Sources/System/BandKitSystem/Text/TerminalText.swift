/// Text from outside the program (a source name, a band's advertised name, a device string, a
/// file path) made safe to print on a terminal or in a line-oriented log: the one escaping
/// function of every text output of `health`, `band` and `bandsim`, and of the gateway's log
/// lines and service status.
///
/// Control characters never reach the terminal raw: an escape sequence cannot repaint the
/// screen, and a newline cannot forge a line of output (`Band\e[2J\n synced 99999 minutes`
/// prints as `Band\e[2J\n synced 99999 minutes`, one line). Escaped, as C and `printf %q` spell them:
///
/// | input | printed |
/// |---|---|
/// | `\` | `\\` (so an escape is never ambiguous with text that looks like one) |
/// | newline, CR, tab, ESC | `\n`, `\r`, `\t`, `\e` |
/// | other C0 controls, DEL | `\xNN` |
/// | C1 controls U+0080–U+009F (CSI is U+009B) | `\u{NN}` |
/// | bidirectional overrides and isolates (U+202A–U+202E, U+2066–U+2069) | `\u{NNNN}` |
///
/// | `"`, only with `quotes: true` (inside a quoted log value) | `\"` |
///
/// Everything else, non-ASCII letters included, is printed as it is.
public enum TerminalText {
    public static func escaped(_ text: String, quotes: Bool = false) -> String {
        guard text.unicodeScalars.contains(where: { needsEscape($0) || (quotes && $0 == "\"") }) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            guard needsEscape(scalar) || (quotes && scalar == "\"") else {
                out.unicodeScalars.append(scalar)
                continue
            }
            switch scalar.value {
            case 0x5C: out += "\\\\"
            case 0x22: out += "\\\""
            case 0x0A: out += "\\n"
            case 0x0D: out += "\\r"
            case 0x09: out += "\\t"
            case 0x1B: out += "\\e"
            case 0..<0x20, 0x7F: out += "\\x" + hex(scalar.value, digits: 2)
            default: out += "\\u{" + hex(scalar.value, digits: scalar.value > 0xFF ? 4 : 2) + "}"
            }
        }
        return out
    }

    /// Whether `scalar` is printed escaped.
    public static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x5C, 0x7F, 0x80..<0xA0, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// A whole message for standard error: like ``escaped(_:quotes:)``, but its own line breaks and
    /// tabs (multi-line help, indented lists) are kept and backslashes are left alone, since the
    /// fields of a message were escaped where they were put in.
    public static func message(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { needsEscape($0) && !isLayout($0) }) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            if needsEscape(scalar), !isLayout(scalar) {
                out += escaped(String(scalar))
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// `text` cut to at most `maximumBytes` bytes of UTF-8 at a scalar boundary, with `…` at the
    /// end when cut (counted in the limit): a bounded line from unbounded input.
    public static func truncated(_ text: String, maximumBytes: Int) -> String {
        guard text.utf8.count > maximumBytes else { return text }
        let ellipsis = "…"
        var kept = ""
        var used = ellipsis.utf8.count
        for scalar in text.unicodeScalars {
            let size = String(scalar).utf8.count
            guard used + size <= maximumBytes else { break }
            kept.unicodeScalars.append(scalar)
            used += size
        }
        return kept + ellipsis
    }

    private static func isLayout(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "\n" || scalar == "\t" || scalar == "\\"
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
