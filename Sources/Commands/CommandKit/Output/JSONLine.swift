import JSONOutput

/// One JSON object per line (JSON Lines): the package's one writer (``JSONWriter``) over memory
/// reserved in a ``BufferedOutput``, so no `JSONEncoder`, no intermediate strings, nothing
/// allocated per object:
///
/// ```swift
/// try output.writeJSONLine(maximumLength: 256) { json in
///     json.beginObject()
///     json.key("bpm"); json.value(82)
///     json.key("rr"); json.beginArray(); json.value(694); json.value(660); json.endArray()
///     json.endObject()
/// }                                   // {"bpm":82,"rr":[694,660]}
/// ```
public typealias JSONLine = JSONWriter<OutputLine>

extension OutputLine: JSONSink {
    /// One reservation for the separator, both quotes, the name and the colon.
    @inlinable @inline(__always)
    public mutating func appendKey(_ name: StaticString, comma: Bool) {
        guard name.hasPointerRepresentation else {  // a one-character name such as "n"
            if comma { append(UInt8(ascii: ",")) }
            append(UInt8(ascii: "\""))
            append(name)
            append("\":")
            return
        }
        let length = name.utf8CodeUnitCount
        let out = claim(length + 4)
        var at = out
        if comma { at.pointee = UInt8(ascii: ","); at += 1 }
        at.pointee = UInt8(ascii: "\"")
        (at + 1).update(from: name.utf8Start, count: length)
        (at + 1 + length).pointee = UInt8(ascii: "\"")
        (at + 2 + length).pointee = UInt8(ascii: ":")
        next = at + 3 + length
    }
}

extension BufferedOutput {
    /// Writes one JSON Lines record of at most `maximumLength` bytes (newline not counted).
    @inlinable
    public func writeJSONLine(maximumLength: Int, _ body: (inout JSONLine) -> Void) throws(OutputError) {
        try writeLine(maximumLength: maximumLength) { line in
            var json = JSONLine(sink: line)
            body(&json)
            line = json.sink
        }
    }
}
