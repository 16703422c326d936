import Foundation
import HealthModel
import HealthStore
import HealthTestSupport
@testable import OpenHealthKit
import Testing

/// Anchored and observer queries on the store's change feed and change watch.
@Suite struct HKChangeQueryTests {
    let temporary: TemporaryStore
    let app: HKHealthStore
    let steps = HKObjectType.quantityType(forIdentifier: .stepCount)!
    let now = Date()

    init() throws {
        temporary = try TemporaryStore()
        app = HKHealthStore(appIdentifier: "com.example.app", storePath: temporary.path)
    }

    func sample(_ value: Double, minute: Int) -> HKQuantitySample {
        let start = now.addingTimeInterval(Double(minute - 60) * 60)
        return HKQuantitySample(type: steps, quantity: HKQuantity(unit: .count(), doubleValue: value), start: start, end: start.addingTimeInterval(60))
    }

    @Test func anchoredQueriesReturnAddedAndDeletedObjectsAfterTheAnchor() async throws {
        try await app.requestAuthorization(toShare: [steps], read: [steps])
        let first = sample(10, minute: 0), second = sample(20, minute: 1)
        try await app.save([first, second])
        let initial = try await HKAnchoredObjectQueryDescriptor(predicates: [.quantitySample(type: steps)], anchor: nil).result(for: app)
        #expect(Set(initial.addedSamples.map(\.uuid)) == [first.uuid, second.uuid])
        #expect(initial.deletedObjects.isEmpty)

        try await app.delete(first)
        let third = sample(30, minute: 2)
        try await app.save(third)
        let later = try await HKAnchoredObjectQueryDescriptor(predicates: [.quantitySample(type: steps)], anchor: initial.newAnchor).result(for: app)
        #expect(later.addedSamples.map(\.uuid) == [third.uuid])
        #expect(later.deletedObjects.map(\.uuid) == [first.uuid])
        let nothing = try await HKAnchoredObjectQueryDescriptor(predicates: [.quantitySample(type: steps)], anchor: later.newAnchor).result(for: app)
        #expect(nothing.addedSamples.isEmpty && nothing.deletedObjects.isEmpty)
        #expect(nothing.newAnchor == later.newAnchor)
    }

    @Test func deletingAnotherAppsObjectOrMatchingAPredicate() async throws {
        try await app.requestAuthorization(toShare: [steps], read: [steps])
        try await app.save([sample(1, minute: 0), sample(2, minute: 1), sample(3, minute: 2)])
        let other = HKHealthStore(appIdentifier: "com.example.other", storePath: temporary.path)
        try await other.requestAuthorization(toShare: [steps], read: [steps])
        let foreign = sample(4, minute: 3)
        try await other.save(foreign)
        await #expect(throws: HKError.self) { try await app.delete(foreign) }
        let firstTwo = HKQuery.predicateForSamples(withStart: now.addingTimeInterval(-3600), end: now.addingTimeInterval(-3480), options: .strictStartDate)
        #expect(try await app.deleteObjects(of: steps, predicate: firstTwo) == 2)
        #expect(try await app.deleteObjects(of: steps, predicate: HKQuery.predicateForSamples(withStart: nil, end: nil)) == 1, "only its own")
    }

    @Test func theAnchoredDescriptorsResultsStreamTheChangesThenEachLaterOne() async throws {
        try await app.requestAuthorization(toShare: [steps], read: [steps])
        let first = sample(1, minute: 0), second = sample(2, minute: 1)
        try await app.save(first)
        let descriptor = HKAnchoredObjectQueryDescriptor(predicates: [.quantitySample(type: steps)], anchor: nil)
        var batches: [[UUID]] = []
        var anchors: [HKQueryAnchor] = []
        for try await result in descriptor.results(for: app) {
            batches.append(result.addedSamples.map(\.uuid))
            anchors.append(result.newAnchor)
            if batches.count == 1 { try await app.save(second) }
            if batches.count == 2 { break }
        }
        #expect(batches == [[first.uuid], [second.uuid]])
        #expect(anchors[0].value < anchors[1].value)
        let encoded = try JSONEncoder().encode(anchors[1])
        #expect(try JSONDecoder().decode(HKQueryAnchor.self, from: encoded) == anchors[1])
    }

    /// `band` writes from another process; here a second store instance (its own connection)
    /// commits, and the observer's wake comes from the store's change watch, not from this instance.
    @Test func observerAndLongRunningAnchoredQueriesFireOnAnotherWritersCommit() async throws {
        try await app.requestAuthorization(toShare: [steps], read: [steps])
        let fired = Counter(), updates = Counter()
        let observer = HKObserverQuery(sampleType: steps, predicate: nil) { _, completion, error in
            if error == nil { fired.add() }
            completion()
        }
        app.execute(observer)
        let anchored = HKAnchoredObjectQuery(type: steps, predicate: nil, anchor: nil, limit: HKObjectQueryNoLimit) { _, _, _, _, _ in }
        anchored.updateHandler = { _, added, _, _, _ in updates.add(added?.count ?? 0) }
        app.execute(anchored)
        defer {
            app.stop(observer)
            app.stop(anchored)
        }
        try await Task.sleep(for: .milliseconds(300))
        let writer = try HealthStore(path: temporary.path)
        try writer.write(as: .owner) { transaction in
            try transaction.save(QuantitySample(type: .stepCount, quantity: Quantity(5, .count), start: now.addingTimeInterval(-60), end: now),
                                 attributedTo: AppIdentity(id: "bandkit.band", version: "1"))
        }
        let deadline = Date().addingTimeInterval(20)
        while (fired.value == 0 || updates.value == 0) && Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(fired.value >= 1)
        #expect(updates.value == 1)
    }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func add(_ amount: Int = 1) { lock.withLock { count += amount } }
}
