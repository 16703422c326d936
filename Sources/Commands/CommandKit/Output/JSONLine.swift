/// One JSON object per line (JSON Lines), written by hand into an ``OutputLine``: no
/// `JSONEncoder`, no intermediate strings, nothing allocated per object.
///
/// Keys are static strings (trusted ASCII, written as they are); string values are escaped
/// per RFC 8259 §7. Commas are placed automatically. A value type on the caller's stack, so
/// the comma state lives in a register while a line is written:
///
/// ```swift
/// try output.writeJSONLine(maximumLength: 256) { json in
///     json.beginObject()
///     json.key("bpm"); json.value(82)
///     json.key("rr"); json.beginArray(); json.value(694); json.value(660); json.endArray()
///     json.endObject()
/// }                                   // {"bpm":82,"rr":[694,660]}
/// ```
public struct JSONLine {
    public var line: OutputLine
    @usableFromInline var needsComma = false

    @inlinable
    init(line: OutputLine) { self.line = line }

    @inlinable @inline(__always)
    mutating func separate() {
        if needsComma { line.append(UInt8(ascii: ",")) }
        needsComma = true
    }

    @inlinable @inline(__always)
    public mutating func beginObject() {
        separate()
        line.append(UInt8(ascii: "{"))
        needsComma = false
    }

    @inlinable @inline(__always)
    public mutating func endObject() {
        line.append(UInt8(ascii: "}"))
        needsComma = true
    }

    @inlinable @inline(__always)
    public mutating func beginArray() {
        separate()
        line.append(UInt8(ascii: "["))
        needsComma = false
    }

    @inlinable @inline(__always)
    public mutating func endArray() {
        line.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// Writes `"name":`; the next value belongs to it.
    @inlinable @inline(__always)
    public mutating func key(_ name: StaticString) {
        guard name.hasPointerRepresentation else {  // a one-character name such as "n"
            separate()
            line.append(UInt8(ascii: "\""))
            line.append(name)
            line.append("\":")
            needsComma = false
            return
        }
        // One reservation for the separator, both quotes, the name and the colon.
        let length = name.utf8CodeUnitCount
        let out = line.claim(length + 4)
        var at = out
        if needsComma { at.pointee = UInt8(ascii: ","); at += 1 }
        at.pointee = UInt8(ascii: "\"")
        (at + 1).update(from: name.utf8Start, count: length)
        (at + 1 + length).pointee = UInt8(ascii: "\"")
        (at + 2 + length).pointee = UInt8(ascii: ":")
        line.next = at + 3 + length
        needsComma = false
    }

    @inlinable @inline(__always)
    public mutating func value(_ number: Int) {
        separate()
        line.append(decimal: number)
    }

    @inlinable @inline(__always)
    public mutating func value(_ number: Int64) {
        separate()
        line.append(decimal: number)
    }

    /// An exact decimal `numerator / denominator` (denominator made of 2s and 5s): 896/256 → 3.5.
    @inlinable
    public mutating func value(numerator: Int64, denominator: Int64) {
        separate()
        line.append(numerator: numerator, denominator: denominator)
    }

    @inlinable @inline(__always)
    public mutating func value(_ flag: Bool) {
        separate()
        line.append(flag ? "true" : "false")
    }

    @inlinable @inline(__always)
    public mutating func null() {
        separate()
        line.append("null")
    }

    /// A string written as it is, quoted: for the program's own identifiers and enum names,
    /// which need no escaping (`json.value(verbatim: "tx")`). The label keeps a literal from
    /// landing here by accident: `value(_:)` with a String escapes.
    @inlinable @inline(__always)
    public mutating func value(verbatim text: StaticString) {
        separate()
        line.append(UInt8(ascii: "\""))
        line.append(text)
        line.append(UInt8(ascii: "\""))
    }

    /// Any string, escaped (up to 6 bytes per UTF-8 byte, plus the quotes).
    public mutating func value(_ text: String) {
        separate()
        line.append(UInt8(ascii: "\""))
        line.append(jsonEscaped: text)
        line.append(UInt8(ascii: "\""))
    }

    /// Bytes as a lowercase hex string (2 bytes per byte, plus the quotes).
    @inlinable @inline(__always)
    public mutating func value(hex bytes: UnsafeRawBufferPointer) {
        separate()
        line.append(UInt8(ascii: "\""))
        line.append(hex: bytes)
        line.append(UInt8(ascii: "\""))
    }

    /// `digits` lowercase hex digits of `number`, quoted: a 16-bit UUID as "2a37".
    @inlinable @inline(__always)
    public mutating func value(hex number: UInt64, digits: Int) {
        separate()
        line.append(UInt8(ascii: "\""))
        line.append(hex: number, digits: digits)
        line.append(UInt8(ascii: "\""))
    }
}

extension BufferedOutput {
    /// Writes one JSON Lines record of at most `maximumLength` bytes (newline not counted).
    @inlinable
    public func writeJSONLine(maximumLength: Int, _ body: (inout JSONLine) -> Void) throws(OutputError) {
        try writeLine(maximumLength: maximumLength) { line in
            var json = JSONLine(line: line)
            body(&json)
            line = json.line
        }
    }
}
