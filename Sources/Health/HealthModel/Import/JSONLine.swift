#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A JSON value from one NDJSON line.
public enum JSONValue: Equatable, Sendable {
    case string(String)
    case number(Double)
    case bool(Bool)
    case null
    case object([(String, JSONValue)])
    case array([JSONValue])

    public static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.string(let x), .string(let y)): return x == y
        case (.number(let x), .number(let y)): return x == y
        case (.bool(let x), .bool(let y)): return x == y
        case (.null, .null): return true
        case (.array(let x), .array(let y)): return x == y
        case (.object(let x), .object(let y)): return x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }

    public var kind: String {
        switch self {
        case .string: "a string"
        case .number: "a number"
        case .bool: "a boolean"
        case .null: "null"
        case .object: "an object"
        case .array: "an array"
        }
    }
}

/// A strict JSON (RFC 8259) parser over one line's bytes; errors carry the byte offset.
public struct JSONLineParser {
    /// Why a line is not JSON, and the 0-based byte offset where that became clear.
    public struct Failure: Error, Sendable {
        public var offset: Int
        public var message: String
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0

    /// Parses one complete value; nothing but whitespace may follow it.
    public static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(Failure) -> JSONValue {
        var parser = JSONLineParser(bytes: bytes)
        parser.skipSpace()
        let value = try parser.value(depth: 0)
        parser.skipSpace()
        if parser.index != bytes.count { throw parser.fail("unexpected text after the JSON value") }
        return value
    }

    private init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    private func fail(_ message: String) -> Failure { Failure(offset: index, message: message) }

    private mutating func skipSpace() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 || bytes[index] == 0x0D || bytes[index] == 0x0A {
            index += 1
        }
    }

    private mutating func value(depth: Int) throws(Failure) -> JSONValue {
        guard depth < 32 else { throw fail("nested too deeply") }
        guard index < bytes.count else { throw fail("expected a value, found the end of the line") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        default: return .number(try number())
        }
    }

    private mutating func literal(_ word: StaticString) throws(Failure) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count,
              memcmp(bytes.baseAddress! + index, word.utf8Start, count) == 0 else { throw fail("invalid literal") }
        index += count
    }

    private mutating func object(depth: Int) throws(Failure) -> JSONValue {
        index += 1
        var members: [(String, JSONValue)] = []
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
        while true {
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a member name in quotes") }
            let key = try string()
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':' after \"\(key)\"") }
            index += 1
            skipSpace()
            members.append((key, try value(depth: depth + 1)))
            skipSpace()
            guard index < bytes.count else { throw fail("unterminated object") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
            throw fail("expected ',' or '}'")
        }
    }

    private mutating func array(depth: Int) throws(Failure) -> JSONValue {
        index += 1
        var items: [JSONValue] = []
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
        while true {
            skipSpace()
            items.append(try value(depth: depth + 1))
            skipSpace()
            guard index < bytes.count else { throw fail("unterminated array") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
            throw fail("expected ',' or ']'")
        }
    }

    private mutating func string() throws(Failure) -> String {
        index += 1
        let start = index
        // Fast path: no escapes. The bytes become a String only after they were checked here,
        // so nothing is ever replaced by U+FFFD.
        while index < bytes.count, bytes[index] != UInt8(ascii: "\""), bytes[index] != UInt8(ascii: "\\") {
            let byte = bytes[index]
            guard byte >= 0x20 else { throw fail("control character in a string") }
            if byte < 0x80 { index += 1 } else { try utf8Sequence() }
        }
        guard index < bytes.count else { throw fail("unterminated string") }
        if bytes[index] == UInt8(ascii: "\"") {
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            index += 1
            return text
        }
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self).unicodeScalars)
        var pendingUTF8: [UInt8] = []
        func flush() {
            if !pendingUTF8.isEmpty {
                scalars.append(contentsOf: String(decoding: pendingUTF8, as: UTF8.self).unicodeScalars)
                pendingUTF8.removeAll()
            }
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                flush()
                return String(scalars)
            }
            guard byte >= 0x20 else { throw fail("control character in a string") }
            if byte != UInt8(ascii: "\\") {
                let sequenceStart = index
                if byte < 0x80 { index += 1 } else { try utf8Sequence() }
                pendingUTF8.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[sequenceStart..<index]))
                continue
            }
            flush()
            index += 1
            guard index < bytes.count else { break }
            let escaped = bytes[index]
            index += 1
            switch escaped {
            case UInt8(ascii: "\""): scalars.append("\"")
            case UInt8(ascii: "\\"): scalars.append("\\")
            case UInt8(ascii: "/"): scalars.append("/")
            case UInt8(ascii: "b"): scalars.append("\u{08}")
            case UInt8(ascii: "f"): scalars.append("\u{0C}")
            case UInt8(ascii: "n"): scalars.append("\n")
            case UInt8(ascii: "r"): scalars.append("\r")
            case UInt8(ascii: "t"): scalars.append("\t")
            case UInt8(ascii: "u"):
                var code = try hex4()
                if (0xD800..<0xDC00).contains(code) {
                    guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                        throw fail("unpaired surrogate in \\u escape")
                    }
                    index += 2
                    let low = try hex4()
                    guard (0xDC00..<0xE000).contains(low) else { throw fail("invalid low surrogate") }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let scalar = Unicode.Scalar(code) else { throw fail("invalid \\u escape") }
                scalars.append(scalar)
            default:
                throw fail("invalid escape '\\\(Character(Unicode.Scalar(escaped)))'")
            }
        }
        throw fail("unterminated string")
    }

    /// Steps over one well-formed UTF-8 sequence starting at a byte ≥ 0x80, or fails at its
    /// first byte (``UTF8Sequence``).
    private mutating func utf8Sequence() throws(Failure) {
        switch UTF8Sequence.length(bytes, at: index) {
        case .success(let length): index += length
        case .failure(let problem): throw fail(problem.message)
        }
    }

    private mutating func hex4() throws(Failure) -> UInt32 {
        guard index + 4 <= bytes.count else { throw fail("short \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case 48...57: digit = byte - 48
            case 65...70: digit = byte - 55
            case 97...102: digit = byte - 87
            default: throw fail("invalid hex digit in \\u escape")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    private mutating func number() throws(Failure) -> Double {
        let start = index
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        let integerStart = index
        while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 { index += 1 }
        guard index > integerStart else { throw Failure(offset: start, message: "expected a value") }
        if bytes[integerStart] == 48, index - integerStart > 1 { throw Failure(offset: start, message: "leading zero in a number") }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            let fractionStart = index
            while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 { index += 1 }
            guard index > fractionStart else { throw fail("expected digits after '.'") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            let exponentStart = index
            while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 { index += 1 }
            guard index > exponentStart else { throw fail("expected digits in the exponent") }
        }
        // strtod needs a terminated string; numbers are short, so copy onto the stack.
        let length = index - start
        guard length < 64 else { throw Failure(offset: start, message: "number too long") }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: length + 1) { buffer in
            for offset in 0..<length { buffer[offset] = CChar(bitPattern: bytes[start + offset]) }
            buffer[length] = 0
            return strtod(buffer.baseAddress!, nil)
        }
    }
}

/// Well-formed UTF-8 as Unicode's Table 3-7 (RFC 3629 §4) has it: no overlong forms (`C0 AF`
/// for "/"), no surrogates (`ED A0 80`), nothing above U+10FFFF, no stray continuation bytes,
/// no sequence cut short.
enum UTF8Sequence {
    struct Problem: Error {
        var message: String
    }

    /// The length of the well-formed sequence starting at `bytes[index]` (a byte ≥ 0x80), or why
    /// it is not one.
    static func length(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Result<Int, Problem> {
        let lead = bytes[index]
        let length: Int
        var secondRange: ClosedRange<UInt8> = 0x80...0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; secondRange = 0xA0...0xBF
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; secondRange = 0x80...0x9F
        case 0xF0: length = 4; secondRange = 0x90...0xBF
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; secondRange = 0x80...0x8F
        case 0x80...0xBF: return .failure(Problem(message: "invalid UTF-8: continuation byte \(hexByte(lead)) without a lead byte"))
        case 0xC0, 0xC1: return .failure(Problem(message: "invalid UTF-8: overlong encoding (lead byte \(hexByte(lead)))"))
        default: return .failure(Problem(message: "invalid UTF-8: byte \(hexByte(lead)) never occurs in UTF-8"))
        }
        for offset in 1..<length {
            let position = index + offset
            guard position < bytes.count else { return .failure(Problem(message: "invalid UTF-8: sequence cut short by the end of the line")) }
            let byte = bytes[position]
            let allowed = offset == 1 ? secondRange : 0x80...0xBF
            guard allowed.contains(byte) else {
                let what = offset == 1 && (0x80...0xBF).contains(byte)
                    ? (lead == 0xED ? "a UTF-16 surrogate" : lead == 0xF4 ? "above U+10FFFF" : "an overlong encoding")
                    : "a truncated sequence"
                return .failure(Problem(message: "invalid UTF-8: \(what) (bytes \(hexByte(lead)) \(hexByte(byte)))"))
            }
        }
        return .success(length)
    }

    private static func hexByte(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return "0x" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0xF)])
    }
}
