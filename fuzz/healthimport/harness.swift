// libFuzzer harness for the `health import` line decoder (HealthModel.ImportRecord, which runs
// JSONLineParser and TimeParsing on untrusted NDJSON).
//
// Properties checked on every input:
//  1. decoding never traps, whatever the bytes;
//  2. a JSON failure's byte offset lies inside the line;
//  3. a decoded line is a sample the store would accept: finite value, end not before start,
//     a category value inside its category, a non-empty source;
//  4. the instant parser alone never traps on the same bytes.
import Foundation
import HealthModel

nonisolated(unsafe) let context = ImportRecord.Context()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImportLine(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let line = UnsafeBufferPointer(start: data, count: size)
    do {
        _ = try JSONLineParser.parse(line)
    } catch {
        precondition(error.offset >= 0 && error.offset <= size, "JSON error offset \(error.offset) outside a \(size)-byte line")
    }
    do {
        let record = try ImportRecord(line: line, number: 1, context: context)
        precondition(!record.source.id.isEmpty, "decoded a line with an empty source")
        precondition(NameBound.problem(record.source.id) == nil && NameBound.problem(record.source.version) == nil,
                     "decoded a source name over the bound")
        switch record.payload {
        case .quantity(let sample):
            precondition(sample.quantity.value.isFinite, "decoded a non-finite value")
            precondition(sample.end >= sample.start, "decoded a sample ending before it starts")
            precondition(sample.quantity.unit.isCompatible(with: sample.type.canonicalUnit), "decoded an incompatible unit")
        case .category(let sample):
            precondition(sample.type.valueNames.indices.contains(sample.value), "decoded category value \(sample.value)")
            precondition(sample.end >= sample.start, "decoded a sample ending before it starts")
        case .workout(let workout):
            precondition(WorkoutActivityType(name: workout.activity.rawValue) == workout.activity, "decoded activity \(workout.activity)")
            precondition(workout.end >= workout.start, "decoded a workout ending before it starts")
            precondition(workout.totalEnergyBurned.map { $0.value.isFinite && $0.value >= 0 } ?? true, "decoded a bad energy total")
            precondition(workout.totalDistance.map { $0.value.isFinite && $0.value >= 0 } ?? true, "decoded a bad distance total")
        }
    } catch {
        precondition(error.line == 1, "error names line \(error.line), not 1")
    }
    var hasOffset = false
    _ = TimeParsing.instant(line, zone: TimeZone(identifier: "Europe/Berlin")!, hasOffset: &hasOffset)
    return 0
}
