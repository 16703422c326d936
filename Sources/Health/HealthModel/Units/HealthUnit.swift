/// A unit of measure, as HealthKit's `HKUnit`: a physical dimension plus an affine map onto that
/// dimension's base unit (`base = value × scale + offset`).
///
/// Values are stored in each type's canonical unit and converted only at the API edge. Converting
/// between dimensions (steps to metres, kcal to kg) throws ``UnitError/incompatible(from:to:)``:
/// a wrong unit is always an error, never a silently meaningless number.
public struct HealthUnit: Hashable, Sendable, CustomStringConvertible {
    /// The physical dimension a unit measures; only units of one dimension convert into each other.
    public struct Dimension: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// Plain numbers: counts, indices, ratios. Base: count.
        public static let scalar = Dimension(rawValue: "scalar")
        /// Base: metre.
        public static let length = Dimension(rawValue: "length")
        /// Base: kilocalorie.
        public static let energy = Dimension(rawValue: "energy")
        /// Base: kilogram.
        public static let mass = Dimension(rawValue: "mass")
        /// Events per time (heart rate). Base: count/min.
        public static let frequency = Dimension(rawValue: "frequency")
        /// Base: second.
        public static let time = Dimension(rawValue: "time")
        /// Base: degree Celsius.
        public static let temperature = Dimension(rawValue: "temperature")
    }

    /// The spelling used on the command line, in files and in the database (`kcal`, `count/min`).
    public let symbol: String
    public let dimension: Dimension
    let scale: Double
    let offset: Double

    init(_ symbol: String, _ dimension: Dimension, scale: Double = 1, offset: Double = 0) {
        self.symbol = symbol
        self.dimension = dimension
        self.scale = scale
        self.offset = offset
    }

    public var description: String { symbol }

    public static let count = HealthUnit("count", .scalar)
    /// HealthKit's percent: 1 % = 0.01 (a scalar, so `count` and `%` convert into each other).
    public static let percent = HealthUnit("%", .scalar, scale: 0.01)

    public static let meter = HealthUnit("m", .length)
    public static let centimeter = HealthUnit("cm", .length, scale: 0.01)
    public static let kilometer = HealthUnit("km", .length, scale: 1000)
    public static let mile = HealthUnit("mi", .length, scale: 1609.344)
    public static let foot = HealthUnit("ft", .length, scale: 0.3048)
    public static let inch = HealthUnit("in", .length, scale: 0.0254)

    public static let kilocalorie = HealthUnit("kcal", .energy)
    /// The "large" or food calorie: exactly one kilocalorie (HealthKit `largeCalorie`).
    public static let largeCalorie = HealthUnit("Cal", .energy)
    /// The "small" calorie: 1/1000 kcal (HealthKit `smallCalorie`).
    public static let smallCalorie = HealthUnit("cal", .energy, scale: 0.001)
    /// 1 kcal = 4.184 kJ (thermochemical calorie).
    public static let kilojoule = HealthUnit("kJ", .energy, scale: 1 / 4.184)

    public static let kilogram = HealthUnit("kg", .mass)
    public static let gram = HealthUnit("g", .mass, scale: 0.001)
    /// The international avoirdupois pound, 0.45359237 kg exactly.
    public static let pound = HealthUnit("lb", .mass, scale: 0.45359237)

    public static let countPerMinute = HealthUnit("count/min", .frequency)
    public static let countPerSecond = HealthUnit("count/s", .frequency, scale: 60)

    public static let second = HealthUnit("s", .time)
    public static let millisecond = HealthUnit("ms", .time, scale: 0.001)
    public static let minute = HealthUnit("min", .time, scale: 60)

    public static let degreeCelsius = HealthUnit("degC", .temperature)
    public static let degreeFahrenheit = HealthUnit("degF", .temperature, scale: 5.0 / 9.0, offset: -32 * 5.0 / 9.0)
    public static let kelvin = HealthUnit("K", .temperature, offset: -273.15)

    /// Every unit the parser knows, under its canonical symbol.
    public static let all: [HealthUnit] = [
        .count, .percent, .meter, .centimeter, .kilometer, .mile, .foot, .inch,
        .kilocalorie, .largeCalorie, .smallCalorie, .kilojoule, .kilogram, .gram, .pound,
        .countPerMinute, .countPerSecond, .second, .millisecond, .minute,
        .degreeCelsius, .degreeFahrenheit, .kelvin,
    ]

    /// Other spellings people and exporters use. Case matters: `Cal` (kcal) is not `cal`.
    static let aliases: [String: HealthUnit] = [
        "bpm": .countPerMinute, "/min": .countPerMinute, "beats/min": .countPerMinute,
        "°C": .degreeCelsius, "°F": .degreeFahrenheit, "steps": .count,
    ]

    /// Parses a unit symbol (`kcal`, `count/min`, `degF`, …).
    public init(parsing text: String) throws(UnitError) {
        if let unit = HealthUnit.all.first(where: { $0.symbol == text }) ?? HealthUnit.aliases[text] {
            self = unit
        } else {
            throw UnitError.unknownUnit(text)
        }
    }

    /// Whether values in `self` and `other` measure the same thing.
    public func isCompatible(with other: HealthUnit) -> Bool { dimension == other.dimension }

    /// Converts `value` from `self` into `target`.
    public func convert(_ value: Double, to target: HealthUnit) throws(UnitError) -> Double {
        guard isCompatible(with: target) else { throw UnitError.incompatible(from: self, to: target) }
        if self == target { return value }
        return (value * scale + offset - target.offset) / target.scale
    }
}

/// A unit that cannot be parsed or converted.
public enum UnitError: Error, Hashable, Sendable, CustomStringConvertible {
    case unknownUnit(String)
    case incompatible(from: HealthUnit, to: HealthUnit)

    public var description: String {
        switch self {
        case .unknownUnit(let text):
            return "unknown unit '\(text)' (known: \(HealthUnit.all.map(\.symbol).joined(separator: ", ")))"
        case .incompatible(let from, let to):
            return "cannot convert \(from.dimension) unit '\(from.symbol)' to \(to.dimension) unit '\(to.symbol)'"
        }
    }
}
