#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The package's one JSON writer: every JSON text BandKit writes (NDJSON lines, command
/// results, metadata columns, dashboard events) comes out of it, so every one of them parses.
///
/// - Structure: commas are placed automatically; keys are static ASCII names written as they
///   are, or any string escaped (``key(escaping:)``).
/// - Strings (RFC 8259 §7): `"` and `\` escaped, the C0 controls as `\n`, `\r`, `\t` or
///   `\u00xx`, and DEL and the C1 controls (U+007F–U+009F) as `\u00xx` too, so that no control
///   character reaches a terminal raw; everything else, non-BMP scalars included, as its UTF-8
///   (RFC 8259 §8.1; a Swift `String` is always well-formed, so no lone surrogate can occur).
/// - Numbers are deterministic: integers in decimal, exact decimal fractions
///   (``value(numerator:denominator:)``), a `Double` as the shortest text that reads back as the
///   same value, or with a fixed number of decimals; JSON has no infinity or NaN, so a non-finite
///   `Double` is written as `null`.
///
/// A value type on the caller's stack over a ``JSONSink``, so the comma state lives in a register
/// while a line is written; nothing is allocated per value:
///
/// ```swift
/// let text = JSON.text { json in
///     json.beginObject()
///     json.key("bpm"); json.value(82)
///     json.key("rr"); json.beginArray(); json.value(694); json.value(660); json.endArray()
///     json.endObject()
/// }                                   // {"bpm":82,"rr":[694,660]}
/// ```
public struct JSONWriter<Sink: JSONSink> {
    public var sink: Sink
    @usableFromInline var needsComma = false

    @inlinable
    public init(sink: Sink) { self.sink = sink }

    @inlinable @inline(__always)
    mutating func separate() {
        if needsComma { sink.append(UInt8(ascii: ",")) }
        needsComma = true
    }

    // MARK: Structure

    @inlinable @inline(__always)
    public mutating func beginObject() {
        separate()
        sink.append(UInt8(ascii: "{"))
        needsComma = false
    }

    @inlinable @inline(__always)
    public mutating func endObject() {
        sink.append(UInt8(ascii: "}"))
        needsComma = true
    }

    @inlinable @inline(__always)
    public mutating func beginArray() {
        separate()
        sink.append(UInt8(ascii: "["))
        needsComma = false
    }

    @inlinable @inline(__always)
    public mutating func endArray() {
        sink.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// Puts the next value of an array on a line of its own: the comma before it, then a line
    /// break (whitespace, so the text still parses). Before the first value, nothing.
    @inlinable
    public mutating func lineBreak() {
        guard needsComma else { return }
        sink.append(UInt8(ascii: ","))
        sink.append(UInt8(ascii: "\n"))
        needsComma = false
    }

    /// Writes `"name":` for one of the program's own (ASCII) names; the next value belongs to it.
    @inlinable @inline(__always)
    public mutating func key(_ name: StaticString) {
        sink.appendKey(name, comma: needsComma)
        needsComma = false
    }

    /// Writes `"name":` for a name from data (a metadata key), escaped.
    public mutating func key(escaping name: String) {
        value(name)
        sink.append(UInt8(ascii: ":"))
        needsComma = false
    }

    // MARK: Values

    @inlinable @inline(__always)
    public mutating func value(_ number: Int) {
        separate()
        sink.append(decimal: Int64(number))
    }

    @inlinable @inline(__always)
    public mutating func value(_ number: Int64) {
        separate()
        sink.append(decimal: number)
    }

    /// An exact decimal `numerator / denominator` (denominator > 0, made of 2s and 5s, so the
    /// expansion ends): 896/256 → 3.5, 12345/10 → 1234.5, 512/256 → 2.
    @inlinable
    public mutating func value(numerator: Int64, denominator: Int64) {
        separate()
        sink.append(numerator: numerator, denominator: denominator)
    }

    /// A fixed-point number with exactly `decimals` decimals (1–18): 851 tenths → 85.1, 0 → 0.0,
    /// -5 hundredths → -0.05.
    public mutating func value(_ units: Int64, decimals: Int) {
        precondition((1...18).contains(decimals))
        separate()
        var scale: UInt64 = 1
        for _ in 0..<decimals { scale *= 10 }
        if units < 0 { sink.append(UInt8(ascii: "-")) }
        sink.append(decimal: units.magnitude / scale)
        sink.append(UInt8(ascii: "."))
        var fraction = units.magnitude % scale
        for _ in 0..<decimals {
            scale /= 10
            sink.append(UInt8(truncatingIfNeeded: fraction / scale) &+ 48)
            fraction %= scale
        }
    }

    /// The shortest decimal that reads back as the same `Double`; a whole number below 10¹⁵ as
    /// an integer (`-0.0` as `0`); `null` when not finite.
    public mutating func value(_ number: Double) {
        separate()
        guard number.isFinite else { return sink.append("null") }
        if number == number.rounded(), abs(number) < 1e15 { return sink.append(decimal: Int64(number)) }
        var text = number.description
        text.withUTF8 { sink.append(UnsafeRawBufferPointer($0)) }
    }

    /// `number` with exactly `fractionDigits` decimals (0–17), rounded as C's `%.*f` rounds (to
    /// nearest, ties to even, on the exact binary value); `null` when not finite.
    public mutating func value(_ number: Double, fractionDigits: Int) {
        separate()
        guard number.isFinite else { return sink.append("null") }
        precondition((0...17).contains(fractionDigits))
        // At most 309 integer digits, a sign, a point and 17 decimals.
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 330) { buffer in
            let count = withVaList([Int32(fractionDigits), number]) { vsnprintf(buffer.baseAddress!, buffer.count, "%.*f", $0) }
            sink.append(UnsafeRawBufferPointer(start: buffer.baseAddress!, count: Int(max(0, min(count, Int32(buffer.count - 1))))))
        }
    }

    @inlinable @inline(__always)
    public mutating func value(_ flag: Bool) {
        separate()
        sink.append(flag ? "true" : "false")
    }

    @inlinable @inline(__always)
    public mutating func null() {
        separate()
        sink.append("null")
    }

    /// A string written as it is, quoted: for the program's own identifiers and enum names,
    /// which need no escaping (`json.value(verbatim: "tx")`). The label keeps a literal from
    /// landing here by accident: `value(_:)` with a String escapes.
    @inlinable @inline(__always)
    public mutating func value(verbatim text: StaticString) {
        separate()
        sink.append(UInt8(ascii: "\""))
        sink.append(text)
        sink.append(UInt8(ascii: "\""))
    }

    /// Any string, quoted and escaped (at most 6 bytes per UTF-8 byte, plus the quotes).
    public mutating func value(_ text: String) {
        separate()
        sink.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { appendEscaped(UnsafeRawBufferPointer($0)) }
        sink.append(UInt8(ascii: "\""))
    }

    /// Bytes as a lowercase hex string (2 bytes per byte, plus the quotes).
    @inlinable @inline(__always)
    public mutating func value(hex bytes: UnsafeRawBufferPointer) {
        separate()
        sink.append(UInt8(ascii: "\""))
        sink.append(hex: bytes)
        sink.append(UInt8(ascii: "\""))
    }

    /// `digits` lowercase hex digits of `number`, quoted: a 16-bit UUID as "2a37".
    @inlinable @inline(__always)
    public mutating func value(hex number: UInt64, digits: Int) {
        separate()
        sink.append(UInt8(ascii: "\""))
        sink.append(hex: number, digits: digits)
        sink.append(UInt8(ascii: "\""))
    }

    // MARK: Optional values: null when absent

    @inlinable
    public mutating func value(_ number: Int?) {
        if let number { value(number) } else { null() }
    }

    @inlinable
    public mutating func value(_ number: Double?) {
        if let number { value(number) } else { null() }
    }

    @inlinable
    public mutating func value(_ flag: Bool?) {
        if let flag { value(flag) } else { null() }
    }

    @inlinable
    public mutating func value(_ text: String?) {
        if let text { value(text) } else { null() }
    }

    // MARK: Escaping

    /// UTF-8 `bytes` as the inside of a JSON string: unescaped runs copied whole.
    mutating func appendEscaped(_ bytes: UnsafeRawBufferPointer) {
        var runStart = 0
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            let length: Int  // of the character to escape; 0 when none starts here
            switch byte {
            case 0x00..<0x20, UInt8(ascii: "\""), UInt8(ascii: "\\"), 0x7F: length = 1
            case 0xC2 where index + 1 < bytes.count && bytes[index + 1] < 0xA0: length = 2  // U+0080–U+009F
            default: length = 0
            }
            guard length > 0 else {
                index += 1
                continue
            }
            sink.append(UnsafeRawBufferPointer(rebasing: bytes[runStart..<index]))
            switch byte {
            case UInt8(ascii: "\""): sink.append("\\\"")
            case UInt8(ascii: "\\"): sink.append("\\\\")
            case 0x0A: sink.append("\\n")
            case 0x0D: sink.append("\\r")
            case 0x09: sink.append("\\t")
            default:
                sink.append("\\u00")
                sink.append(hex: UInt64(length == 2 ? bytes[index + 1] : byte), digits: 2)
            }
            index += length
            runStart = index
        }
        sink.append(UnsafeRawBufferPointer(rebasing: bytes[runStart..<bytes.count]))
    }
}

extension JSONWriter where Sink == JSONBuffer {
    /// The JSON written so far.
    public var text: String { sink.text }
}

/// JSON text assembled in memory by a ``JSONWriter`` over a ``JSONBuffer``.
public enum JSON {
    /// The JSON text `body` writes: one value, or a document.
    public static func text(capacity: Int = 256, _ body: (inout JSONWriter<JSONBuffer>) -> Void) -> String {
        var writer = JSONWriter(sink: JSONBuffer(capacity: capacity))
        body(&writer)
        return writer.text
    }

    /// `text` as a quoted, escaped JSON string.
    public static func quoted(_ text: String) -> String {
        Self.text(capacity: text.utf8.count + 2) { $0.value(text) }
    }
}
