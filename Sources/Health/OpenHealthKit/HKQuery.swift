import Foundation
internal import HealthModel
internal import HealthStore

/// A position in the store's change feed (HealthKit `HKQueryAnchor`): the store's anchor number.
///
/// Codable, so an app can keep it between runs (where HealthKit apps archive it with NSKeyedArchiver).
public final class HKQueryAnchor: Hashable, Codable, CustomStringConvertible, @unchecked Sendable {
    let value: Int
    public init(fromValue value: Int) { self.value = max(0, value) }
    public init(from decoder: any Decoder) throws { value = max(0, try decoder.singleValueContainer().decode(Int.self)) }
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
    public static func == (a: HKQueryAnchor, b: HKQueryAnchor) -> Bool { a.value == b.value }
    public func hash(into hasher: inout Hasher) { hasher.combine(value) }
    public var description: String { "HKQueryAnchor(\(value))" }
}

/// A query run by ``HKHealthStore/execute(_:)`` (HealthKit `HKQuery`).
public class HKQuery: @unchecked Sendable {
    public let objectType: HKObjectType?
    public let predicate: NSPredicate?
    public var sampleType: HKSampleType? { objectType as? HKSampleType }
    private let lock = NSLock()
    private var stopped = false

    init(objectType: HKObjectType?, predicate: NSPredicate?) {
        self.objectType = objectType
        self.predicate = predicate
    }

    var isStopped: Bool { lock.withLock { stopped } }
    func stop() { lock.withLock { stopped = true } }

    /// Starts the query's work on `store`'s queue.
    func start(in store: HKHealthStore) {}

    /// Calls `changed` on a thread of its own whenever a commit (by any process) changes the
    /// store's person after `anchor`, until the query is stopped: the store's change watch
    /// (an inotify watch of a SQLite store's directory, LISTEN on PostgreSQL).
    func watchChanges(in store: HKHealthStore, after anchor: Anchor, _ changed: @escaping @Sendable () -> Void) {
        guard let healthStore = try? store.store() else { return }
        let thread = Thread { [self] in
            guard let watch = try? healthStore.changeWatch() else { return }
            var seen = anchor
            while !isStopped {
                do {
                    // Short waits so that a stop takes effect within a fifth of a second.
                    guard let current = try watch.wait(after: seen, timeout: .milliseconds(200)) else { continue }
                    seen = current
                    if !isStopped { changed() }
                } catch {
                    Thread.sleep(forTimeInterval: 0.2)
                }
            }
        }
        thread.name = "OpenHealthKit change watch"
        thread.start()
    }

    /// The store's current anchor, where a long-running query starts watching.
    func currentAnchor(_ store: HKHealthStore) -> Anchor {
        (try? store.store().currentAnchor()) ?? .zero
    }
}

extension HKHealthStore {
    /// Runs a query: once, or — for observer queries and queries with update handlers — until
    /// ``stop(_:)``.
    public func execute(_ query: HKQuery) { query.start(in: self) }

    /// Stops a long-running query: no handler is called after the next change.
    public func stop(_ query: HKQuery) { query.stop() }
}

/// Raw samples (HealthKit `HKSampleQuery`): overlapping samples from every source the app may
/// read. Summing them double-counts; statistics queries merge.
public final class HKSampleQuery: HKQuery, @unchecked Sendable {
    public let limit: Int
    public let sortDescriptors: [NSSortDescriptor]?
    let resultsHandler: @Sendable (HKSampleQuery, [HKSample]?, (any Error)?) -> Void

    public init(sampleType: HKSampleType, predicate: NSPredicate?, limit: Int, sortDescriptors: [NSSortDescriptor]?,
                resultsHandler: @escaping @Sendable (HKSampleQuery, [HKSample]?, (any Error)?) -> Void) {
        self.limit = limit
        self.sortDescriptors = sortDescriptors
        self.resultsHandler = resultsHandler
        super.init(objectType: sampleType, predicate: predicate)
    }

    override func start(in store: HKHealthStore) {
        let type = sampleType!
        store.run({ () throws(HKError) in
            try store.samples(of: type, predicate: self.predicate, limit: self.limit, sortDescriptors: self.sortDescriptors)
        }) { result in
            switch result {
            case .success(let samples): self.resultsHandler(self, samples, nil)
            case .failure(let error): self.resultsHandler(self, nil, error)
            }
        }
    }
}

/// Statistics over one interval (HealthKit `HKStatisticsQuery`), from the store's merged
/// statistics. With no data: a nil result and errorNoData, as HealthKit answers.
public final class HKStatisticsQuery: HKQuery, @unchecked Sendable {
    public let options: HKStatisticsOptions
    let completionHandler: @Sendable (HKStatisticsQuery, HKStatistics?, (any Error)?) -> Void

    public init(quantityType: HKQuantityType, quantitySamplePredicate: NSPredicate?, options: HKStatisticsOptions = [],
                completionHandler: @escaping @Sendable (HKStatisticsQuery, HKStatistics?, (any Error)?) -> Void) {
        self.options = options
        self.completionHandler = completionHandler
        super.init(objectType: quantityType, predicate: quantitySamplePredicate)
    }

    override func start(in store: HKHealthStore) {
        let type = objectType as! HKQuantityType
        store.run({ () throws(HKError) -> HKStatistics in
            guard let statistics = try store.statistics(of: type, predicate: self.predicate, options: self.options,
                                                        interval: nil, anchor: nil).first, statistics.hasData else {
                throw HKError(.errorNoData, "No data available for the specified predicate.")
            }
            return statistics
        }) { result in
            switch result {
            case .success(let statistics): self.completionHandler(self, statistics, nil)
            case .failure(let error): self.completionHandler(self, nil, error)
            }
        }
    }
}

/// Statistics in intervals (HealthKit `HKStatisticsCollectionQuery`); with a
/// ``statisticsUpdateHandler`` it keeps running and recomputes on every change.
public final class HKStatisticsCollectionQuery: HKQuery, @unchecked Sendable {
    public let options: HKStatisticsOptions
    public let anchorDate: Date
    public let intervalComponents: DateComponents
    public var initialResultsHandler: (@Sendable (HKStatisticsCollectionQuery, HKStatisticsCollection?, (any Error)?) -> Void)?
    public var statisticsUpdateHandler: (@Sendable (HKStatisticsCollectionQuery, HKStatistics?, HKStatisticsCollection?, (any Error)?) -> Void)?

    public init(quantityType: HKQuantityType, quantitySamplePredicate: NSPredicate?, options: HKStatisticsOptions = [],
                anchorDate: Date, intervalComponents: DateComponents) {
        self.options = options
        self.anchorDate = anchorDate
        self.intervalComponents = intervalComponents
        super.init(objectType: quantityType, predicate: quantitySamplePredicate)
    }

    func collection(_ store: HKHealthStore) throws(HKError) -> HKStatisticsCollection {
        HKStatisticsCollection(try store.statistics(of: objectType as! HKQuantityType, predicate: predicate, options: options,
                                                    interval: intervalComponents, anchor: anchorDate))
    }

    override func start(in store: HKHealthStore) {
        let anchor = currentAnchor(store)
        store.run({ () throws(HKError) in try self.collection(store) }) { result in
            switch result {
            case .success(let collection): self.initialResultsHandler?(self, collection, nil)
            case .failure(let error): self.initialResultsHandler?(self, nil, error)
            }
            guard self.statisticsUpdateHandler != nil, !self.isStopped else { return }
            self.watchChanges(in: store, after: anchor) {
                do throws(HKError) {
                    let collection = try self.collection(store)
                    self.statisticsUpdateHandler?(self, collection.statistics().last, collection, nil)
                } catch {
                    self.statisticsUpdateHandler?(self, nil, nil, error)
                }
            }
        }
    }
}

/// What changed after an anchor (HealthKit `HKAnchoredObjectQuery`), from the store's change
/// feed; with an ``updateHandler`` it keeps running and reports each later change.
public final class HKAnchoredObjectQuery: HKQuery, @unchecked Sendable {
    public typealias Handler = @Sendable (HKAnchoredObjectQuery, [HKSample]?, [HKDeletedObject]?, HKQueryAnchor?, (any Error)?) -> Void
    public let anchor: HKQueryAnchor?
    public let limit: Int
    let resultsHandler: Handler?
    public var updateHandler: Handler?

    public init(type: HKSampleType, predicate: NSPredicate?, anchor: HKQueryAnchor?, limit: Int,
                resultsHandler handler: Handler?) {
        self.anchor = anchor
        self.limit = limit
        resultsHandler = handler
        super.init(objectType: type, predicate: predicate)
    }

    override func start(in store: HKHealthStore) {
        let type = sampleType!
        store.run({ () throws(HKError) in
            try store.changes(of: type, predicate: self.predicate, after: self.anchor, limit: self.limit)
        }) { result in
            var next = self.anchor
            switch result {
            case .success(let changes):
                next = changes.anchor
                self.resultsHandler?(self, changes.samples, changes.deleted, changes.anchor, nil)
            case .failure(let error):
                self.resultsHandler?(self, nil, nil, nil, error)
            }
            guard self.updateHandler != nil, !self.isStopped else { return }
            let lock = NSLock()
            nonisolated(unsafe) var position = next
            self.watchChanges(in: store, after: Anchor(rawValue: Int64(next?.value ?? 0))) {
                lock.lock()
                defer { lock.unlock() }
                do throws(HKError) {
                    let changes = try store.changes(of: type, predicate: self.predicate, after: position, limit: 0)
                    position = changes.anchor
                    if !changes.samples.isEmpty || !changes.deleted.isEmpty {
                        self.updateHandler?(self, changes.samples, changes.deleted, changes.anchor, nil)
                    }
                } catch {
                    self.updateHandler?(self, nil, nil, nil, error)
                }
            }
        }
    }
}

/// Called by the app when it has handled an observer update.
public typealias HKObserverQueryCompletionHandler = @Sendable () -> Void

/// Fires when samples of a type change — also when another process (`band`) commits them
/// (HealthKit `HKObserverQuery`). No payload: run an anchored query to see what changed.
public final class HKObserverQuery: HKQuery, @unchecked Sendable {
    let updateHandler: @Sendable (HKObserverQuery, @escaping HKObserverQueryCompletionHandler, (any Error)?) -> Void

    public init(sampleType: HKSampleType, predicate: NSPredicate?,
                updateHandler: @escaping @Sendable (HKObserverQuery, @escaping HKObserverQueryCompletionHandler, (any Error)?) -> Void) {
        self.updateHandler = updateHandler
        super.init(objectType: sampleType, predicate: predicate)
    }

    override func start(in store: HKHealthStore) {
        let type = sampleType!
        let start = currentAnchor(store)
        do {
            _ = try store.store()
        } catch {
            store.queue.async { self.updateHandler(self, {}, error) }
            return
        }
        let lock = NSLock()
        nonisolated(unsafe) var position = HKQueryAnchor(fromValue: Int(start.rawValue))
        watchChanges(in: store, after: start) {
            lock.lock()
            defer { lock.unlock() }
            guard let changes = try? store.changes(of: type, predicate: self.predicate, after: position, limit: 0) else { return }
            position = changes.anchor
            if !changes.samples.isEmpty || !changes.deleted.isEmpty { self.updateHandler(self, {}, nil) }
        }
    }
}

/// The sources that saved samples of a type (HealthKit `HKSourceQuery`).
public final class HKSourceQuery: HKQuery, @unchecked Sendable {
    let completionHandler: @Sendable (HKSourceQuery, Set<HKSource>?, (any Error)?) -> Void

    public init(sampleType: HKSampleType, samplePredicate objectPredicate: NSPredicate?,
                completionHandler: @escaping @Sendable (HKSourceQuery, Set<HKSource>?, (any Error)?) -> Void) {
        self.completionHandler = completionHandler
        super.init(objectType: sampleType, predicate: objectPredicate)
    }

    override func start(in store: HKHealthStore) {
        let type = sampleType!
        store.run({ () throws(HKError) -> Set<HKSource> in
            if self.predicate == nil, let sampleType = type.sampleType, sampleType != .workout {
                let summaries = try healthKitErrors { try store.store().sources(of: sampleType, as: store.app) }
                return Set(summaries.map { HKSource(bundleIdentifier: $0.source) })
            }
            let samples = try store.samples(of: type, predicate: self.predicate, limit: HKObjectQueryNoLimit, sortDescriptors: nil)
            return Set(samples.map(\.sourceRevision.source))
        }) { result in
            switch result {
            case .success(let sources): self.completionHandler(self, sources, nil)
            case .failure(let error): self.completionHandler(self, nil, error)
            }
        }
    }
}
