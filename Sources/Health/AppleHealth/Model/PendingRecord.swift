import FoundationEssentials
import HealthModel

/// A `Record` between its start tag (attributes) and its end tag (after its `MetadataEntry` children).
struct PendingRecord {
    enum Kind {
        case quantity(QuantityType, HealthUnit, Double)
        case category(CategoryType, Int)
    }

    var kind: Kind
    var source: AppIdentity
    var device: DeviceInfo?
    var start: AppleDate.Parsed
    var end: AppleDate.Parsed
    var hash: StableHash
    var metadata = Metadata()
}

/// A record's or workout's `MetadataEntry` children, with the keys HealthKit gives meaning to
/// taken out: the sync identifier and version, user entry, the time zone.
struct Metadata {
    var entries: [String: String] = [:]
    var syncIdentifier: String?
    var syncVersion: Int64 = 0
    var userEntered = false
    var zoneName: String?
    var bytes = 0

    static let syncIdentifierKey = "HKMetadataKeySyncIdentifier"
    static let syncVersionKey = "HKMetadataKeySyncVersion"
    static let userEnteredKey = "HKWasUserEntered"
    static let timeZoneKey = "HKTimeZone"
    /// Limits that keep one element's memory bounded.
    static let maximumEntries = 512
    static let maximumBytes = 256 * 1024

    /// Adds one entry; a message when it is malformed or past the limits.
    mutating func add(key: String, value: String) -> String? {
        bytes += key.utf8.count + value.utf8.count
        if entries.count >= Metadata.maximumEntries { return "more than \(Metadata.maximumEntries) MetadataEntry elements" }
        if bytes > Metadata.maximumBytes { return "MetadataEntry keys and values longer than \(Metadata.maximumBytes) bytes in all" }
        switch key {
        case Metadata.syncIdentifierKey:
            guard !value.isEmpty else { return "\(key) is empty" }
            syncIdentifier = value
        case Metadata.syncVersionKey:
            guard let version = Int64(value) else { return "\(key) '\(value)' is not an integer" }
            syncVersion = version
        case Metadata.userEnteredKey: userEntered = value == "1" || value == "true"
        case Metadata.timeZoneKey: zoneName = value
        default:
            if entries.updateValue(value, forKey: key) != nil { return "MetadataEntry key '\(key)' given twice" }
        }
        return nil
    }
}

/// A `Workout` between its start and end tags.
struct PendingWorkout {
    var activity: WorkoutActivityType
    var source: AppIdentity
    var device: DeviceInfo?
    var start: AppleDate.Parsed
    var end: AppleDate.Parsed
    var energy: Quantity?
    var distance: Quantity?
    var events: [String] = []
    var hash: StableHash
    var metadata = Metadata()

    /// The metadata key workout events are kept under: one line per `WorkoutEvent`,
    /// `type<TAB>date<TAB>duration<TAB>durationUnit` (the last two may be empty).
    static let eventsKey = "HKWorkoutEvents"
    static let maximumEvents = 10_000
}
