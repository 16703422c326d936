/// Where a JSON text first breaks the grammar (RFC 8259), as line and column: the decoder only
/// says "not valid JSON", and a person fixing a hand-edited keystore needs the place.
///
/// A recursive-descent recogniser that builds nothing; nesting is bounded (``maximumDepth``) so a
/// file of ten thousand `[` cannot exhaust the stack.
struct JSONSyntaxLocation: Equatable, CustomStringConvertible {
    /// 1-based.
    var line: Int
    /// 1-based, in bytes.
    var column: Int
    /// 0-based byte offset.
    var offset: Int

    static let maximumDepth = 512

    var description: String { "line \(line), column \(column) (byte \(offset))" }

    /// The first place `bytes` is not JSON; nil when it is.
    static func firstError(in bytes: [UInt8]) -> JSONSyntaxLocation? {
        var scanner = Scanner(bytes: bytes)
        if scanner.value(depth: 0), scanner.skipSpace() == nil { return nil }
        return scanner.location(of: scanner.position)
    }

    private struct Scanner {
        let bytes: [UInt8]
        var position = 0

        func location(of offset: Int) -> JSONSyntaxLocation {
            var line = 1, column = 1
            for byte in bytes[..<min(offset, bytes.count)] {
                if byte == 0x0A { line += 1; column = 1 } else { column += 1 }
            }
            return JSONSyntaxLocation(line: line, column: column, offset: offset)
        }

        /// Skips whitespace; the next byte, nil at the end.
        mutating func skipSpace() -> UInt8? {
            while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
            return position < bytes.count ? bytes[position] : nil
        }

        mutating func value(depth: Int) -> Bool {
            guard depth < JSONSyntaxLocation.maximumDepth, let byte = skipSpace() else { return false }
            switch byte {
            case UInt8(ascii: "{"): return object(depth: depth + 1)
            case UInt8(ascii: "["): return array(depth: depth + 1)
            case UInt8(ascii: "\""): return string()
            case UInt8(ascii: "t"): return literal("true")
            case UInt8(ascii: "f"): return literal("false")
            case UInt8(ascii: "n"): return literal("null")
            default: return number()
            }
        }

        mutating func object(depth: Int) -> Bool {
            position += 1
            if skipSpace() == UInt8(ascii: "}") { position += 1; return true }
            while true {
                guard skipSpace() == UInt8(ascii: "\""), string() else { return false }
                guard skipSpace() == UInt8(ascii: ":") else { return false }
                position += 1
                guard value(depth: depth) else { return false }
                switch skipSpace() {
                case UInt8(ascii: ","): position += 1
                case UInt8(ascii: "}"): position += 1; return true
                default: return false
                }
            }
        }

        mutating func array(depth: Int) -> Bool {
            position += 1
            if skipSpace() == UInt8(ascii: "]") { position += 1; return true }
            while true {
                guard value(depth: depth) else { return false }
                switch skipSpace() {
                case UInt8(ascii: ","): position += 1
                case UInt8(ascii: "]"): position += 1; return true
                default: return false
                }
            }
        }

        mutating func string() -> Bool {
            position += 1
            while position < bytes.count {
                let byte = bytes[position]
                switch byte {
                case UInt8(ascii: "\""): position += 1; return true
                case UInt8(ascii: "\\"):
                    guard position + 1 < bytes.count else { position += 1; return false }
                    let escape = bytes[position + 1]
                    if escape == UInt8(ascii: "u") {
                        guard position + 6 <= bytes.count, bytes[(position + 2)..<(position + 6)].allSatisfy(Self.isHex) else {
                            position += 2
                            return false
                        }
                        position += 6
                    } else {
                        guard Array("\"\\/bfnrt".utf8).contains(escape) else { position += 1; return false }
                        position += 2
                    }
                case 0..<0x20: return false
                default: position += 1
                }
            }
            return false
        }

        mutating func literal(_ word: StaticString) -> Bool {
            let expected = word.withUTF8Buffer { Array($0) }
            for byte in expected {
                guard position < bytes.count, bytes[position] == byte else { return false }
                position += 1
            }
            return true
        }

        mutating func number() -> Bool {
            if position < bytes.count, bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard digits() else { return false }
            if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
                position += 1
                guard digits() else { return false }
            }
            if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
                position += 1
                if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
                guard digits() else { return false }
            }
            return true
        }

        mutating func digits() -> Bool {
            let start = position
            while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) { position += 1 }
            return position > start
        }

        static func isHex(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte | 0x20)
        }
    }
}
