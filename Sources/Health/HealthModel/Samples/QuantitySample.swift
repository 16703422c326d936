import FoundationEssentials

/// A measured amount over an interval (HealthKit `HKQuantitySample`).
///
/// `start == end` is an instantaneous measurement (one heart-rate reading). Samples read back from
/// the store carry their quantity in the type's canonical unit and their ``source``.
public struct QuantitySample: Hashable, Sendable {
    public var id: UUID
    public var type: QuantityType
    public var quantity: Quantity
    public var start: Date
    public var end: Date
    /// The zone the sample was recorded in (HealthKit `HKMetadataKeyTimeZone`), for local-day display.
    public var timeZone: TimeZone?
    /// The app that saved the sample; set by the store (the writing app), nil before saving.
    public var source: AppIdentity?
    public var device: DeviceInfo?
    /// With ``syncVersion``: saving again under the same (source, type, sync identifier) replaces
    /// the stored sample only when the new version is greater (HealthKit's rule).
    public var syncIdentifier: String?
    public var syncVersion: Int64
    /// Entered by hand (HealthKit `HKMetadataKeyWasUserEntered`).
    public var userEntered: Bool
    public var metadata: [String: String]

    public init(id: UUID = .timeOrdered(), type: QuantityType, quantity: Quantity, start: Date, end: Date,
                timeZone: TimeZone? = nil, device: DeviceInfo? = nil, syncIdentifier: String? = nil,
                syncVersion: Int64 = 0, userEntered: Bool = false, metadata: [String: String] = [:],
                source: AppIdentity? = nil) {
        self.id = id
        self.type = type
        self.quantity = quantity
        self.start = start
        self.end = end
        self.timeZone = timeZone
        self.source = source
        self.device = device
        self.syncIdentifier = syncIdentifier
        self.syncVersion = syncVersion
        self.userEntered = userEntered
        self.metadata = metadata
    }

    /// The value in the type's canonical unit; throws when the quantity's unit does not fit the type.
    public func canonicalValue() throws(UnitError) -> Double {
        try quantity.value(in: type.canonicalUnit)
    }
}

/// A sample whose value is one of a category's enumerated values (HealthKit `HKCategorySample`).
public struct CategorySample: Hashable, Sendable {
    public var id: UUID
    public var type: CategoryType
    public var value: Int
    public var start: Date
    public var end: Date
    public var timeZone: TimeZone?
    public var source: AppIdentity?
    public var device: DeviceInfo?
    public var syncIdentifier: String?
    public var syncVersion: Int64
    public var userEntered: Bool
    public var metadata: [String: String]

    public init(id: UUID = .timeOrdered(), type: CategoryType, value: Int, start: Date, end: Date,
                timeZone: TimeZone? = nil, device: DeviceInfo? = nil, syncIdentifier: String? = nil,
                syncVersion: Int64 = 0, userEntered: Bool = false, metadata: [String: String] = [:],
                source: AppIdentity? = nil) {
        self.id = id
        self.type = type
        self.value = value
        self.start = start
        self.end = end
        self.timeZone = timeZone
        self.source = source
        self.device = device
        self.syncIdentifier = syncIdentifier
        self.syncVersion = syncVersion
        self.userEntered = userEntered
        self.metadata = metadata
    }
}

/// A quantity or category sample, as returned by queries over any type and by the change feed.
public enum Sample: Hashable, Sendable {
    case quantity(QuantitySample)
    case category(CategorySample)

    public var id: UUID {
        switch self { case .quantity(let s): s.id; case .category(let s): s.id }
    }
    public var sampleType: SampleType {
        switch self { case .quantity(let s): .quantity(s.type); case .category(let s): .category(s.type) }
    }
    public var start: Date {
        switch self { case .quantity(let s): s.start; case .category(let s): s.start }
    }
    public var end: Date {
        switch self { case .quantity(let s): s.end; case .category(let s): s.end }
    }
    public var source: AppIdentity? {
        switch self { case .quantity(let s): s.source; case .category(let s): s.source }
    }
    public var quantitySample: QuantitySample? { if case .quantity(let s) = self { s } else { nil } }
    public var categorySample: CategorySample? { if case .category(let s) = self { s } else { nil } }
}

/// What saving a sample did under the sync-identifier rule.
public enum SaveOutcome: Hashable, Sendable {
    /// A new sample was stored.
    case inserted
    /// A stored sample with the same (source, type, sync identifier) and a lower version was replaced.
    case replaced(previous: UUID)
    /// A stored sample with the same key and an equal or greater version was kept; nothing changed.
    case unchanged(existing: UUID)
}
