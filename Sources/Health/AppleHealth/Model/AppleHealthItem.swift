import HealthModel

/// One thing export.xml holds that the store keeps, as the parser hands it on.
public enum AppleHealthItem: Sendable {
    /// A `Record` of a quantity type; its `QuantitySample/source` is the record's sourceName/sourceVersion.
    case quantity(QuantitySample)
    /// A `Record` of a category type (sleep analysis, stand hour).
    case category(CategorySample)
    /// A `Workout`, with totals and events; its id is derived from the element, so a re-import finds it.
    case workout(Workout)
    /// The `Me` element's characteristics, in the store's spelling (`1980-02-29`, `female`, `AB+`).
    case characteristics([CharacteristicSetting])
}

/// One characteristic from the `Me` element.
public struct CharacteristicSetting: Hashable, Sendable {
    public var type: CharacteristicType
    public var value: String
    public init(_ type: CharacteristicType, _ value: String) {
        self.type = type
        self.value = value
    }
}

/// What a parse found: how many of each kind it handed on, and what it skipped, by name.
public struct AppleHealthSummary: Hashable, Sendable {
    public var quantitySamples = 0
    public var categorySamples = 0
    public var workouts = 0
    public var characteristics = 0
    /// Skipped elements and record types the store does not keep (`HKQuantityTypeIdentifierVO2Max`,
    /// `ActivitySummary`, `Correlation HKCorrelationTypeIdentifierBloodPressure`, `WorkoutRoute`), with counts.
    public var skipped: [String: Int] = [:]

    public init() {}

    public var records: Int { quantitySamples + categorySamples }
    public var skippedTotal: Int { skipped.values.reduce(0, +) }
}

/// An error the item sink threw, with the place in export.xml of the item it refused.
public struct AppleHealthSinkError: Error, CustomStringConvertible {
    public var place: String
    public var underlying: any Error
    public var description: String { "\(place): \(underlying)" }
}
