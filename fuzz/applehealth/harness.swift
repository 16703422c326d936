// libFuzzer harness for the Apple Health export.xml reader (AppleHealth.AppleHealthParser on
// expat), the path `health import export.xml|export.zip` runs on untrusted files.
//
// The input is the document; its first byte (when present) picks the piece size the parser is
// fed in (1…32 bytes, or the whole input), as the importer's 1 MiB reads or a zip's inflated
// pieces cut it anywhere. Properties checked on every input:
//  1. parsing never traps, whatever the bytes;
//  2. fed whole and fed in pieces, the parser hands on the same items (sync identifiers, values,
//     workout ids) and ends with the same error kind;
//  3. every item is storable: finite value in its type's plausible range and of its type's
//     dimension, end ≥ start inside 1900…2100, category value in range, non-empty source and
//     sync identifier, workout totals finite;
//  4. an error names its place (`line L, column C`, both ≥ 1);
//  5. a record written back by ExportXMLWriter parses to the same type, value, times, source,
//     device, sync identifier and version, user entry and metadata.
import AppleHealth
import Foundation
import HealthModel

struct Outcome: Equatable {
    var items: [String] = []
    var error: AppleHealthError.Kind?
}

func describe(_ item: AppleHealthItem) -> String {
    switch item {
    case .quantity(let s): "q \(s.type) \(s.quantity) \(s.start) \(s.end) \(s.source?.id ?? "") \(s.syncIdentifier ?? "")"
    case .category(let s): "c \(s.type) \(s.value) \(s.start) \(s.end) \(s.source?.id ?? "") \(s.syncIdentifier ?? "")"
    case .workout(let w): "w \(w.id) \(w.activity) \(w.start) \(w.end)"
    case .characteristics(let c): "m \(c.map { "\($0.type)=\($0.value)" })"
    }
}

func check(_ item: AppleHealthItem) {
    func checkTimes(_ start: Date, _ end: Date) {
        precondition(end >= start, "an item ends before it starts")
        precondition(start >= PlausibleRange.earliest && end <= PlausibleRange.latest, "an item outside 1900…2100")
    }
    switch item {
    case .quantity(let s):
        let value = try! s.canonicalValue()
        precondition(s.type.plausibleRange.problem(value: value, unit: s.type.canonicalUnit) == nil, "an implausible value \(value)")
        checkTimes(s.start, s.end)
        precondition(!(s.source?.id.isEmpty ?? true) && !(s.syncIdentifier?.isEmpty ?? true), "no source or sync identifier")
    case .category(let s):
        precondition(s.type.valueNames.indices.contains(s.value), "category value \(s.value) out of range")
        checkTimes(s.start, s.end)
        precondition(!(s.source?.id.isEmpty ?? true) && !(s.syncIdentifier?.isEmpty ?? true), "no source or sync identifier")
    case .workout(let w):
        checkTimes(w.start, w.end)
        precondition(w.totalEnergyBurned.map { $0.value.isFinite } ?? true && w.totalDistance.map { $0.value.isFinite } ?? true, "a non-finite total")
    case .characteristics(let settings):
        precondition(!settings.isEmpty, "an empty Me item")
    }
}

func parse(_ bytes: UnsafeRawBufferPointer, pieceSize: Int, keep: (AppleHealthItem) -> Void = { _ in }) -> Outcome {
    let parser = AppleHealthParser()
    var outcome = Outcome()
    do {
        var offset = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset + pieceSize)
            try parser.parse(UnsafeRawBufferPointer(rebasing: bytes[offset..<end]), final: false) { item in
                outcome.items.append(describe(item))
                keep(item)
            }
            offset = end
        }
        try parser.parse(UnsafeRawBufferPointer(start: nil, count: 0), final: true) { item in
            outcome.items.append(describe(item))
            keep(item)
        }
    } catch let error as AppleHealthError {
        outcome.error = error.kind
        let numbers = error.place.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        if error.kind == .malformedXML || error.kind == .badRecord {
            precondition(error.place.hasPrefix("line ") && numbers.count == 2 && numbers.allSatisfy { $0 >= 1 }, "error place '\(error.place)'")
        }
    } catch {
        preconditionFailure("unexpected error \(error)")
    }
    return outcome
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAppleHealth(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size > 0 else { return 0 }
    let pieceSize = data[0] % 33 == 0 ? Int.max : Int(data[0] % 33)
    let bytes = UnsafeRawBufferPointer(start: data + 1, count: size - 1)
    var items: [AppleHealthItem] = []
    let whole = parse(bytes, pieceSize: Int.max) { items.append($0) }
    let pieces = parse(bytes, pieceSize: pieceSize)
    precondition(whole.items == pieces.items, "whole and \(pieceSize)-byte pieces give different items")
    precondition(whole.error == pieces.error, "whole and pieces end differently: \(String(describing: whole.error)) vs \(String(describing: pieces.error))")
    for item in items { check(item) }

    // Records written back read back the same.
    var document = ExportXMLWriter.header(exportDate: Date(timeIntervalSince1970: 0))
    var written: [Sample] = []
    for item in items {
        switch item {
        case .quantity(let s): written.append(.quantity(s))
        case .category(let s): written.append(.category(s))
        default: continue
        }
        document += ExportXMLWriter.record(written.last!)
    }
    document += ExportXMLWriter.footer
    var reread: [AppleHealthItem] = []
    let again = Array(document.utf8).withUnsafeBytes { parse($0, pieceSize: Int.max) { reread.append($0) } }
    precondition(again.error == nil, "the writer's document does not parse: \(String(describing: again.error))")
    precondition(reread.count == written.count, "wrote \(written.count) records, read \(reread.count)")
    for (sample, item) in zip(written, reread) {
        switch (sample, item) {
        case (.quantity(let a), .quantity(let b)):
            precondition(a.type == b.type && a.start == b.start && a.end == b.end && a.source == b.source && a.device == b.device
                         && a.syncIdentifier == b.syncIdentifier && a.syncVersion == b.syncVersion && a.userEntered == b.userEntered
                         && a.metadata == b.metadata, "a quantity record changed in a round trip")
            precondition(try! a.canonicalValue() == b.canonicalValue(), "a value changed in a round trip")
        case (.category(let a), .category(let b)):
            precondition(a.type == b.type && a.value == b.value && a.start == b.start && a.end == b.end && a.source == b.source
                         && a.device == b.device && a.syncIdentifier == b.syncIdentifier && a.metadata == b.metadata,
                         "a category record changed in a round trip")
        default:
            preconditionFailure("a record changed kind in a round trip")
        }
    }
    return 0
}
