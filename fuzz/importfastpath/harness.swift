// libFuzzer harness for the `health import` fast path (HealthModel `ImportLineScan` and
// `ImportRecord(fastParsing:)`) against the general parser (`ImportRecord(generalParsing:)`,
// JSONLineParser's value tree).
//
// The first byte picks how the rest becomes a line: 0–1 the bytes as the line; 2 the bytes as
// the raw value of `value` in an everyday sample line; 3 the bytes inside the quotes of one of
// that line's strings (the second byte picks which), so mutations reach the fields' semantics
// instead of dying on JSON syntax.
//
// Properties checked on every input (a disagreement traps):
//  1. whatever the fast path builds, the general path builds too, field for field and byte for
//     byte (`ImportRecord.fingerprint`; the id too when the line gives one);
//  2. `ImportRecord(line:)`, which tries the fast path first, gives exactly the general path's
//     result: the same record, or the same error text naming the same line;
//  3. nothing traps.
import Foundation
import HealthModel

nonisolated(unsafe) let fastContext = ImportRecord.Context()
nonisolated(unsafe) let generalContext = ImportRecord.Context()
nonisolated(unsafe) let combinedContext = ImportRecord.Context()

let templateFields: [(name: String, text: String)] = [
    ("type", "step-count"), ("start", "2026-11-30T08:00:00+01:00"), ("end", "2026-11-30T08:01:00+01:00"),
    ("source", "Anna’s Apple Watch"), ("source_version", "10.5"), ("device", "Apple Watch"), ("zone", "Europe/Berlin"),
    ("sync_id", "s-1"), ("unit", "count"), ("id", "0190f3a0-0000-7000-8000-000000000001"),
]

func line(replacingField chosen: Int?, rawValue: [UInt8]?, with bytes: ArraySlice<UInt8>) -> [UInt8] {
    var line = Array("{".utf8)
    for (position, field) in templateFields.enumerated() {
        line += Array("\"\(field.name)\":\"".utf8)
        if position == chosen { line += bytes } else { line += Array(field.text.utf8) }
        line += Array("\",".utf8)
    }
    line += Array("\"value\":".utf8) + (rawValue ?? Array("42".utf8)) + Array(",\"metadata\":{\"k\":\"v\"}}".utf8)
    return line
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImportFastPath(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    var bytes: [UInt8]
    switch input.first.map({ $0 % 4 }) {
    case 2?: bytes = line(replacingField: nil, rawValue: Array(input.dropFirst()), with: [])
    case 3? where input.count >= 2:
        bytes = line(replacingField: Int(input[1]) % templateFields.count, rawValue: nil, with: input.dropFirst(2))
    default: bytes = Array(input.dropFirst())
    }
    bytes.withUnsafeBufferPointer { line in
        let hasID = line.count >= 4 && (0...(line.count - 4)).contains { line[$0] == 0x22 && line[$0 + 1] == 0x69 && line[$0 + 2] == 0x64 && line[$0 + 3] == 0x22 }
        let general: Result<ImportRecord, ImportError> = Result { () throws(ImportError) in
            try ImportRecord(generalParsing: line, number: 3, context: generalContext)
        }
        if let fast = ImportRecord(fastParsing: line, context: fastContext) {
            guard case .success(let record) = general else { preconditionFailure("fast path accepted what the general path refuses: \(general)") }
            let (a, b) = (fast.fingerprint(includingID: hasID), record.fingerprint(includingID: hasID))
            precondition(a == b, "fast path built\n\(a)\ngeneral path built\n\(b)")
        }
        let combined: Result<ImportRecord, ImportError> = Result { () throws(ImportError) in
            try ImportRecord(line: line, number: 3, context: combinedContext)
        }
        switch (combined, general) {
        case (.success(let a), .success(let b)):
            precondition(a.fingerprint(includingID: hasID) == b.fingerprint(includingID: hasID), "import differs from the general path")
        case (.failure(let a), .failure(let b)):
            precondition(a.description == b.description, "import error '\(a)' differs from the general path's '\(b)'")
        default:
            preconditionFailure("import gave \(combined), the general path \(general)")
        }
    }
    return 0
}
