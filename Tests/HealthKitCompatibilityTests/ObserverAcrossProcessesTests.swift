#if canImport(HealthKit)
import HealthKit
#else
import OpenHealthKitShim
#endif
import Foundation
import Testing

/// An observer query fires when another process commits: here the `health` command adds a
/// sample to the store the band synced into; the anchored query then finds it.
@Suite(.serialized, .enabled(if: SyncedStore.available, "needs bandsim, band and health built (swift build)"))
struct ObserverAcrossProcessesTests {
    @Test func anObserverQueryFiresWhenAnotherProcessWrites() async throws {
        let world = try SyncedStore.shared.get()
        let healthStore = HKHealthStore()
        let heartRate = HKObjectType.quantityType(forIdentifier: .heartRate)!
        try await healthStore.requestAuthorization(toShare: [], read: [heartRate])
        let start = try await HKAnchoredObjectQueryDescriptor(predicates: [.quantitySample(type: heartRate)], anchor: nil).result(for: healthStore)

        let fired = Flag()
        let observer = HKObserverQuery(sampleType: heartRate, predicate: nil) { _, completionHandler, error in
            if error == nil { fired.set() }
            completionHandler()
        }
        healthStore.execute(observer)
        defer { healthStore.stop(observer) }
        try await Task.sleep(for: .milliseconds(300))
        #expect(!fired.isSet, "nothing written yet")

        let added = try world.run("health", ["add", "heart-rate", "61", "count/min", "--store", world.store])
        #expect(added.status == 0, "\(added.stderr)")
        let deadline = Date().addingTimeInterval(20)
        while !fired.isSet && Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(fired.isSet, "the observer saw the health command's commit")

        let changes = try await HKAnchoredObjectQueryDescriptor(predicates: [.quantitySample(type: heartRate)], anchor: start.newAnchor)
            .result(for: healthStore)
        #expect(changes.addedSamples.map { $0.quantity.doubleValue(for: HKUnit.count().unitDivided(by: .minute())) } == [61])
    }
}

final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}
