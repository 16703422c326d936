import Foundation

/// HealthKit's metric prefixes (`HKMetricPrefix`), in Apple's raw order.
public enum HKMetricPrefix: Int, Sendable {
    case none = 0, pico, nano, micro, milli, centi, deci, deca, hecto, kilo, mega, giga, tera, femto

    var symbol: String {
        switch self {
        case .none: ""
        case .pico: "p"
        case .nano: "n"
        case .micro: "mc"
        case .milli: "m"
        case .centi: "c"
        case .deci: "d"
        case .deca: "da"
        case .hecto: "h"
        case .kilo: "k"
        case .mega: "M"
        case .giga: "G"
        case .tera: "T"
        case .femto: "f"
        }
    }

    var factor: Double {
        switch self {
        case .none: 1
        case .pico: 1e-12
        case .nano: 1e-9
        case .micro: 1e-6
        case .milli: 1e-3
        case .centi: 1e-2
        case .deci: 1e-1
        case .deca: 1e1
        case .hecto: 1e2
        case .kilo: 1e3
        case .mega: 1e6
        case .giga: 1e9
        case .tera: 1e12
        case .femto: 1e-15
        }
    }

    /// Longest symbols first, so `mc` (micro) and `da` (deca) win over `m` and `d`.
    static let bySymbolLength: [HKMetricPrefix] = [.micro, .deca, .pico, .nano, .milli, .centi, .deci, .hecto, .kilo,
                                                   .mega, .giga, .tera, .femto]
}

/// A unit (HealthKit `HKUnit`), parsed from and printed as Apple's unit strings: `count/min`,
/// `kg`, `mcg`, `kcal`, `Cal`, `m/s^2`, `kg/m^2`, `mg/dL`, `degC`.
///
/// A unit is a product of atoms raised to integer powers; two units convert into each other when
/// their dimensions (mass, length, time, energy, temperature, …) are equal. Temperatures convert
/// with their offsets only when they stand alone (`degF` → `degC`); inside a compound unit a
/// temperature is a difference (its scale only).
public final class HKUnit: Hashable, CustomStringConvertible, @unchecked Sendable {
    /// One atom raised to a power (`s^-2`).
    struct Factor: Hashable {
        var atom: UnitAtom
        var prefix: HKMetricPrefix
        var power: Int
    }

    let factors: [Factor]
    /// Apple's spelling of the unit (`count/min`).
    public let unitString: String

    init(factors: [Factor]) {
        // Combine equal atoms and drop those raised to 0, keeping first-seen order.
        var combined: [Factor] = []
        for factor in factors {
            if let index = combined.firstIndex(where: { $0.atom == factor.atom && $0.prefix == factor.prefix }) {
                combined[index].power += factor.power
            } else {
                combined.append(factor)
            }
        }
        combined.removeAll { $0.power == 0 }
        // A power beyond the parser's bound (m^64·m^64) could not be spelled back: the null unit.
        if combined.contains(where: { abs($0.power) > UnitStringParser.maximumPower }) {
            combined = [Factor(atom: .invalid, prefix: .none, power: 1)]
        }
        self.factors = combined
        unitString = HKUnit.spell(self.factors)
    }

    /// Parses an Apple unit string; nil when it is not one (``init(from:)`` traps on Apple, see the DocC).
    public static func parse(_ string: String) -> HKUnit? {
        var parser = UnitStringParser(text: string)
        guard let factors = parser.parseUnit() else { return nil }
        let unit = HKUnit(factors: factors)
        return unit.isNull() ? nil : unit
    }

    /// A unit from its string (`HKUnit(from: "count/min")`). Apple raises an exception on a string
    /// it cannot parse; this returns the null unit (``isNull()`` is true) so nothing crashes, and
    /// every conversion from or to it fails with an error. Use ``parse(_:)`` to test a string.
    public convenience init(from string: String) {
        self.init(factors: HKUnit.parse(string)?.factors ?? [Factor(atom: .invalid, prefix: .none, power: 1)])
    }

    public var description: String { unitString }

    public static func == (a: HKUnit, b: HKUnit) -> Bool { a.factors.sorted(by: Factor.order) == b.factors.sorted(by: Factor.order) }
    public func hash(into hasher: inout Hasher) { hasher.combine(factors.sorted(by: Factor.order)) }

    /// True for the unit of an unparseable string (and nothing else).
    public func isNull() -> Bool { factors.contains { $0.atom == .invalid } }

    // MARK: Arithmetic

    public func unitMultiplied(by unit: HKUnit) -> HKUnit { HKUnit(factors: factors + unit.factors) }
    public func unitDivided(by unit: HKUnit) -> HKUnit { HKUnit(factors: factors + unit.reciprocal().factors) }
    /// A power beyond ±64 of any atom is the null unit (Apple's units stay far inside it).
    public func unitRaised(toPower power: Int) -> HKUnit {
        let raised = factors.map { factor in
            let (product, overflow) = factor.power.multipliedReportingOverflow(by: power)
            return overflow || abs(product) > UnitStringParser.maximumPower
                ? Factor(atom: .invalid, prefix: .none, power: 1) : Factor(atom: factor.atom, prefix: factor.prefix, power: product)
        }
        return HKUnit(factors: raised)
    }
    public func reciprocal() -> HKUnit { unitRaised(toPower: -1) }

    // MARK: Dimension and conversion

    var dimension: UnitDimension {
        factors.reduce(UnitDimension()) { $0.adding($1.atom.dimension, times: $1.power) }
    }

    /// Whether values in this unit convert into `other`.
    func isCompatible(with other: HKUnit) -> Bool {
        !isNull() && !other.isNull() && dimension == other.dimension
    }

    /// The factor from this unit to the base of its dimension, and the offset of a lone temperature.
    private var toBase: (scale: Double, offset: Double) {
        if factors.count == 1, factors[0].power == 1 {
            let factor = factors[0]
            return (factor.atom.scale * factor.prefix.factor, factor.atom.offset)
        }
        let scale = factors.reduce(1.0) { $0 * pow($1.atom.scale * $1.prefix.factor, Double($1.power)) }
        return (scale, 0)
    }

    /// `value` in this unit expressed in `target`; throws ``HKError/Code/errorInvalidArgument``
    /// naming both units when they measure different things (Apple raises
    /// "Attempt to convert incompatible units").
    func convert(_ value: Double, to target: HKUnit) throws(HKError) -> Double {
        guard isCompatible(with: target) else {
            throw HKError(.errorInvalidArgument, "Attempt to convert incompatible units: \(unitString), \(target.unitString)")
        }
        if self == target { return value }
        let from = toBase, to = target.toBase
        return (value * from.scale + from.offset - to.offset) / to.scale
    }

    // MARK: Spelling

    private static func spell(_ factors: [Factor]) -> String {
        func atom(_ factor: Factor, _ power: Int) -> String {
            let name = factor.prefix.symbol + factor.atom.symbol
            return power == 1 ? name : "\(name)^\(power)"
        }
        let numerator = factors.filter { $0.power > 0 }.map { atom($0, $0.power) }
        let denominator = factors.filter { $0.power < 0 }.map { atom($0, -$0.power) }
        // A dimensionless product that cancelled out entirely (m/m).
        if numerator.isEmpty && denominator.isEmpty { return "1" }
        let top = numerator.isEmpty ? "1" : numerator.joined(separator: "·")
        switch denominator.count {
        case 0: return top
        case 1: return top + "/" + denominator[0]
        default: return top + "/(" + denominator.joined(separator: "·") + ")"
        }
    }
}

extension HKUnit.Factor {
    static func order(_ a: Self, _ b: Self) -> Bool {
        (a.atom.symbol, a.prefix.rawValue, a.power) < (b.atom.symbol, b.prefix.rawValue, b.power)
    }
}

// MARK: - Apple's factory methods

extension HKUnit {
    static func atom(_ atom: UnitAtom, _ prefix: HKMetricPrefix = .none) -> HKUnit {
        HKUnit(factors: [Factor(atom: atom, prefix: prefix, power: 1)])
    }

    // Mass
    public static func gram() -> HKUnit { atom(.gram) }
    public static func gramUnit(with prefix: HKMetricPrefix) -> HKUnit { atom(.gram, prefix) }
    public static func ounce() -> HKUnit { atom(.ounce) }
    public static func pound() -> HKUnit { atom(.pound) }
    public static func stone() -> HKUnit { atom(.stone) }
    // Length
    public static func meter() -> HKUnit { atom(.meter) }
    public static func meterUnit(with prefix: HKMetricPrefix) -> HKUnit { atom(.meter, prefix) }
    public static func inch() -> HKUnit { atom(.inch) }
    public static func foot() -> HKUnit { atom(.foot) }
    public static func yard() -> HKUnit { atom(.yard) }
    public static func mile() -> HKUnit { atom(.mile) }
    // Volume
    public static func liter() -> HKUnit { atom(.liter) }
    public static func literUnit(with prefix: HKMetricPrefix) -> HKUnit { atom(.liter, prefix) }
    public static func fluidOunceUS() -> HKUnit { atom(.fluidOunceUS) }
    public static func fluidOunceImperial() -> HKUnit { atom(.fluidOunceImperial) }
    public static func cupUS() -> HKUnit { atom(.cupUS) }
    public static func cupImperial() -> HKUnit { atom(.cupImperial) }
    public static func pintUS() -> HKUnit { atom(.pintUS) }
    public static func pintImperial() -> HKUnit { atom(.pintImperial) }
    // Pressure
    public static func pascal() -> HKUnit { atom(.pascal) }
    public static func pascalUnit(with prefix: HKMetricPrefix) -> HKUnit { atom(.pascal, prefix) }
    public static func millimeterOfMercury() -> HKUnit { atom(.millimeterOfMercury) }
    public static func centimeterOfWater() -> HKUnit { atom(.centimeterOfWater) }
    public static func atmosphere() -> HKUnit { atom(.atmosphere) }
    // Time
    public static func second() -> HKUnit { atom(.second) }
    public static func secondUnit(with prefix: HKMetricPrefix) -> HKUnit { atom(.second, prefix) }
    public static func minute() -> HKUnit { atom(.minute) }
    public static func hour() -> HKUnit { atom(.hour) }
    public static func day() -> HKUnit { atom(.day) }
    // Energy
    public static func joule() -> HKUnit { atom(.joule) }
    public static func jouleUnit(with prefix: HKMetricPrefix) -> HKUnit { atom(.joule, prefix) }
    public static func kilocalorie() -> HKUnit { atom(.calorie, .kilo) }
    /// The food calorie, `Cal`: exactly one kilocalorie.
    public static func largeCalorie() -> HKUnit { atom(.largeCalorie) }
    /// `cal`: a thousandth of a kilocalorie.
    public static func smallCalorie() -> HKUnit { atom(.calorie) }
    @available(*, deprecated, renamed: "smallCalorie")
    public static func calorie() -> HKUnit { atom(.calorie) }
    // Temperature
    public static func degreeCelsius() -> HKUnit { atom(.degreeCelsius) }
    public static func degreeFahrenheit() -> HKUnit { atom(.degreeFahrenheit) }
    public static func kelvin() -> HKUnit { atom(.kelvin) }
    // Electrical, frequency, power
    public static func siemen() -> HKUnit { atom(.siemens) }
    public static func siemenUnit(with prefix: HKMetricPrefix) -> HKUnit { atom(.siemens, prefix) }
    public static func volt() -> HKUnit { atom(.volt) }
    public static func voltUnit(with prefix: HKMetricPrefix) -> HKUnit { atom(.volt, prefix) }
    public static func hertz() -> HKUnit { atom(.hertz) }
    public static func hertzUnit(with prefix: HKMetricPrefix) -> HKUnit { atom(.hertz, prefix) }
    public static func watt() -> HKUnit { atom(.watt) }
    public static func wattUnit(with prefix: HKMetricPrefix) -> HKUnit { atom(.watt, prefix) }
    // Scalars
    public static func count() -> HKUnit { atom(.count) }
    public static func percent() -> HKUnit { atom(.percent) }
    public static func internationalUnit() -> HKUnit { atom(.internationalUnit) }
}
