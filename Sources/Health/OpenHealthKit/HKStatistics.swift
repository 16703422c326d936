import Foundation
internal import HealthModel

/// Which statistics to compute (HealthKit `HKStatisticsOptions`).
public struct HKStatisticsOptions: OptionSet, Hashable, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    public static let separateBySource = HKStatisticsOptions(rawValue: 1 << 0)
    public static let discreteAverage = HKStatisticsOptions(rawValue: 1 << 1)
    public static let discreteMin = HKStatisticsOptions(rawValue: 1 << 2)
    public static let discreteMax = HKStatisticsOptions(rawValue: 1 << 3)
    public static let cumulativeSum = HKStatisticsOptions(rawValue: 1 << 4)
    public static let mostRecent = HKStatisticsOptions(rawValue: 1 << 5)
    @available(*, deprecated, renamed: "mostRecent")
    public static let discreteMostRecent = HKStatisticsOptions.mostRecent
    /// Not computed by BandKit's store: a query asking for it fails with errorInvalidArgument.
    public static let duration = HKStatisticsOptions(rawValue: 1 << 6)

    /// The store's options; throws for what it does not compute.
    func model() throws(HKError) -> StatisticsOptions {
        if contains(.duration) { throw HKError(.errorInvalidArgument, "the duration statistic is not computed by BandKit's store") }
        var options: StatisticsOptions = []
        if contains(.cumulativeSum) { options.insert(.sum) }
        if contains(.discreteAverage) { options.insert(.average) }
        if contains(.discreteMin) { options.insert(.minimum) }
        if contains(.discreteMax) { options.insert(.maximum) }
        if contains(.mostRecent) { options.insert(.mostRecent) }
        return options
    }
}

/// Statistics of one quantity type over one interval (HealthKit `HKStatistics`), merged over
/// sources by the store's priority merge, and per source with `.separateBySource`.
public final class HKStatistics: @unchecked Sendable {
    public let quantityType: HKQuantityType
    public let startDate: Date
    public let endDate: Date
    let merged: StatisticsValues
    let bySource: [(source: HKSource, values: StatisticsValues)]
    private let explicitSum: HKQuantity?

    init(type: HKQuantityType, statistics: Statistics) {
        quantityType = type
        startDate = statistics.start
        endDate = statistics.end
        merged = statistics.values
        bySource = statistics.bySource.map { (HKSource(bundleIdentifier: $0.source), $0.values) }
        explicitSum = nil
    }

    /// A sum known without a query (a workout's own total).
    init(type: HKQuantityType, start: Date, end: Date, sum: HKQuantity) {
        quantityType = type
        startDate = start
        endDate = end
        merged = StatisticsValues()
        bySource = []
        explicitSum = sum
    }

    /// The sources with data in the interval, with `.separateBySource`; nil otherwise.
    public var sources: [HKSource]? { bySource.isEmpty ? nil : bySource.map(\.source) }

    private func quantity(_ value: Double?) -> HKQuantity? {
        value.map { HKQuantity(unit: quantityType.canonicalUnit, doubleValue: $0) }
    }
    private func values(for source: HKSource) -> StatisticsValues? {
        bySource.first { $0.source == source }?.values
    }

    public func sumQuantity() -> HKQuantity? { explicitSum ?? quantity(merged.sum) }
    public func averageQuantity() -> HKQuantity? { quantity(merged.average) }
    public func minimumQuantity() -> HKQuantity? { quantity(merged.minimum) }
    public func maximumQuantity() -> HKQuantity? { quantity(merged.maximum) }
    public func mostRecentQuantity() -> HKQuantity? { quantity(merged.mostRecent) }
    /// The most recent sample's start as a zero-length interval (the store keeps its start only).
    public func mostRecentQuantityDateInterval() -> DateInterval? {
        merged.mostRecentDate.map { DateInterval(start: $0, duration: 0) }
    }

    public func sumQuantity(for source: HKSource) -> HKQuantity? { quantity(values(for: source)?.sum) }
    public func averageQuantity(for source: HKSource) -> HKQuantity? { quantity(values(for: source)?.average) }
    public func minimumQuantity(for source: HKSource) -> HKQuantity? { quantity(values(for: source)?.minimum) }
    public func maximumQuantity(for source: HKSource) -> HKQuantity? { quantity(values(for: source)?.maximum) }
    public func mostRecentQuantity(for source: HKSource) -> HKQuantity? { quantity(values(for: source)?.mostRecent) }

    /// Whether the interval holds any data (HealthKit leaves every quantity nil then).
    var hasData: Bool {
        explicitSum != nil || merged.sum != nil || merged.sampleCount > 0
    }
}

/// Statistics in consecutive intervals (HealthKit `HKStatisticsCollection`).
public final class HKStatisticsCollection: @unchecked Sendable {
    let all: [HKStatistics]

    init(_ statistics: [HKStatistics]) { all = statistics }

    /// Every interval, empty ones included (their quantities are nil).
    public func statistics() -> [HKStatistics] { all }

    /// The interval containing `date`, or nil outside the collection.
    public func statistics(for date: Date) -> HKStatistics? {
        all.first { $0.startDate <= date && date < $0.endDate }
    }

    /// Calls `block` for every interval that starts in `startDate...endDate`, in order; `stop`
    /// ends the enumeration.
    public func enumerateStatistics(from startDate: Date, to endDate: Date,
                                    with block: (HKStatistics, UnsafeMutablePointer<Bool>) -> Void) {
        var stop = false
        for statistics in all where statistics.startDate >= startDate && statistics.startDate <= endDate {
            block(statistics, &stop)
            if stop { return }
        }
    }

    public func sources() -> Set<HKSource> { Set(all.flatMap { $0.sources ?? [] }) }
}
