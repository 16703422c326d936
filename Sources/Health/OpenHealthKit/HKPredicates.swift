import Foundation
internal import HealthModel

/// How a sample's dates must lie within a predicate's interval (HealthKit `HKQueryOptions`).
public struct HKQueryOptions: OptionSet, Hashable, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let strictStartDate = HKQueryOptions(rawValue: 1 << 0)
    public static let strictEndDate = HKQueryOptions(rawValue: 1 << 1)

    var timePredicate: TimePredicate {
        switch (contains(.strictStartDate), contains(.strictEndDate)) {
        case (false, false): .overlaps
        case (true, false): .strictStart
        case (false, true): .strictEnd
        case (true, true): .strictStartAndEnd
        }
    }
}

/// One of HealthKit's predicates, as an `NSPredicate` so that `NSCompoundPredicate` combines it.
/// The store runs date, source and device conditions itself; anything else (and every predicate
/// inside an OR or NOT) is evaluated on the samples it returns.
final class HKFilterPredicate: NSPredicate {
    enum Filter {
        case dates(Range<Date>, TimePredicate)
        case sources(Set<String>)
        case devices(Set<DeviceInfo>)
        case metadataKey(String, allowed: Set<String>?)
        case uuids(Set<UUID>)
        case workoutActivity(HKWorkoutActivityType)
    }

    let filter: Filter

    init(_ filter: Filter) {
        self.filter = filter
        super.init(value: true)
    }

    required init?(coder: NSCoder) { nil }

    override func evaluate(with object: Any?) -> Bool { matches(object) }
    override func evaluate(with object: Any?, substitutionVariables bindings: [String: Any]?) -> Bool { matches(object) }

    func matches(_ object: Any?) -> Bool {
        guard let object = object as? HKObject else { return false }
        switch filter {
        case .dates(let range, let predicate):
            guard let sample = object as? HKSample else { return false }
            return Self.dates(sample.startDate, sample.endDate, in: range, predicate)
        case .sources(let sources): return sources.contains(object.sourceRevision.source.bundleIdentifier)
        case .devices(let devices): return object.device.map { devices.contains($0.info) } ?? false
        case .metadataKey(let key, let allowed):
            guard let value = object.metadata?[key] else { return false }
            return allowed.map { $0.contains(MetadataMapping.text(value)) } ?? true
        case .uuids(let uuids): return uuids.contains(object.uuid)
        case .workoutActivity(let type): return (object as? HKWorkout)?.workoutActivityType == type
        }
    }

    /// The store's time predicates (docs/architecture.md, "Queries"), for samples filtered here.
    static func dates(_ start: Date, _ end: Date, in range: Range<Date>, _ predicate: TimePredicate) -> Bool {
        let from = range.lowerBound, to = range.upperBound
        switch predicate {
        case .overlaps: return start == end ? (from <= start && start < to) : (start < to && end > from)
        case .strictStart: return from <= start && start < to
        case .strictEnd: return start == end ? (from <= end && end < to) : (from < end && end <= to)
        case .strictStartAndEnd: return from <= start && start < to && end <= to
        }
    }
}

extension HKQuery {
    /// Samples in a time interval; a nil start or end leaves that side open.
    public class func predicateForSamples(withStart startDate: Date?, end endDate: Date?,
                                          options: HKQueryOptions = []) -> NSPredicate {
        let start = startDate ?? PlausibleRange.earliest
        let end = max(start, endDate ?? PlausibleRange.latest)
        return HKFilterPredicate(.dates(start..<end, options.timePredicate))
    }

    public class func predicateForObjects(from source: HKSource) -> NSPredicate {
        HKFilterPredicate(.sources([source.bundleIdentifier]))
    }

    public class func predicateForObjects(from sources: Set<HKSource>) -> NSPredicate {
        HKFilterPredicate(.sources(Set(sources.map(\.bundleIdentifier))))
    }

    public class func predicateForObjects(from sourceRevisions: Set<HKSourceRevision>) -> NSPredicate {
        HKFilterPredicate(.sources(Set(sourceRevisions.map(\.source.bundleIdentifier))))
    }

    public class func predicateForObjects(from devices: Set<HKDevice>) -> NSPredicate {
        HKFilterPredicate(.devices(Set(devices.map(\.info))))
    }

    public class func predicateForObjects(withMetadataKey key: String) -> NSPredicate {
        HKFilterPredicate(.metadataKey(key, allowed: nil))
    }

    public class func predicateForObjects(withMetadataKey key: String, allowedValues: [Any]) -> NSPredicate {
        HKFilterPredicate(.metadataKey(key, allowed: Set(allowedValues.map(MetadataMapping.text))))
    }

    public class func predicateForObject(with uuid: UUID) -> NSPredicate { HKFilterPredicate(.uuids([uuid])) }

    public class func predicateForObjects(with uuids: Set<UUID>) -> NSPredicate { HKFilterPredicate(.uuids(uuids)) }

    public class func predicateForWorkouts(with workoutActivityType: HKWorkoutActivityType) -> NSPredicate {
        HKFilterPredicate(.workoutActivity(workoutActivityType))
    }
}

/// What of a predicate the store runs (one date range, sources) and what is left to
/// evaluate on the samples it returns.
struct PredicatePlan {
    var range: Range<Date>?
    var timePredicate: TimePredicate = .overlaps
    var sources: [String]?
    /// Evaluated on every returned sample; nil when the store ran the whole predicate.
    var residual: NSPredicate?

    init(_ predicate: NSPredicate?) {
        guard let predicate else { return }
        var rest: [NSPredicate] = []
        let parts: [NSPredicate]
        if let compound = predicate as? NSCompoundPredicate {
            guard compound.compoundPredicateType == .and else { residual = predicate; return }
            parts = (compound.subpredicates as [Any]).compactMap { $0 as? NSPredicate }
        } else {
            parts = [predicate]
        }
        for part in parts {
            guard let filter = part as? HKFilterPredicate else { rest.append(part); continue }
            switch filter.filter {
            case .dates(let range, let time) where self.range == nil:
                self.range = range
                timePredicate = time
            case .sources(let sources) where self.sources == nil:
                self.sources = sources.sorted()
            default:
                rest.append(part)
            }
        }
        if !rest.isEmpty { residual = rest.count == 1 ? rest[0] : NSCompoundPredicate(andPredicateWithSubpredicates: rest) }
    }

    /// Whether nothing but a date range is asked for (what statistics queries accept).
    var isDatesOnly: Bool { sources == nil && residual == nil }
}
