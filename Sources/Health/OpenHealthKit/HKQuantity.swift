import Foundation

/// An amount in a unit (HealthKit `HKQuantity`).
public final class HKQuantity: Hashable, Comparable, CustomStringConvertible, @unchecked Sendable {
    let value: Double
    let unit: HKUnit

    public init(unit: HKUnit, doubleValue value: Double) {
        self.unit = unit
        self.value = value
    }

    /// Whether the amount can be expressed in `unit`.
    public func `is`(compatibleWith unit: HKUnit) -> Bool { self.unit.isCompatible(with: unit) }

    /// The amount in `unit`. Apple raises an exception (the app crashes) when the units measure
    /// different things; here the answer is NaN, never a crash — call ``doubleValue(checkedFor:)``
    /// to get the error instead.
    public func doubleValue(for unit: HKUnit) -> Double {
        (try? self.unit.convert(value, to: unit)) ?? .nan
    }

    /// The amount in `unit`, or ``HKError/Code/errorInvalidArgument`` naming both units when they
    /// are incompatible (the message Apple's exception carries).
    public func doubleValue(checkedFor unit: HKUnit) throws(HKError) -> Double {
        try self.unit.convert(value, to: unit)
    }

    /// Orders two compatible quantities; incompatible ones compare as `.orderedSame` (Apple raises).
    public func compare(_ other: HKQuantity) -> ComparisonResult {
        guard let mine = try? unit.convert(value, to: other.unit) else { return .orderedSame }
        return mine < other.value ? .orderedAscending : mine > other.value ? .orderedDescending : .orderedSame
    }

    public static func < (a: HKQuantity, b: HKQuantity) -> Bool { a.compare(b) == .orderedAscending }
    public static func == (a: HKQuantity, b: HKQuantity) -> Bool {
        a.unit.isCompatible(with: b.unit) && a.compare(b) == .orderedSame
    }
    public func hash(into hasher: inout Hasher) { hasher.combine(unit.dimension) }

    public var description: String { "\(value) \(unit.unitString)" }
}
