/// A metric family registered with a ``MetricsRegistry``: its handle for ``MetricsRegistry/series(_:_:)``.
public struct MetricFamily: Hashable, Sendable {
    let index: Int
}

/// One labelled series of a family: the handle the owner keeps (one per device, say) so an update
/// is an array index, not a lookup.
public struct MetricSeries: Hashable, Sendable {
    let index: Int
}

/// The service's metrics, kept by its loop and written in Prometheus' text format (0.0.4).
///
/// Families are registered once (name, help, label names; histogram buckets), series are looked
/// up once per label values (``series(_:_:)``), and updates through a ``MetricSeries`` cost one
/// array element: the loop updates as events happen, without locks (one owner), and a scrape
/// renders the whole text (``exposition()``).
///
/// ```swift
/// let metrics = MetricsRegistry()
/// let readings = metrics.counter("bandkit_readings_received_total", help: "Readings received.", labels: ["device"])
/// let latency = metrics.histogram("bandkit_commit_seconds", help: "Store commit latency.", buckets: [0.005, 0.05, 0.5, 5])
/// let band = metrics.series(readings, ["c0:ff:ee:00:00:01"])
/// metrics.add(band)
/// metrics.observe(metrics.series(latency, []), 0.012)
/// ```
///
/// Names are the program's own and checked (a programming error otherwise): metric names match
/// `[a-zA-Z_:][a-zA-Z0-9_:]*`, label names `[a-zA-Z_][a-zA-Z0-9_]*` without a leading `__` (and not
/// `le` in a histogram). Label values and help text may be anything; they are escaped as the
/// format says.
public final class MetricsRegistry {
    /// A family's kind: its `# TYPE`.
    public enum Kind: String, Sendable {
        case counter, gauge, histogram
    }

    /// One series' state, everything an update touches in one element: one access to one array
    /// per update (a class's stored arrays are checked for exclusive access at run time, per access).
    struct Cell {
        let kind: Kind
        /// The family's index in ``MetricsRegistry/families``.
        let family: Int
        var live = true
        /// A counter's or gauge's value; a histogram's sum.
        var value: Double = 0
        /// A histogram's observations.
        var count: UInt64 = 0
        /// Where the histogram's per-bucket counts start in ``MetricsRegistry/bucketCounts`` (not
        /// cumulative) and its upper bounds in ``MetricsRegistry/bucketBounds`` (the last +Inf).
        let firstBucket: Int
        /// The histogram's buckets, +Inf included; 0 for a counter or gauge.
        let bucketCount: Int

        /// Adds `amount`, under the kind's rule (a counter never falls); false for a histogram.
        mutating func add(_ amount: Double) -> Bool {
            guard kind != .histogram else { return false }
            if live, amount.isFinite, kind == .gauge || amount >= 0 { value += amount }
            return true
        }

        mutating func set(_ newValue: Double) -> Bool {
            guard kind != .histogram else { return false }
            if live, kind == .gauge || newValue >= value { value = newValue }
            return true
        }
    }

    struct Family {
        let name: String
        let help: String
        let kind: Kind
        let labelNames: [String]
        let buckets: [Double]
        /// The family's series (cell indices), in the order they were made.
        var members: [Int] = []
        var byLabels: [[String]: Int] = [:]
    }

    var families: [Family] = []
    // Unchecked: see "Exclusivity" in docs/performance.md (one owner, not Sendable; no access here
    // calls out while another is open). The checks were three quarters of an update (bench/service).
    @exclusivity(unchecked) var cells: [Cell] = []
    var labelValues: [[String]] = []
    @exclusivity(unchecked) var bucketCounts: [UInt64] = []
    @exclusivity(unchecked) var bucketBounds: [Double] = []
    private var names: Set<String> = []

    /// The `Content-Type` of ``exposition()``.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"
    /// The default histogram buckets, in seconds: 5 ms to 10 s, as Prometheus' client libraries.
    public static let defaultBuckets: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    public init() {}

    /// A counter: a total that only grows (by convention its name ends in `_total`).
    public func counter(_ name: String, help: String, labels: [String] = []) -> MetricFamily {
        register(name, help: help, kind: .counter, labels: labels, buckets: [])
    }

    /// A gauge: a value that goes up and down.
    public func gauge(_ name: String, help: String, labels: [String] = []) -> MetricFamily {
        register(name, help: help, kind: .gauge, labels: labels, buckets: [])
    }

    /// A histogram with upper bounds `buckets` (ascending, finite; `+Inf` is added).
    public func histogram(_ name: String, help: String, labels: [String] = [],
                          buckets: [Double] = MetricsRegistry.defaultBuckets) -> MetricFamily {
        precondition(!buckets.isEmpty && buckets.allSatisfy(\.isFinite) && zip(buckets, buckets.dropFirst()).allSatisfy { $0 < $1 },
                     "histogram \(name): buckets must be finite and strictly ascending")
        precondition(!labels.contains("le"), "histogram \(name): `le` is the bucket label")
        return register(name, help: help, kind: .histogram, labels: labels, buckets: buckets)
    }

    private func register(_ name: String, help: String, kind: Kind, labels: [String], buckets: [Double]) -> MetricFamily {
        precondition(Self.isMetricName(name), "\(name) is not a metric name")
        precondition(labels.allSatisfy(Self.isLabelName), "\(name): a label name is not valid: \(labels)")
        precondition(Set(labels).count == labels.count, "\(name): a label name is repeated")
        let taken = kind == .histogram ? [name, name + "_bucket", name + "_sum", name + "_count"] : [name]
        precondition(names.isDisjoint(with: taken), "\(name) is registered already")
        names.formUnion(taken)
        families.append(Family(name: name, help: help, kind: kind, labelNames: labels, buckets: buckets))
        let family = MetricFamily(index: families.count - 1)
        // A family without labels has its one series from the start, so it is exposed as 0.
        if labels.isEmpty { _ = series(family, []) }
        return family
    }

    /// The series of `family` with these label values (one per label name, in order), made on
    /// first use at zero; again after ``remove(_:_:)``, a fresh series at zero.
    public func series(_ family: MetricFamily, _ labelValues: [String]) -> MetricSeries {
        let stored = families[family.index]
        precondition(labelValues.count == stored.labelNames.count, "\(stored.name): \(stored.labelNames.count) label values needed")
        if let index = stored.byLabels[labelValues] {
            if !cells[index].live { reset(index) }
            return MetricSeries(index: index)
        }
        let firstBucket = bucketCounts.count
        let bucketCount = stored.kind == .histogram ? stored.buckets.count + 1 : 0
        if bucketCount > 0 {
            bucketCounts += Array(repeating: 0, count: bucketCount)
            bucketBounds += stored.buckets + [.infinity]
        }
        cells.append(Cell(kind: stored.kind, family: family.index, firstBucket: firstBucket, bucketCount: bucketCount))
        self.labelValues.append(labelValues)
        let index = cells.count - 1
        families[family.index].members.append(index)
        families[family.index].byLabels[labelValues] = index
        return MetricSeries(index: index)
    }

    private func reset(_ index: Int) {
        let old = cells[index]
        cells[index] = Cell(kind: old.kind, family: old.family, firstBucket: old.firstBucket, bucketCount: old.bucketCount)
        for bucket in bucketRange(index) { bucketCounts[bucket] = 0 }
    }

    /// Drops a series from the output (a device forgotten). Its handles stay safe to use: updates
    /// through them are ignored until ``series(_:_:)`` brings the series back.
    public func remove(_ family: MetricFamily, _ labelValues: [String]) {
        guard let index = families[family.index].byLabels[labelValues] else { return }
        cells[index].live = false
    }

    /// Adds `amount` (≥ 0; a negative or non-finite amount is ignored: a counter never falls) to a
    /// counter, or to a gauge (either sign).
    public func add(_ series: MetricSeries, _ amount: Double = 1) {
        precondition(cells[series.index].add(amount), "a histogram: observe(_:_:)")
    }

    /// Sets a gauge; or a counter to a total the owner counts itself (mirrored, never lowered:
    /// a smaller value is ignored, since Prometheus reads a fall as a restart).
    public func set(_ series: MetricSeries, _ value: Double) {
        precondition(cells[series.index].set(value), "a histogram: observe(_:_:)")
    }

    /// Records one observation in a histogram (a NaN is ignored).
    public func observe(_ series: MetricSeries, _ value: Double) {
        let cell = cells[series.index]
        precondition(cell.kind == .histogram, "not a histogram: add(_:_:) or set(_:_:)")
        guard cell.live, !value.isNaN else { return }
        // Bounds are few (about ten): a linear scan beats a binary search here. The last is +Inf.
        let bucket = bucketBounds.withUnsafeBufferPointer { bounds in
            var bucket = cell.firstBucket
            while bucket < cell.firstBucket + cell.bucketCount - 1, !(value <= bounds[bucket]) { bucket += 1 }
            return bucket
        }
        bucketCounts[bucket] += 1
        cells[series.index].count += 1
        cells[series.index].value += value
    }

    /// Sets a histogram to totals its owner counts itself (mirrored, as ``set(_:_:)`` mirrors a
    /// counter): `cumulativeCounts` holds, per bucket bound and then `+Inf`, the observations at
    /// or below it (so its last is the count), `sum` their sum. Totals that would lower any
    /// bucket or the count are ignored: Prometheus reads a fall as a restart.
    public func setHistogram(_ series: MetricSeries, cumulativeCounts: [UInt64], sum: Double) {
        let cell = cells[series.index]
        precondition(cell.kind == .histogram, "not a histogram: add(_:_:) or set(_:_:)")
        precondition(cumulativeCounts.count == cell.bucketCount, "\(cell.bucketCount) cumulative counts needed, +Inf last")
        precondition(zip(cumulativeCounts, cumulativeCounts.dropFirst()).allSatisfy { $0 <= $1 }, "cumulative counts never fall")
        guard cell.live, !sum.isNaN else { return }
        var stored: UInt64 = 0
        for (offset, total) in cumulativeCounts.enumerated() {
            stored += bucketCounts[cell.firstBucket + offset]
            guard total >= stored else { return }
        }
        var below: UInt64 = 0
        for (offset, total) in cumulativeCounts.enumerated() {
            bucketCounts[cell.firstBucket + offset] = total - below
            below = total
        }
        cells[series.index].count = below
        cells[series.index].value = sum
    }

    /// The current value of a counter or gauge, or a histogram's sum; nil for a removed series.
    public func value(_ series: MetricSeries) -> Double? {
        let cell = cells[series.index]
        return cell.live ? cell.value : nil
    }

    /// Where the histogram series at `index` keeps its per-bucket counts in ``bucketCounts``.
    func bucketRange(_ index: Int) -> Range<Int> {
        cells[index].firstBucket..<(cells[index].firstBucket + cells[index].bucketCount)
    }

    static func isMetricName(_ name: String) -> Bool {
        guard let first = name.utf8.first, !(0x30...0x39).contains(first) else { return false }
        return name.utf8.allSatisfy { isWordByte($0) || $0 == UInt8(ascii: ":") }
    }

    static func isLabelName(_ name: String) -> Bool {
        guard let first = name.utf8.first, !(0x30...0x39).contains(first), !name.hasPrefix("__") else { return false }
        return name.utf8.allSatisfy(isWordByte)
    }

    private static func isWordByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"): true
        default: false
        }
    }
}
