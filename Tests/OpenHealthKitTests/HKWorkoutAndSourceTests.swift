import Foundation
import HealthModel
import HealthStore
import HealthTestSupport
@testable import OpenHealthKit
import Testing

/// Workouts with their statistics, category samples, sources, discrete statistics and the live
/// collection query.
@Suite struct HKWorkoutAndSourceTests {
    let temporary: TemporaryStore
    let app: HKHealthStore
    let heartRate = HKObjectType.quantityType(forIdentifier: .heartRate)!
    let sleep = HKObjectType.categoryType(forIdentifier: .sleepAnalysis)!
    let start = Date(timeIntervalSince1970: 1_764_489_600)
    let beatsPerMinute = HKUnit.count().unitDivided(by: .minute())

    init() throws {
        temporary = try TemporaryStore()
        app = HKHealthStore(appIdentifier: "com.example.app", storePath: temporary.path)
    }

    func heartRates(_ values: [Double]) -> [HKObject] {
        values.enumerated().map { index, value in
            let time = start.addingTimeInterval(Double(index) * 60)
            return HKQuantitySample(type: heartRate, quantity: HKQuantity(unit: beatsPerMinute, doubleValue: value), start: time, end: time)
        }
    }

    @Test func aWorkoutReadBackHasItsTotalsAndTheHeartRateDuringIt() async throws {
        try await app.requestAuthorization(toShare: [heartRate, HKObjectType.workoutType()], read: [heartRate, HKObjectType.workoutType()])
        let workout = HKWorkout(activityType: .highIntensityIntervalTraining, start: start, end: start.addingTimeInterval(600),
                                duration: 600, totalEnergyBurned: HKQuantity(unit: .largeCalorie(), doubleValue: 120),
                                totalDistance: HKQuantity(unit: .mile(), doubleValue: 1), metadata: [HKMetadataKeyExternalUUID: "run-1"])
        try await app.save([workout] + heartRates([120, 150, 140]))
        let read = try await HKSampleQueryDescriptor(predicates: [.workout(HKQuery.predicateForWorkouts(with: .highIntensityIntervalTraining))],
                                                     sortDescriptors: []).result(for: app)
        let stored = try #require(read.first)
        #expect(read.count == 1)
        #expect(stored.workoutActivityType == .highIntensityIntervalTraining)
        #expect(stored.totalEnergyBurned?.doubleValue(for: .kilocalorie()) == 120)
        #expect(abs((stored.totalDistance?.doubleValue(for: .meter()) ?? 0) - 1609.344) < 1e-9)
        #expect(stored.metadata?[HKMetadataKeyExternalUUID] as? String == "run-1")
        let pulse = try #require(stored.statistics(for: heartRate))
        #expect(pulse.maximumQuantity()?.doubleValue(for: beatsPerMinute) == 150)
        #expect(pulse.averageQuantity()?.doubleValue(for: beatsPerMinute) == 410.0 / 3)
        #expect(stored.statistics(for: HKObjectType.quantityType(forIdentifier: .activeEnergyBurned)!)?.sumQuantity()?
            .doubleValue(for: .kilocalorie()) == 120)
        let running = try await HKSampleQueryDescriptor(predicates: [.workout(HKQuery.predicateForWorkouts(with: .running))],
                                                        sortDescriptors: []).result(for: app)
        #expect(running.isEmpty)
    }

    @Test func discreteStatisticsAverageMinimumMaximumAndMostRecent() async throws {
        try await app.requestAuthorization(toShare: [heartRate], read: [heartRate])
        try await app.save(heartRates([60, 90, 75]))
        let statistics = try #require(try await HKStatisticsQueryDescriptor(
            predicate: .quantitySample(type: heartRate), options: [.discreteAverage, .discreteMin, .discreteMax, .mostRecent]).result(for: app))
        #expect(statistics.averageQuantity()?.doubleValue(for: beatsPerMinute) == 75)
        #expect(statistics.minimumQuantity()?.doubleValue(for: beatsPerMinute) == 60)
        #expect(statistics.maximumQuantity()?.doubleValue(for: HKUnit(from: "count/s")) == 1.5)
        #expect(statistics.mostRecentQuantity()?.doubleValue(for: beatsPerMinute) == 75)
        #expect(statistics.mostRecentQuantityDateInterval()?.start == start.addingTimeInterval(120))
    }

    @Test func categorySamplesAndTheirValues() async throws {
        try await app.requestAuthorization(toShare: [sleep], read: [sleep])
        let night = HKCategorySample(type: sleep, value: HKCategoryValueSleepAnalysis.asleepUnspecified.rawValue, start: start,
                                     end: start.addingTimeInterval(6 * 3600))
        try await app.save(night)
        let read = try await HKSampleQueryDescriptor(predicates: [.categorySample(type: sleep)], sortDescriptors: []).result(for: app)
        #expect(read.map(\.value) == [HKCategoryValueSleepAnalysis.asleepUnspecified.rawValue])
        #expect(read.first?.categoryType == sleep)
        await #expect(throws: HKError.self) {
            try await app.save(HKCategorySample(type: sleep, value: 9, start: start, end: start))
        }
    }

    @Test func sourceQueriesNameTheAppsThatSaved() async throws {
        try await app.requestAuthorization(toShare: [heartRate], read: [heartRate])
        try await app.save(heartRates([70]))
        try temporary.store.write(as: .owner) { transaction in
            try transaction.save(QuantitySample(type: .heartRate, quantity: Quantity(80, .countPerMinute), start: start, end: start),
                                 attributedTo: AppIdentity(id: "bandkit.band", version: "1"))
        }
        func sources(_ predicate: NSPredicate?) async -> Set<String> {
            await withCheckedContinuation { continuation in
                app.execute(HKSourceQuery(sampleType: heartRate, samplePredicate: predicate) { _, sources, _ in
                    continuation.resume(returning: Set((sources ?? []).map(\.bundleIdentifier)))
                })
            }
        }
        #expect(await sources(nil) == ["com.example.app", "bandkit.band"])
        #expect(await sources(HKQuery.predicateForObjects(from: HKSource(bundleIdentifier: "bandkit.band"))) == ["bandkit.band"])
    }

    @Test func aLiveCollectionQueryRecomputesAfterACommit() async throws {
        try await app.requestAuthorization(toShare: [heartRate], read: [heartRate])
        try await app.save(heartRates([60]))
        let range = HKQuery.predicateForSamples(withStart: start, end: start.addingTimeInterval(3600))
        let descriptor = HKStatisticsCollectionQueryDescriptor(predicate: .quantitySample(type: heartRate, predicate: range),
                                                               options: .discreteMax, anchorDate: start, intervalComponents: DateComponents(hour: 1))
        var maxima: [Double] = []
        for try await result in descriptor.results(for: app) {
            maxima.append(result.statisticsCollection.statistics().first?.maximumQuantity()?.doubleValue(for: beatsPerMinute) ?? 0)
            if maxima.count == 1 { try await app.save(heartRates([60, 99])) }
            if maxima.count == 2 { break }
        }
        #expect(maxima == [60, 99])
    }
}
