import Foundation
internal import HealthModel
internal import HealthStore

/// Reading for the queries: sample queries on the store's sample query, statistics on the store's
/// merged statistics (the code `health stats` runs), changes on its change feed.
extension HKHealthStore {
    /// Samples of `type` matching `predicate`, sorted, at most `limit` (0: no limit). The store
    /// runs the date range, the sources, the usual orders and the limit; what else the predicate
    /// asks is evaluated here, before sorting and limiting.
    func samples(of type: HKSampleType, predicate: NSPredicate?, limit: Int, sortDescriptors: [NSSortDescriptor]?) throws(HKError) -> [HKSample] {
        guard limit >= 0 else { throw HKError(.errorInvalidArgument, "limit \(limit) is negative (HKObjectQueryNoLimit is 0)") }
        let store = try store()
        let plan = PredicatePlan(predicate)
        let order = try SampleOrder(sortDescriptors)
        if type is HKWorkoutType {
            let workouts = try healthKitErrors { try store.workouts(in: plan.range, as: app) }
            let objects: [HKSample] = workouts.map { HKWorkout(stored: $0, statistics: workoutStatistics(store)) }
            return order.apply(objects.filter { predicate?.evaluate(with: $0) ?? true }, limit: limit)
        }
        guard let sampleType = type.sampleType else { return [] }
        let pushed = plan.residual == nil ? order.storeSort : nil
        let query = HealthQuery(type: sampleType, range: plan.range, predicate: plan.timePredicate, sources: plan.sources,
                                limit: pushed != nil && limit > 0 ? limit : nil, sort: pushed ?? .startAscending)
        var objects = try healthKitErrors { try store.samples(query, as: app) }.map(HKSample.wrapping)
        if let residual = plan.residual { objects = objects.filter { residual.evaluate(with: $0) } }
        return pushed != nil ? objects : order.apply(objects, limit: limit)
    }

    private func workoutStatistics(_ store: HealthStore) -> @Sendable (HKWorkout, HKQuantityType) -> HKStatistics? {
        let app = self.app
        return { workout, type in
            guard workout.endDate > workout.startDate else { return nil }
            let options: StatisticsOptions = type.model.aggregation == .cumulative ? .sum : [.average, .minimum, .maximum, .mostRecent]
            guard let bucket = try? store.statistics(type: type.model, range: workout.startDate..<workout.endDate,
                                                     options: options, as: app).first else { return nil }
            let statistics = HKStatistics(type: type, statistics: bucket)
            return statistics.hasData ? statistics : nil
        }
    }

    /// Statistics of `type` in buckets of `interval` (one bucket when nil) anchored at `anchor`,
    /// in the current time zone. The predicate may only restrict dates (its range is the
    /// statistics' range); without one, the range is the span of the visible samples.
    func statistics(of type: HKQuantityType, predicate: NSPredicate?, options: HKStatisticsOptions,
                    interval: DateComponents?, anchor: Date?) throws(HKError) -> [HKStatistics] {
        let store = try store()
        let plan = PredicatePlan(predicate)
        guard plan.isDatesOnly else {
            throw HKError(.errorInvalidArgument, "statistics queries over BandKit's store take date predicates only")
        }
        let storeOptions = try options.model()
        do { try storeOptions.validate(for: type.model) } catch {
            throw HKError(.errorInvalidArgument, "\(error)")
        }
        let bucket = try interval.map(BucketInterval.init(components:))
        var range = plan.range
        if range == nil {
            guard let span = try dataSpan(of: type, store) else { return [] }
            range = span
        }
        guard let range, range.lowerBound < range.upperBound else { return [] }
        let buckets = try healthKitErrors {
            try store.statistics(type: type.model, range: range, options: storeOptions, bucket: bucket, anchor: anchor,
                                 timeZone: .current, bySource: options.contains(.separateBySource), as: app)
        }
        return buckets.map { HKStatistics(type: type, statistics: $0) }
    }

    /// From the first visible sample's start to just after the last one's end, or nil without data.
    private func dataSpan(of type: HKQuantityType, _ store: HealthStore) throws(HKError) -> Range<Date>? {
        try healthKitErrors {
            guard let first = try store.samples(HealthQuery(type: type.model, limit: 1, sort: .startAscending), as: app).first,
                  let last = try store.samples(HealthQuery(type: type.model, limit: 1, sort: .endDescending), as: app).first
            else { return nil }
            return first.start..<max(last.end, first.start).addingTimeInterval(1)
        }
    }

    /// The changes after `anchor` the app may see, of `type` (and matching `predicate`).
    func changes(of type: HKSampleType, predicate: NSPredicate?, after anchor: HKQueryAnchor?, limit: Int) throws(HKError)
        -> (samples: [HKSample], deleted: [HKDeletedObject], anchor: HKQueryAnchor) {
        let store = try store()
        guard let sampleType = type.sampleType else { return ([], [], anchor ?? HKQueryAnchor(fromValue: 0)) }
        let changes = try healthKitErrors {
            try store.changes(since: Anchor(rawValue: Int64(anchor?.value ?? 0)), types: [sampleType],
                              limit: limit > 0 ? limit : nil, as: app)
        }
        var samples: [HKSample] = changes.samples.map(HKSample.wrapping)
        samples += changes.workouts.map { HKWorkout(stored: $0, statistics: workoutStatistics(store)) }
        if let predicate { samples = samples.filter { predicate.evaluate(with: $0) } }
        return (samples, changes.deleted.map { HKDeletedObject(uuid: $0.id) }, HKQueryAnchor(fromValue: Int(changes.newAnchor.rawValue)))
    }
}

extension BucketInterval {
    /// HealthKit's interval components as one of the store's bucket lengths: one minute, hour,
    /// day, week (or 7 days) or month.
    init(components: DateComponents) throws(HKError) {
        let fields: [(Int?, BucketInterval)] = [(components.minute, .minute), (components.hour, .hour), (components.day, .day),
                                                (components.weekOfYear, .week), (components.month, .month)]
        let set = fields.filter { ($0.0 ?? 0) != 0 }
        let others = [components.second, components.nanosecond, components.year, components.weekday, components.quarter]
        if set.count == 1, others.allSatisfy({ ($0 ?? 0) == 0 }) {
            switch (set[0].0, set[0].1) {
            case (1, let interval): self = interval; return
            case (7, .day): self = .week; return
            default: break
            }
        }
        throw HKError(.errorInvalidArgument,
                      "interval \(components) is not one of the store's buckets (1 minute, 1 hour, 1 day, 1 week or 7 days, 1 month)")
    }
}

/// A sample query's order: HealthKit's sort descriptors on `startDate` and `endDate`.
struct SampleOrder {
    var keys: [(key: String, ascending: Bool)]

    init(_ descriptors: [NSSortDescriptor]?) throws(HKError) {
        keys = []
        for descriptor in descriptors ?? [] {
            guard let key = descriptor.sampleSortKey else {
                throw HKError(.errorInvalidArgument, "sample queries sort by startDate or endDate only")
            }
            keys.append((key, descriptor.ascending))
        }
    }

    /// The store's own order when it gives exactly this order (ties aside).
    var storeSort: SampleSort? {
        switch keys.map({ "\($0.key) \($0.ascending)" }) {
        case [], ["startDate true"]: .startAscending
        case ["startDate false"], ["startDate false", "endDate false"]: .startDescending
        case ["endDate false"], ["endDate false", "startDate false"]: .endDescending
        default: nil
        }
    }

    func apply(_ samples: [HKSample], limit: Int) -> [HKSample] {
        let sorted = keys.isEmpty ? samples : samples.sorted { a, b in
            for (key, ascending) in keys {
                let (x, y) = key == HKSampleSortIdentifierStartDate ? (a.startDate, b.startDate) : (a.endDate, b.endDate)
                if x != y { return ascending ? x < y : x > y }
            }
            return false
        }
        return limit > 0 ? Array(sorted.prefix(limit)) : sorted
    }
}
