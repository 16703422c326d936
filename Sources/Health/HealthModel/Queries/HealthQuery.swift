import FoundationEssentials

/// Which samples a time range selects (HealthKit `HKQueryOptions` on a sample predicate).
///
/// With the range `[from, to)` and a sample `[start, end]`:
///
/// | predicate | selects | note |
/// |---|---|---|
/// | `.overlaps` (default) | `start < to && end > from` | an instantaneous sample (`start == end`) counts when `from ≤ start < to` |
/// | `.strictStart` | `from ≤ start < to` | |
/// | `.strictEnd` | `from < end ≤ to` | instantaneous samples: `from ≤ end < to` |
/// | `.strictStartAndEnd` | `from ≤ start && end ≤ to` | the sample lies wholly inside |
public enum TimePredicate: String, Hashable, Sendable, CaseIterable {
    case overlaps
    case strictStart
    case strictEnd
    case strictStartAndEnd
}

/// Result order of a sample query.
public enum SampleSort: String, Hashable, Sendable {
    case startAscending
    case startDescending
    /// Latest end first (ties: latest start): the order of "most recent sample".
    case endDescending
}

/// A sample query (HealthKit `HKSampleQuery`): raw samples of one type from every source the
/// reading app may see. Summing raw cumulative samples double-counts; use statistics for totals.
public struct HealthQuery: Hashable, Sendable {
    public var type: SampleType
    public var range: Range<Date>?
    public var predicate: TimePredicate
    /// Source app identifiers to keep; nil keeps all.
    public var sources: [String]?
    /// Device names or hardware identifiers to keep; nil keeps all.
    public var devices: [String]?
    public var limit: Int?
    public var sort: SampleSort

    public init(type: SampleType, range: Range<Date>? = nil, predicate: TimePredicate = .overlaps,
                sources: [String]? = nil, devices: [String]? = nil, limit: Int? = nil,
                sort: SampleSort = .startAscending) {
        self.type = type
        self.range = range
        self.predicate = predicate
        self.sources = sources
        self.devices = devices
        self.limit = limit
        self.sort = sort
    }

    public init(type: QuantityType, range: Range<Date>? = nil, predicate: TimePredicate = .overlaps,
                sources: [String]? = nil, devices: [String]? = nil, limit: Int? = nil,
                sort: SampleSort = .startAscending) {
        self.init(type: .quantity(type), range: range, predicate: predicate, sources: sources,
                  devices: devices, limit: limit, sort: sort)
    }

    public init(type: CategoryType, range: Range<Date>? = nil, predicate: TimePredicate = .overlaps,
                sources: [String]? = nil, devices: [String]? = nil, limit: Int? = nil,
                sort: SampleSort = .startAscending) {
        self.init(type: .category(type), range: range, predicate: predicate, sources: sources,
                  devices: devices, limit: limit, sort: sort)
    }
}

/// A position in the store's change feed. Anchors only grow: every insert, replacement and
/// deletion takes the next value. ``zero`` asks for everything.
public struct Anchor: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public var rawValue: Int64
    public init(rawValue: Int64) { self.rawValue = rawValue }
    public static let zero = Anchor(rawValue: 0)
    public static func < (a: Anchor, b: Anchor) -> Bool { a.rawValue < b.rawValue }
    public var description: String { String(rawValue) }
}

/// A sample that was deleted or replaced (HealthKit `HKDeletedObject`).
public struct DeletedSample: Hashable, Sendable {
    public var id: UUID
    public var type: SampleType
    public var anchor: Anchor
    public init(id: UUID, type: SampleType, anchor: Anchor) {
        self.id = id
        self.type = type
        self.anchor = anchor
    }
}

/// What changed after an anchor (HealthKit `HKAnchoredObjectQuery` results).
public struct ChangeSet: Hashable, Sendable {
    /// Samples inserted, or inserted as replacements, after the anchor, in anchor order.
    public var samples: [Sample]
    /// Samples deleted or replaced after the anchor.
    public var deleted: [DeletedSample]
    /// Pass this to the next call to continue where this one stopped.
    public var newAnchor: Anchor
    /// Workouts saved after the anchor (up to ``newAnchor``), in anchor order.
    public var workouts: [Workout]

    public init(samples: [Sample], deleted: [DeletedSample], newAnchor: Anchor, workouts: [Workout] = []) {
        self.samples = samples
        self.deleted = deleted
        self.newAnchor = newAnchor
        self.workouts = workouts
    }
}
