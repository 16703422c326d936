/// Writes one JSON object per line (JSON Lines) by hand into a ``BufferedOutput``: no
/// `JSONEncoder`, no intermediate strings, nothing allocated per object.
///
/// Keys are static strings (trusted ASCII, written as they are); string values are escaped
/// per RFC 8259 §7. Commas are placed automatically:
///
/// ```swift
/// json.beginObject()
/// json.key("bpm"); json.value(82)
/// json.key("rr"); json.beginArray(); json.value(694); json.value(660); json.endArray()
/// json.endObject()
/// try json.endLine()          // {"bpm":82,"rr":[694,660]}
/// ```
public final class JSONLineWriter {
    public let output: BufferedOutput
    /// In allocated memory rather than a stored `var`, for the reason given in ``BufferedOutput``.
    private let comma: UnsafeMutablePointer<Bool>
    private var needsComma: Bool {
        get { comma.pointee }
        set { comma.pointee = newValue }
    }

    public init(output: BufferedOutput) {
        self.output = output
        comma = .allocate(capacity: 1)
        comma.initialize(to: false)
    }

    deinit { comma.deallocate() }

    @inline(__always)
    private func separate() {
        if needsComma { output.append(UInt8(ascii: ",")) }
        needsComma = true
    }

    public func beginObject() {
        separate()
        output.append(UInt8(ascii: "{"))
        needsComma = false
    }

    public func endObject() {
        output.append(UInt8(ascii: "}"))
        needsComma = true
    }

    public func beginArray() {
        separate()
        output.append(UInt8(ascii: "["))
        needsComma = false
    }

    public func endArray() {
        output.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// Writes `"name":`; the next value belongs to it.
    public func key(_ name: StaticString) {
        separate()
        output.append(UInt8(ascii: "\""))
        output.append(name)
        output.append("\":")
        needsComma = false
    }

    public func value(_ number: Int) {
        separate()
        output.append(decimal: number)
    }

    public func value(_ number: Int64) {
        separate()
        output.append(decimal: number)
    }

    /// An exact decimal `numerator / denominator` (denominator made of 2s and 5s): 896/256 → 3.5.
    public func value(numerator: Int64, denominator: Int64) {
        separate()
        output.append(numerator: numerator, denominator: denominator)
    }

    public func value(_ flag: Bool) {
        separate()
        output.append(flag ? "true" : "false")
    }

    public func null() {
        separate()
        output.append("null")
    }

    /// A string known to need no escaping (identifiers, enum names).
    public func value(_ text: StaticString) {
        separate()
        output.append(UInt8(ascii: "\""))
        output.append(text)
        output.append(UInt8(ascii: "\""))
    }

    /// Any string, escaped.
    public func value(_ text: String) {
        separate()
        output.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            var start = 0
            for (i, byte) in utf8.enumerated() where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                output.append(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(utf8)[start..<i]))
                switch byte {
                case UInt8(ascii: "\""): output.append("\\\"")
                case UInt8(ascii: "\\"): output.append("\\\\")
                case 0x0A: output.append("\\n")
                case 0x0D: output.append("\\r")
                case 0x09: output.append("\\t")
                default:
                    output.append("\\u00")
                    output.append(hex: UInt64(byte), digits: 2)
                }
                start = i + 1
            }
            output.append(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(utf8)[start...]))
        }
        output.append(UInt8(ascii: "\""))
    }

    /// Bytes as a lowercase hex string.
    public func value(hex bytes: UnsafeRawBufferPointer) {
        separate()
        output.append(UInt8(ascii: "\""))
        output.append(hex: bytes)
        output.append(UInt8(ascii: "\""))
    }

    /// `digits` lowercase hex digits of `number`, quoted: a 16-bit UUID as "2a37".
    public func value(hex number: UInt64, digits: Int) {
        separate()
        output.append(UInt8(ascii: "\""))
        output.append(hex: number, digits: digits)
        output.append(UInt8(ascii: "\""))
    }

    /// Ends the line (the top-level object must be closed).
    public func endLine() throws(OutputError) {
        needsComma = false
        try output.endLine()
    }

    public func flush() throws(OutputError) { try output.flush() }
}
