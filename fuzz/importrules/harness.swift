// libFuzzer harness for the rules `health import` enforces on a line beyond JSON syntax:
// strict UTF-8 in strings and the plausible ranges (HealthModel.PlausibleRange).
//
// The first byte chooses what the rest of the input is:
//  0 — UTF-8: the bytes become the value of "source" (quote, backslash and control bytes
//      replaced by 'x'), once straight and once behind a "\n" escape (the parser's two string
//      paths). Oracle: the line is accepted exactly when Swift's validating decoder
//      (String(validating:as:)) accepts the bytes, and then the source holds exactly those
//      bytes (nothing replaced by U+FFFD); a refusal is an "invalid UTF-8" error whose byte
//      offset lies inside the string, at a byte ≥ 0x80.
//  1 — ranges: a type, a value (any Double, as Swift prints it), a start (whole seconds from
//      1800 to 2200) and a duration (up to 9 days, sometimes anything) become a line.
//      Oracle: accepted exactly when the value is inside the type's range, the start inside
//      1900 ..< 2100, the end by 2100 and the duration within the type's longest; a refusal
//      names the field at fault.
//  2 — anything: the bytes are a line. Whatever is accepted obeys every rule: value inside its
//      type's range, times and duration inside the bounds, and the source survives a round trip
//      through JSON quoting and parsing unchanged.
// No input may trap.
import Foundation
import HealthModel

nonisolated(unsafe) let context = ImportRecord.Context()

func decode(_ bytes: [UInt8]) -> Result<ImportRecord, ImportError> {
    bytes.withUnsafeBufferPointer { buffer in
        Result { () throws(ImportError) -> ImportRecord in try ImportRecord(line: buffer, number: 1, context: context) }
    }
}

func checkAccepted(_ record: ImportRecord) {
    switch record.payload {
    case .quantity(let sample):
        let range = sample.type.plausibleRange
        let value = try! sample.quantity.value(in: sample.type.canonicalUnit)
        precondition(range.problem(value: value, unit: sample.type.canonicalUnit) == nil, "accepted \(value) for \(sample.type)")
        precondition(PlausibleRange.problem(start: sample.start, end: sample.end, maximumDuration: range.maximumDuration) == nil,
                     "accepted \(sample.start) – \(sample.end) for \(sample.type)")
    case .category(let sample):
        precondition(PlausibleRange.problem(start: sample.start, end: sample.end,
                                            maximumDuration: SampleType.category(sample.type).maximumDuration) == nil,
                     "accepted \(sample.start) – \(sample.end) for \(sample.type)")
    case .workout(let workout):
        precondition(PlausibleRange.problem(start: workout.start, end: workout.end,
                                            maximumDuration: SampleType.workout.maximumDuration) == nil,
                     "accepted \(workout.start) – \(workout.end) for a workout")
    }
    let quoted = Array(("{\"s\":" + JSONString.quoted(record.source.id) + "}").utf8)
    let reparsed = quoted.withUnsafeBufferPointer { try? JSONLineParser.parse($0) }
    precondition(reparsed == .object([("s", .string(record.source.id))]), "source does not survive quoting: \(record.source.id)")
}

func utf8Rule(_ body: [UInt8]) {
    let clean = body.map { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 < 0x20 ? UInt8(ascii: "x") : $0 }
    let expected = String(validating: clean, as: UTF8.self)
    for escape in [false, true] {
        let prefix = Array(#"{"type":"step-count","value":5,"start":"2026-11-30T09:00:00Z","source":"#.utf8) + [UInt8(ascii: "\"")]
            + (escape ? Array(#"\n"#.utf8) : [])
        let line = prefix + clean + Array(#""}"#.utf8)
        switch decode(line) {
        case .success(let record):
            precondition(expected != nil, "accepted invalid UTF-8 \(clean)")
            precondition(NameBound.problem(record.source.id) == nil, "accepted a source over the bound")
            precondition(Array(record.source.id.utf8) == (escape ? [0x0A] : []) + clean, "source changed: \(clean)")
        case .failure(let error):
            if clean.isEmpty && !escape { break }  // an empty source is refused for that reason
            if let text = expected, NameBound.problem((escape ? "\n" : "") + text) != nil {  // so is a too-long one
                precondition(error.message.contains("field 'source': is longer than"), "wrong reason: \(error)")
                break
            }
            precondition(expected == nil, "refused valid UTF-8 \(clean): \(error)")
            precondition(error.message.contains("invalid UTF-8"), "wrong reason: \(error)")
            // "malformed JSON at byte N" (1-based): inside the string, at a non-ASCII byte.
            let digits = error.message.split(separator: " ").dropFirst(4).first.map { $0.filter(\.isNumber) } ?? ""
            let offset = (Int(digits) ?? 0) - 1
            precondition(offset >= prefix.count && offset < prefix.count + clean.count && line[offset] >= 0x80,
                         "error offset \(offset) not at a bad byte: \(error)")
        }
    }
}

func load<T: FixedWidthInteger>(_ bytes: ArraySlice<UInt8>, _: T.Type) -> T {
    var value: T = 0
    for (index, byte) in bytes.prefix(MemoryLayout<T>.size).enumerated() { value |= T(truncatingIfNeeded: byte) << (8 * index) }
    return value
}

func rangeRule(_ data: ArraySlice<UInt8>) {
    let types = QuantityType.all
    let type = types[Int(data.first ?? 0) % types.count]
    let rest = data.dropFirst()
    var value = Double(bitPattern: load(rest, UInt64.self))
    let selector = load(rest.dropFirst(8), UInt8.self)
    if selector & 1 == 0 {  // mostly near the range, so both sides of each bound are reached
        let range = type.plausibleRange.values
        let span = range.upperBound - range.lowerBound
        value = range.lowerBound - span * 0.1 + Double(load(rest.dropFirst(9), UInt32.self)) / Double(UInt32.max) * span * 1.2
        if selector & 2 != 0 { value = selector & 4 != 0 ? range.lowerBound : range.upperBound }
    }
    let startSeconds = -5_364_662_400 + Int64(load(rest.dropFirst(13), UInt64.self) % 12_623_000_000)  // 1800 … 2200
    var duration = Int64(load(rest.dropFirst(21), UInt32.self) % (9 * 86_400))
    if selector & 8 != 0 { duration = Int64(load(rest.dropFirst(25), UInt32.self)) * 1000 }
    if selector & 16 != 0 { duration = Int64(type.plausibleRange.maximumDuration) + Int64(selector >> 5) - 4 }
    let start = Date(timeIntervalSince1970: Double(startSeconds))
    let end = Date(timeIntervalSince1970: Double(startSeconds + duration))
    let startText = TimeParsing.format(start, utcOffsetSeconds: 0)
    let endText = TimeParsing.format(end, utcOffsetSeconds: 0)
    let line = Array(#"{"type":"\#(type.identifier)","value":\#(value),"start":"\#(startText)","end":"\#(endText)","source":"x"}"#.utf8)
    let plausible = value.isFinite && type.plausibleRange.values.contains(value)
        && PlausibleRange.problem(start: start, end: end, maximumDuration: type.plausibleRange.maximumDuration) == nil
    switch decode(line) {
    case .success(let record):
        precondition(plausible, "accepted \(String(decoding: line, as: UTF8.self))")
        checkAccepted(record)
    case .failure(let error):
        precondition(!plausible, "refused a plausible line \(String(decoding: line, as: UTF8.self)): \(error)")
        precondition(error.message.hasPrefix("field 'value'") || error.message.hasPrefix("field 'start'")
                     || error.message.hasPrefix("field 'end'") || error.message.hasPrefix("malformed JSON"),
                     "refusal names no field: \(error)")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImportRules(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let mode = bytes.first else { return 0 }
    switch mode % 3 {
    case 0: utf8Rule(Array(bytes.dropFirst()))
    case 1: rangeRule(bytes.dropFirst())
    default:
        if case .success(let record) = decode(Array(bytes.dropFirst())) { checkAccepted(record) }
    }
    return 0
}
