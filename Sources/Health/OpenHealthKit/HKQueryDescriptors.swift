import Foundation

/// A sample type and a predicate, for the Swift-concurrency query descriptors (HealthKit
/// `HKSamplePredicate`).
public struct HKSamplePredicate<Sample: HKSample>: @unchecked Sendable {
    public let sampleType: HKSampleType
    public let nsPredicate: NSPredicate?

    init(sampleType: HKSampleType, predicate: NSPredicate?) {
        self.sampleType = sampleType
        nsPredicate = predicate
    }
}

extension HKSamplePredicate where Sample == HKQuantitySample {
    public static func quantitySample(type: HKQuantityType, predicate: NSPredicate? = nil) -> HKSamplePredicate<HKQuantitySample> {
        HKSamplePredicate(sampleType: type, predicate: predicate)
    }
}

extension HKSamplePredicate where Sample == HKCategorySample {
    public static func categorySample(type: HKCategoryType, predicate: NSPredicate? = nil) -> HKSamplePredicate<HKCategorySample> {
        HKSamplePredicate(sampleType: type, predicate: predicate)
    }
}

extension HKSamplePredicate where Sample == HKWorkout {
    public static func workout(_ predicate: NSPredicate? = nil) -> HKSamplePredicate<HKWorkout> {
        HKSamplePredicate(sampleType: HKWorkoutType.shared, predicate: predicate)
    }
}

extension HKSamplePredicate where Sample == HKSample {
    public static func sample(type: HKSampleType, predicate: NSPredicate? = nil) -> HKSamplePredicate<HKSample> {
        HKSamplePredicate(sampleType: type, predicate: predicate)
    }
}

/// `HKSampleQuery` for Swift concurrency (HealthKit `HKSampleQueryDescriptor`).
public struct HKSampleQueryDescriptor<Sample: HKSample>: @unchecked Sendable {
    public var predicates: [HKSamplePredicate<Sample>]
    public var sortDescriptors: [SortDescriptor<Sample>]
    public var limit: Int?

    public init(predicates: [HKSamplePredicate<Sample>], sortDescriptors: [SortDescriptor<Sample>], limit: Int? = nil) {
        self.predicates = predicates
        self.sortDescriptors = sortDescriptors
        self.limit = limit
    }

    /// The store sorts by start or end date itself; other orders are applied here.
    private var storeOrder: [NSSortDescriptor]? {
        switch sortDescriptors {
        case []: []
        case [SortDescriptor(\Sample.startDate, order: .forward)]: [NSSortDescriptor(key: HKSampleSortIdentifierStartDate, ascending: true)]
        case [SortDescriptor(\Sample.startDate, order: .reverse)]: [NSSortDescriptor(key: HKSampleSortIdentifierStartDate, ascending: false)]
        case [SortDescriptor(\Sample.endDate, order: .reverse)]: [NSSortDescriptor(key: HKSampleSortIdentifierEndDate, ascending: false)]
        default: nil
        }
    }

    public func result(for healthStore: HKHealthStore) async throws -> [Sample] {
        let limit = limit ?? HKObjectQueryNoLimit
        nonisolated(unsafe) let order = storeOrder
        var all: [Sample] = []
        for predicate in predicates {
            let type = predicate.sampleType
            nonisolated(unsafe) let filter = predicate.nsPredicate
            let found = try await healthStore.perform { () throws(HKError) in
                try healthStore.samples(of: type, predicate: filter, limit: order != nil && self.predicates.count == 1 ? limit : 0,
                                        sortDescriptors: order)
            }
            all += found.compactMap { $0 as? Sample }
        }
        if order == nil || predicates.count > 1 { all.sort(using: sortDescriptors) }
        return limit > 0 ? Array(all.prefix(limit)) : all
    }
}

/// `HKStatisticsQuery` for Swift concurrency; nil when there is no data.
public struct HKStatisticsQueryDescriptor: @unchecked Sendable {
    public var predicate: HKSamplePredicate<HKQuantitySample>
    public var options: HKStatisticsOptions

    public init(predicate: HKSamplePredicate<HKQuantitySample>, options: HKStatisticsOptions = []) {
        self.predicate = predicate
        self.options = options
    }

    public func result(for healthStore: HKHealthStore) async throws -> HKStatistics? {
        let type = predicate.sampleType as! HKQuantityType, options = options
        nonisolated(unsafe) let filter = predicate.nsPredicate
        return try await healthStore.perform { () throws(HKError) in
            try healthStore.statistics(of: type, predicate: filter, options: options, interval: nil, anchor: nil).first.flatMap {
                $0.hasData ? $0 : nil
            }
        }
    }
}

/// `HKStatisticsCollectionQuery` for Swift concurrency.
public struct HKStatisticsCollectionQueryDescriptor: @unchecked Sendable {
    public var predicate: HKSamplePredicate<HKQuantitySample>
    public var options: HKStatisticsOptions
    public var anchorDate: Date
    public var intervalComponents: DateComponents

    public struct Result: @unchecked Sendable {
        public let statisticsCollection: HKStatisticsCollection
        /// The last interval, recomputed (nil in the first result).
        public let updatedStatistics: HKStatistics?
    }

    public typealias Results = AsyncThrowingStream<Result, any Error>

    public init(predicate: HKSamplePredicate<HKQuantitySample>, options: HKStatisticsOptions = [], anchorDate: Date,
                intervalComponents: DateComponents) {
        self.predicate = predicate
        self.options = options
        self.anchorDate = anchorDate
        self.intervalComponents = intervalComponents
    }

    private func query() -> HKStatisticsCollectionQuery {
        HKStatisticsCollectionQuery(quantityType: predicate.sampleType as! HKQuantityType, quantitySamplePredicate: predicate.nsPredicate,
                                    options: options, anchorDate: anchorDate, intervalComponents: intervalComponents)
    }

    public func result(for healthStore: HKHealthStore) async throws -> HKStatisticsCollection {
        let query = query()
        return try await healthStore.perform { () throws(HKError) in try query.collection(healthStore) }
    }

    /// The collection now, then again after every change, until the consumer stops iterating.
    public func results(for healthStore: HKHealthStore) -> Results {
        let query = query()
        return Results { continuation in
            query.initialResultsHandler = { _, collection, error in
                if let collection { continuation.yield(Result(statisticsCollection: collection, updatedStatistics: nil)) }
                if let error { continuation.finish(throwing: error) }
            }
            query.statisticsUpdateHandler = { _, statistics, collection, error in
                if let collection { continuation.yield(Result(statisticsCollection: collection, updatedStatistics: statistics)) }
                if let error { continuation.finish(throwing: error) }
            }
            continuation.onTermination = { _ in healthStore.stop(query) }
            healthStore.execute(query)
        }
    }
}

/// `HKAnchoredObjectQuery` for Swift concurrency (HealthKit `HKAnchoredObjectQueryDescriptor`).
public struct HKAnchoredObjectQueryDescriptor<Sample: HKSample>: @unchecked Sendable {
    public var predicates: [HKSamplePredicate<Sample>]
    public var anchor: HKQueryAnchor?
    public var limit: Int?

    public struct Result: @unchecked Sendable {
        public let addedSamples: [Sample]
        public let deletedObjects: [HKDeletedObject]
        public let newAnchor: HKQueryAnchor
    }

    public typealias Results = AsyncThrowingStream<Result, any Error>

    public init(predicates: [HKSamplePredicate<Sample>], anchor: HKQueryAnchor?, limit: Int? = nil) {
        self.predicates = predicates
        self.anchor = anchor
        self.limit = limit
    }

    public func result(for healthStore: HKHealthStore) async throws -> Result {
        var added: [Sample] = [], deleted: [HKDeletedObject] = []
        var newAnchor = anchor ?? HKQueryAnchor(fromValue: 0)
        for predicate in predicates {
            let type = predicate.sampleType, anchor = anchor, limit = limit ?? 0
            nonisolated(unsafe) let filter = predicate.nsPredicate
            let changes = try await healthStore.perform { () throws(HKError) in
                try healthStore.changes(of: type, predicate: filter, after: anchor, limit: limit)
            }
            added += changes.samples.compactMap { $0 as? Sample }
            deleted += changes.deleted
            newAnchor = predicates.count == 1 ? changes.anchor : HKQueryAnchor(fromValue: max(newAnchor.value, changes.anchor.value))
        }
        return Result(addedSamples: added, deletedObjects: deleted, newAnchor: newAnchor)
    }

    /// The changes after the anchor, then every later change, until the consumer stops iterating
    /// (one type: the first predicate's).
    public func results(for healthStore: HKHealthStore) -> Results {
        guard let first = predicates.first else { return Results { $0.finish() } }
        return Results { continuation in
            let deliver: HKAnchoredObjectQuery.Handler = { _, samples, deleted, anchor, error in
                if let error { continuation.finish(throwing: error); return }
                guard let anchor else { return }
                continuation.yield(Result(addedSamples: (samples ?? []).compactMap { $0 as? Sample },
                                          deletedObjects: deleted ?? [], newAnchor: anchor))
            }
            let running = HKAnchoredObjectQuery(type: first.sampleType, predicate: first.nsPredicate, anchor: anchor,
                                                limit: limit ?? 0, resultsHandler: deliver)
            running.updateHandler = deliver
            continuation.onTermination = { _ in healthStore.stop(running) }
            healthStore.execute(running)
        }
    }
}
