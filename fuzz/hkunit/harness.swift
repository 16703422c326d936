// libFuzzer harness for Apple unit strings (OpenHealthKit's HKUnit parser: `count/min`,
// `kcal/(kg·hr)`, `mg/dL`), the text a HealthKit app hands `HKUnit(from:)`.
//
// Properties checked on every input:
//  1. parsing never traps, whatever the bytes;
//  2. a parsed unit's `unitString` parses back to an equal unit (the printer and the parser agree);
//  3. a unit converts a finite value into itself unchanged, and into its own respelling;
//  4. `HKUnit(from:)` of a string that does not parse is the null unit, compatible with nothing.
import Foundation
import OpenHealthKit

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzUnitString(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let unit = HKUnit.parse(text) else {
        let null = HKUnit(from: text)
        precondition(null.isNull(), "an unparseable string made a unit")
        precondition(!HKQuantity(unit: null, doubleValue: 1).is(compatibleWith: null), "the null unit is compatible with itself")
        return 0
    }
    guard let again = HKUnit.parse(unit.unitString) else {
        preconditionFailure("'\(text)' printed as '\(unit.unitString)', which does not parse")
    }
    precondition(again == unit, "'\(text)' → '\(unit.unitString)' → a different unit")
    let quantity = HKQuantity(unit: unit, doubleValue: 12.5)
    precondition((try? quantity.doubleValue(checkedFor: unit)) == 12.5, "'\(text)' does not convert into itself")
    if let value = try? quantity.doubleValue(checkedFor: again) {
        precondition(value == 12.5, "'\(text)' converts into its own respelling as \(value)")
    }
    return 0
}
