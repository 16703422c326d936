#if canImport(HealthKit)
import HealthKit
#else
import OpenHealthKitShim
#endif
import Foundation
import Testing

/// The four tutorials' calls, made their way, against a store `band sync` filled from a simulated
/// band: what they read must be what `health` reports from the same store. Written to compile
/// against Apple's HealthKit too (the `#if` above); it has only been run on Linux.
@Suite(.serialized, .enabled(if: SyncedStore.available, "needs bandsim, band and health built (swift build)"))
struct TutorialCompatibilityTests {
    let world: SyncedStore

    init() throws { world = try SyncedStore.shared.get() }

    /// Awaits a completion-handler call.
    func awaiting<T: Sendable>(_ call: (@escaping @Sendable (T, (any Error)?) -> Void) -> Void) async -> (T, (any Error)?) {
        await withCheckedContinuation { continuation in
            call { value, error in continuation.resume(returning: (value, error)) }
        }
    }

    @Test func theAuthorizationHelperSucceeds() async throws {
        let (success, error) = await awaiting(HealthKitSetup.authorize)
        #expect(success, "\(String(describing: error))")
        #expect(error == nil)
        let (todaySuccess, todayError) = await awaiting(TodayReport.authorize)
        #expect(todaySuccess, "\(String(describing: todayError))")
    }

    @Test func todaysStepsDistanceAndEnergyAreWhatHealthStatsSays() async throws {
        _ = await awaiting(TodayReport.authorize)
        let cases: [(HKQuantityTypeIdentifier, HKUnit, String)] = [
            (.stepCount, .count(), "step-count"),
            (.distanceWalkingRunning, .meter(), "distance-walking-running"),
            (.activeEnergyBurned, .kilocalorie(), "active-energy-burned"),
        ]
        for (identifier, unit, name) in cases {
            let (total, error) = await awaiting { TodayReport.todaysTotal(identifier, in: unit, completion: $0) }
            let expected = try world.todaysSum(name)
            // The band walks from the start of every hour; only in the first minutes after
            // midnight has today no minute yet, and then HealthKit's answer is "no data".
            if Date().timeIntervalSince(TodayReport.startOfToday()) > 600 {
                #expect(expected > 0, "the band walked today: \(name)")
            }
            guard let value = total else {
                #expect(expected == 0, "\(name): no total, health stats says \(expected)")
                #expect((error as? HKError)?.code == .errorNoData)
                continue
            }
            #expect(error == nil, "\(name): \(String(describing: error))")
            #expect(abs(value - expected) <= 1e-9 * max(1, expected), "\(name): HealthKit API \(value), health stats \(expected)")
        }
    }

    @Test func todaysStepSamplesComeNewestFirstAndTheirSumIsTheBandsTotal() async throws {
        _ = await awaiting(TodayReport.authorize)
        let descriptors = [NSSortDescriptor(key: HKSampleSortIdentifierStartDate, ascending: false),
                           NSSortDescriptor(key: HKSampleSortIdentifierEndDate, ascending: false)]
        let (samples, error) = await awaiting { TodayReport.todaysSamples(.stepCount, sortDescriptors: descriptors, completion: $0) }
        #expect(error == nil)
        #expect(!samples.isEmpty || Date().timeIntervalSince(TodayReport.startOfToday()) < 600)
        #expect(zip(samples, samples.dropFirst()).allSatisfy { $0.startDate >= $1.startDate }, "newest first")
        let start = TodayReport.startOfToday()
        #expect(samples.allSatisfy { $0.endDate > start })
        // One source (the band), minute samples: here the raw sum is the merged total (tutorial
        // B's 9780-versus-6000 needs overlapping sources; OpenHealthKitTests shows that case).
        let sum = samples.reduce(0) { $0 + $1.quantity.doubleValue(for: .count()) }
        #expect(abs(sum - (try world.todaysSum("step-count"))) < 1e-6)
    }

    @Test func tutorialCsDailySumsInKilometresAndLargeCalories() async throws {
        _ = await awaiting(TodayReport.authorize)
        let byEnd = [NSSortDescriptor(key: HKSampleSortIdentifierEndDate, ascending: false)]
        let (distances, _) = await awaiting { TodayReport.todaysSamples(.distanceWalkingRunning, sortDescriptors: byEnd, completion: $0) }
        let (energies, _) = await awaiting { TodayReport.todaysSamples(.activeEnergyBurned, sortDescriptors: byEnd, completion: $0) }
        #expect(zip(distances, distances.dropFirst()).allSatisfy { $0.endDate >= $1.endDate }, "latest end first")
        let kilometres = distances.reduce(0) { $0 + $1.quantity.doubleValue(for: HKUnit.meterUnit(with: .kilo)) }
        let kilocalories = energies.reduce(0) { $0 + $1.quantity.doubleValue(for: HKUnit.largeCalorie()) }
        #expect(abs(kilometres * 1000 - (try world.todaysSum("distance-walking-running"))) < 1e-6)
        #expect(abs(kilocalories - (try world.todaysSum("active-energy-burned"))) < 1e-6)
    }

    @Test func theMostRecentHeightAndWeight() async throws {
        _ = await awaiting(HealthKitSetup.authorize)
        let (height, heightError) = await awaiting { ProfileStore.mostRecentSample(for: HKObjectType.quantityType(forIdentifier: .height)!, completion: $0) }
        #expect(heightError == nil)
        #expect(height?.quantity.doubleValue(for: HKUnit.meter()) == 1.80)
        let (weight, _) = await awaiting { ProfileStore.mostRecentSample(for: HKObjectType.quantityType(forIdentifier: .bodyMass)!, completion: $0) }
        #expect(weight?.quantity.doubleValue(for: HKUnit.gramUnit(with: .kilo)) == 72.5)
    }

    @Test func aBodyMassIndexIsSavedAndReadBack() async throws {
        _ = await awaiting(HealthKitSetup.authorize)
        let bodyMassIndex = 72.5 / (1.80 * 1.80)
        let (saved, error) = await awaiting { ProfileStore.saveBodyMassIndex(bodyMassIndex, date: Date().addingTimeInterval(-1), completion: $0) }
        #expect(saved, "\(String(describing: error))")
        let (latest, _) = await awaiting { ProfileStore.mostRecentSample(for: HKObjectType.quantityType(forIdentifier: .bodyMassIndex)!, completion: $0) }
        #expect(latest?.quantity.doubleValue(for: .count()) == bodyMassIndex)
        #expect(latest?.sourceRevision.source.bundleIdentifier == SyncedStore.appIdentifier)
    }

    @Test func ageSexAndBloodType() async throws {
        _ = await awaiting(HealthKitSetup.authorize)
        let profile = try ProfileStore.ageSexAndBloodType()
        #expect(profile.age == Calendar.current.component(.year, from: Date()) - 1990)
        #expect(profile.biologicalSex == .female)
        #expect(profile.bloodType == .aPositive)
    }

    @Test func aSavedWorkoutIsListedByHealthAndReadBackByStartDate() async throws {
        _ = await awaiting(HealthKitSetup.authorize)
        let end = Date().addingTimeInterval(-600)
        let start = end.addingTimeInterval(-1800)
        let workout = HKWorkout(activityType: .running, start: start, end: end, duration: 1800,
                                totalEnergyBurned: HKQuantity(unit: .kilocalorie(), doubleValue: 310),
                                totalDistance: HKQuantity(unit: .meter(), doubleValue: 5000), metadata: nil)
        try await HKHealthStore().save(workout)
        #expect(try world.listedWorkoutIDs().contains(workout.uuid.uuidString.lowercased()))

        let newestFirst = NSSortDescriptor(key: HKSampleSortIdentifierStartDate, ascending: false)
        let (workouts, error): ([HKSample], (any Error)?) = await awaiting { done in
            HKHealthStore().execute(HKSampleQuery(sampleType: HKObjectType.workoutType(), predicate: nil, limit: HKObjectQueryNoLimit,
                                                  sortDescriptors: [newestFirst]) { _, samples, error in done(samples ?? [], error) })
        }
        #expect(error == nil)
        let mine = try #require(workouts.compactMap { $0 as? HKWorkout }.first { $0.uuid == workout.uuid })
        #expect(mine.workoutActivityType == .running)
        #expect(mine.duration == 1800)
        #expect(mine.totalEnergyBurned?.doubleValue(for: .kilocalorie()) == 310)
        #expect(mine.totalDistance?.doubleValue(for: .meterUnit(with: .kilo)) == 5)
        #expect(zip(workouts, workouts.dropFirst()).allSatisfy { $0.startDate >= $1.startDate })
    }
}
