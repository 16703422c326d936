/// An amount with its unit (HealthKit `HKQuantity`).
public struct Quantity: Hashable, Sendable, CustomStringConvertible {
    public var value: Double
    public var unit: HealthUnit

    public init(_ value: Double, _ unit: HealthUnit) {
        self.value = value
        self.unit = unit
    }

    /// The amount expressed in `target`; throws when the dimensions differ.
    public func value(in target: HealthUnit) throws(UnitError) -> Double {
        try unit.convert(value, to: target)
    }

    public func converted(to target: HealthUnit) throws(UnitError) -> Quantity {
        Quantity(try value(in: target), target)
    }

    public var description: String { "\(value) \(unit.symbol)" }
}
