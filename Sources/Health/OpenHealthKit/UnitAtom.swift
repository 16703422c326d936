/// Exponents of the base dimensions a unit measures. Pressure, energy and the electrical units
/// are their own dimensions (as HealthKit keeps them apart: a pascal does not convert into
/// kilograms per metre second squared).
struct UnitDimension: Hashable {
    var exponents = [Int](repeating: 0, count: Base.allCases.count)

    enum Base: Int, CaseIterable {
        case mass, length, time, energy, temperature, pressure, potential, conductance, internationalUnit, invalid
    }

    init() {}
    init(_ base: Base, _ power: Int = 1) { exponents[base.rawValue] = power }
    init(_ pairs: [(Base, Int)]) { for (base, power) in pairs { exponents[base.rawValue] += power } }

    func adding(_ other: UnitDimension, times power: Int) -> UnitDimension {
        var result = self
        for index in exponents.indices { result.exponents[index] += other.exponents[index] * power }
        return result
    }

    var isDimensionless: Bool { exponents.allSatisfy { $0 == 0 } }
}

/// One named unit of Apple's unit strings, with its scale to the SI base of its dimension
/// (kg, m, s, J, K, Pa, V, S) and, for temperatures, its offset.
struct UnitAtom: Hashable {
    let symbol: String
    let dimension: UnitDimension
    let scale: Double
    let offset: Double
    /// Whether metric prefixes apply (`kg`, `mL`, `ms`, `kcal`).
    let takesPrefix: Bool

    init(_ symbol: String, _ dimension: UnitDimension, _ scale: Double, offset: Double = 0, prefix: Bool = false) {
        self.symbol = symbol
        self.dimension = dimension
        self.scale = scale
        self.offset = offset
        takesPrefix = prefix
    }

    static func == (a: UnitAtom, b: UnitAtom) -> Bool { a.symbol == b.symbol }
    func hash(into hasher: inout Hasher) { hasher.combine(symbol) }

    static let gram = UnitAtom("g", .init(.mass), 0.001, prefix: true)
    static let ounce = UnitAtom("oz", .init(.mass), 0.028349523125)
    static let pound = UnitAtom("lb", .init(.mass), 0.45359237)
    static let stone = UnitAtom("st", .init(.mass), 6.35029318)

    static let meter = UnitAtom("m", .init(.length), 1, prefix: true)
    static let inch = UnitAtom("in", .init(.length), 0.0254)
    static let foot = UnitAtom("ft", .init(.length), 0.3048)
    static let yard = UnitAtom("yd", .init(.length), 0.9144)
    static let mile = UnitAtom("mi", .init(.length), 1609.344)

    static let liter = UnitAtom("L", .init(.length, 3), 0.001, prefix: true)
    static let fluidOunceUS = UnitAtom("fl_oz_us", .init(.length, 3), 29.5735295625e-6)
    static let fluidOunceImperial = UnitAtom("fl_oz_imp", .init(.length, 3), 28.4130625e-6)
    static let cupUS = UnitAtom("cup_us", .init(.length, 3), 236.5882365e-6)
    static let cupImperial = UnitAtom("cup_imp", .init(.length, 3), 284.130625e-6)
    static let pintUS = UnitAtom("pt_us", .init(.length, 3), 473.176473e-6)
    static let pintImperial = UnitAtom("pt_imp", .init(.length, 3), 568.26125e-6)

    static let pascal = UnitAtom("Pa", .init(.pressure), 1, prefix: true)
    static let millimeterOfMercury = UnitAtom("mmHg", .init(.pressure), 133.322387415)
    static let centimeterOfWater = UnitAtom("cmAq", .init(.pressure), 98.0665)
    static let atmosphere = UnitAtom("atm", .init(.pressure), 101_325)

    static let second = UnitAtom("s", .init(.time), 1, prefix: true)
    static let minute = UnitAtom("min", .init(.time), 60)
    static let hour = UnitAtom("hr", .init(.time), 3600)
    static let day = UnitAtom("d", .init(.time), 86_400)

    static let joule = UnitAtom("J", .init(.energy), 1, prefix: true)
    /// The small calorie (thermochemical, 4.184 J); `kcal` is its kilo.
    static let calorie = UnitAtom("cal", .init(.energy), 4.184, prefix: true)
    /// The food calorie `Cal`, equal to a kilocalorie.
    static let largeCalorie = UnitAtom("Cal", .init(.energy), 4184)

    static let kelvin = UnitAtom("K", .init(.temperature), 1)
    static let degreeCelsius = UnitAtom("degC", .init(.temperature), 1, offset: 273.15)
    static let degreeFahrenheit = UnitAtom("degF", .init(.temperature), 5.0 / 9.0, offset: 273.15 - 32 * 5.0 / 9.0)

    static let siemens = UnitAtom("S", .init(.conductance), 1, prefix: true)
    static let volt = UnitAtom("V", .init(.potential), 1, prefix: true)
    static let hertz = UnitAtom("Hz", .init(.time, -1), 1, prefix: true)
    static let watt = UnitAtom("W", .init([(.energy, 1), (.time, -1)]), 1, prefix: true)

    static let count = UnitAtom("count", UnitDimension(), 1)
    static let percent = UnitAtom("%", UnitDimension(), 0.01)
    static let internationalUnit = UnitAtom("IU", .init(.internationalUnit), 1)
    /// What an unparseable unit string becomes: compatible with nothing.
    static let invalid = UnitAtom("<invalid>", .init(.invalid), 1)

    static let all: [UnitAtom] = [
        .gram, .ounce, .pound, .stone, .meter, .inch, .foot, .yard, .mile,
        .liter, .fluidOunceUS, .fluidOunceImperial, .cupUS, .cupImperial, .pintUS, .pintImperial,
        .pascal, .millimeterOfMercury, .centimeterOfWater, .atmosphere,
        .second, .minute, .hour, .day, .joule, .calorie, .largeCalorie,
        .kelvin, .degreeCelsius, .degreeFahrenheit, .siemens, .volt, .hertz, .watt,
        .count, .percent, .internationalUnit,
    ]
    static let bySymbol = Dictionary(uniqueKeysWithValues: all.map { ($0.symbol, $0) })
}

/// Apple's unit-string grammar: atoms with optional metric prefixes and integer powers
/// (`m^2`, `s^-1`), products (`.`, `*`, `·`), quotients (`/`, left to right), parentheses, and
/// `1` for the dimensionless numerator of a reciprocal (`1/s`).
struct UnitStringParser {
    private let characters: [Character]
    private var index = 0
    private var depth = 0
    /// Parentheses nest at most this deep, and a power stays within ±``maximumPower``: a unit
    /// string is short, and neither the stack nor the arithmetic may be exhausted by one.
    static let maximumDepth = 8
    static let maximumPower = 64

    init(text: String) { characters = Array(text) }

    /// The factors of the whole string, or nil when it is not a unit.
    mutating func parseUnit() -> [HKUnit.Factor]? {
        guard !characters.isEmpty, let factors = parseProduct(), index == characters.count else { return nil }
        return factors
    }

    private mutating func parseProduct() -> [HKUnit.Factor]? {
        guard var factors = parseTerm() else { return nil }
        while index < characters.count {
            let operation = characters[index]
            guard operation == "/" || operation == "." || operation == "*" || operation == "·" else { break }
            index += 1
            guard let term = parseTerm() else { return nil }
            factors += operation == "/" ? term.map { HKUnit.Factor(atom: $0.atom, prefix: $0.prefix, power: -$0.power) } : term
        }
        return factors
    }

    private mutating func parseTerm() -> [HKUnit.Factor]? {
        guard index < characters.count else { return nil }
        var factors: [HKUnit.Factor]
        if characters[index] == "(" {
            guard depth < Self.maximumDepth else { return nil }
            index += 1
            depth += 1
            guard let inner = parseProduct(), index < characters.count, characters[index] == ")" else { return nil }
            depth -= 1
            index += 1
            factors = inner
        } else if characters[index] == "1" {
            index += 1
            factors = []
        } else {
            let start = index
            while index < characters.count, characters[index].isLetter || characters[index] == "_" || characters[index] == "%" {
                index += 1
            }
            guard index > start, let factor = Self.atom(String(characters[start..<index])) else { return nil }
            factors = [factor]
        }
        if index < characters.count, characters[index] == "^" {
            index += 1
            let start = index
            if index < characters.count, characters[index] == "-" { index += 1 }
            while index < characters.count, characters[index].isASCII, characters[index].isNumber { index += 1 }
            guard let power = Int(String(characters[start..<index])), abs(power) <= Self.maximumPower,
                  factors.allSatisfy({ abs($0.power * power) <= Self.maximumPower }) else { return nil }
            factors = factors.map { HKUnit.Factor(atom: $0.atom, prefix: $0.prefix, power: $0.power * power) }
        }
        return factors
    }

    /// An atom, exactly (`min`, `mmHg`, `Cal`) or as a prefix and a prefixable atom (`kcal`, `mcg`).
    static func atom(_ name: String) -> HKUnit.Factor? {
        if let atom = UnitAtom.bySymbol[name] { return HKUnit.Factor(atom: atom, prefix: .none, power: 1) }
        for prefix in HKMetricPrefix.bySymbolLength where name.hasPrefix(prefix.symbol) {
            if let atom = UnitAtom.bySymbol[String(name.dropFirst(prefix.symbol.count))], atom.takesPrefix {
                return HKUnit.Factor(atom: atom, prefix: prefix, power: 1)
            }
        }
        return nil
    }
}
