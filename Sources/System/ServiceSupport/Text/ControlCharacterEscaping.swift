/// Text from outside the program made one safe line: for STATUS=, log lines and their fields.
///
/// `\` as `\\` (so an escape is never ambiguous), newline, CR and tab as `\n`, `\r`, `\t`, the
/// other C0 controls and DEL as `\xNN`, the C1 controls (U+0080–U+009F) as `\u{NN}`, and with
/// `quotes` a `"` as `\"` (inside a quoted log value). A line cannot be forged or split, and no
/// terminal escape reaches a console that shows the journal.
enum ControlCharacterEscaping {
    static func escaped(_ text: String, quotes: Bool = false) -> String {
        guard text.unicodeScalars.contains(where: { needsEscape($0, quotes: quotes) }) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            guard needsEscape(scalar, quotes: quotes) else {
                out.unicodeScalars.append(scalar)
                continue
            }
            switch scalar.value {
            case 0x5C: out += "\\\\"
            case 0x22: out += "\\\""
            case 0x0A: out += "\\n"
            case 0x0D: out += "\\r"
            case 0x09: out += "\\t"
            case 0..<0x20, 0x7F: out += "\\x" + hex(scalar.value)
            default: out += "\\u{" + hex(scalar.value) + "}"
            }
        }
        return out
    }

    static func needsEscape(_ scalar: Unicode.Scalar, quotes: Bool) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x5C, 0x7F, 0x80..<0xA0: true
        case 0x22: quotes
        default: false
        }
    }

    private static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return digits.count < 2 ? "0" + digits : digits
    }

    /// `text` cut to at most `maximumBytes` bytes of UTF-8 at a scalar boundary, with `…` at the
    /// end when cut (counted in the limit).
    static func truncated(_ text: String, maximumBytes: Int) -> String {
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
}
