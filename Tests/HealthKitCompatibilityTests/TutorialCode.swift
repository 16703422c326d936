#if canImport(HealthKit)
import HealthKit
#else
import OpenHealthKitShim
#endif
import Foundation

// The tutorials' calls, written as their authors would write them against HealthKit (in our
// own words): an authorization helper and a profile store after the Portuguese "Prancercise"
// tutorial, today's totals and sample lists after the Chinese ones. Nothing here names BandKit;
// only the import line differs from an iOS app. One change: the tutorials hop to the main queue
// in their completions, and a test process's main thread runs no loop, so these call back
// directly.

enum SetupError: Error {
    case notAvailableOnDevice
    case dataTypeNotAvailable
}

/// Tutorial D's authorization helper.
enum HealthKitSetup {
    static func authorize(completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        guard HKHealthStore.isHealthDataAvailable() else {
            completion(false, SetupError.notAvailableOnDevice)
            return
        }
        guard let dateOfBirth = HKObjectType.characteristicType(forIdentifier: .dateOfBirth),
              let bloodType = HKObjectType.characteristicType(forIdentifier: .bloodType),
              let biologicalSex = HKObjectType.characteristicType(forIdentifier: .biologicalSex),
              let bodyMassIndex = HKObjectType.quantityType(forIdentifier: .bodyMassIndex),
              let height = HKObjectType.quantityType(forIdentifier: .height),
              let bodyMass = HKObjectType.quantityType(forIdentifier: .bodyMass),
              let activeEnergy = HKObjectType.quantityType(forIdentifier: .activeEnergyBurned) else {
            completion(false, SetupError.dataTypeNotAvailable)
            return
        }
        let toWrite: Set<HKSampleType> = [bodyMassIndex, activeEnergy, HKObjectType.workoutType()]
        let toRead: Set<HKObjectType> = [dateOfBirth, bloodType, biologicalSex, bodyMassIndex, height, bodyMass,
                                         HKObjectType.workoutType()]
        HKHealthStore().requestAuthorization(toShare: toWrite, read: toRead) { success, error in
            completion(success, error)
        }
    }
}

/// Tutorial D's profile store.
enum ProfileStore {
    static func ageSexAndBloodType() throws -> (age: Int, biologicalSex: HKBiologicalSex, bloodType: HKBloodType) {
        let healthStore = HKHealthStore()
        let birthday = try healthStore.dateOfBirthComponents()
        let biologicalSex = try healthStore.biologicalSex()
        let bloodType = try healthStore.bloodType()
        let thisYear = Calendar.current.dateComponents([.year], from: Date()).year!
        return (thisYear - birthday.year!, biologicalSex.biologicalSex, bloodType.bloodType)
    }

    static func mostRecentSample(for sampleType: HKSampleType,
                                 completion: @escaping @Sendable (HKQuantitySample?, (any Error)?) -> Void) {
        let untilNow = HKQuery.predicateForSamples(withStart: Date.distantPast, end: Date(), options: .strictEndDate)
        let newestFirst = NSSortDescriptor(key: HKSampleSortIdentifierStartDate, ascending: false)
        let query = HKSampleQuery(sampleType: sampleType, predicate: untilNow, limit: 1, sortDescriptors: [newestFirst]) { _, samples, error in
            guard let samples, let mostRecent = samples.first as? HKQuantitySample else {
                completion(nil, error)
                return
            }
            completion(mostRecent, nil)
        }
        HKHealthStore().execute(query)
    }

    static func saveBodyMassIndex(_ bodyMassIndex: Double, date: Date, completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        guard let type = HKQuantityType.quantityType(forIdentifier: .bodyMassIndex) else {
            completion(false, SetupError.dataTypeNotAvailable)
            return
        }
        let quantity = HKQuantity(unit: HKUnit.count(), doubleValue: bodyMassIndex)
        let sample = HKQuantitySample(type: type, quantity: quantity, start: date, end: date)
        HKHealthStore().save(sample) { success, error in completion(success, error) }
    }
}

/// Tutorials A, B and C: today's totals and the day's samples.
enum TodayReport {
    static let healthStore = HKHealthStore()

    static func startOfToday() -> Date {
        let calendar = Calendar.current
        let now = calendar.dateComponents([.year, .month, .day], from: Date())
        return calendar.date(from: DateComponents(year: now.year, month: now.month, day: now.day, hour: 0, minute: 0, second: 0))!
    }

    static func todayPredicate(options: HKQueryOptions = .strictStartDate) -> NSPredicate {
        let start = startOfToday()
        let end = Calendar.current.date(byAdding: .day, value: 1, to: start)!
        return HKQuery.predicateForSamples(withStart: start, end: end, options: options)
    }

    /// Tutorial A's request: its write and read lists.
    static func authorize(completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        let write: Set<HKSampleType> = [
            HKObjectType.quantityType(forIdentifier: .activeEnergyBurned)!,
            HKObjectType.quantityType(forIdentifier: .stepCount)!,
            HKObjectType.quantityType(forIdentifier: .distanceCycling)!,
        ]
        let read: Set<HKObjectType> = [
            HKObjectType.quantityType(forIdentifier: .stepCount)!,
            HKObjectType.quantityType(forIdentifier: .distanceWalkingRunning)!,
            HKObjectType.quantityType(forIdentifier: .distanceCycling)!,
            HKObjectType.quantityType(forIdentifier: .basalEnergyBurned)!,
            HKObjectType.quantityType(forIdentifier: .activeEnergyBurned)!,
            HKObjectType.quantityType(forIdentifier: .flightsClimbed)!,
            HKObjectType.categoryType(forIdentifier: .appleStandHour)!,
            HKObjectType.quantityType(forIdentifier: .heartRate)!,
            HKObjectType.workoutType(),
        ]
        healthStore.requestAuthorization(toShare: write, read: read) { success, error in completion(success, error) }
    }

    /// Tutorial A: today's total of one type, in `unit`.
    static func todaysTotal(_ identifier: HKQuantityTypeIdentifier, in unit: HKUnit,
                            completion: @escaping @Sendable (Double?, (any Error)?) -> Void) {
        let type = HKObjectType.quantityType(forIdentifier: identifier)!
        let query = HKStatisticsQuery(quantityType: type, quantitySamplePredicate: todayPredicate(), options: .cumulativeSum) { _, result, error in
            completion(result?.sumQuantity()?.doubleValue(for: unit), error)
        }
        healthStore.execute(query)
    }

    /// Tutorials B and C: the day's samples of one type, newest first.
    static func todaysSamples(_ identifier: HKQuantityTypeIdentifier, sortDescriptors: [NSSortDescriptor],
                              completion: @escaping @Sendable ([HKQuantitySample], (any Error)?) -> Void) {
        let type = HKObjectType.quantityType(forIdentifier: identifier)!
        let query = HKSampleQuery(sampleType: type, predicate: todayPredicate(options: []), limit: HKObjectQueryNoLimit,
                                  sortDescriptors: sortDescriptors) { _, samples, error in
            completion((samples ?? []).compactMap { $0 as? HKQuantitySample }, error)
        }
        healthStore.execute(query)
    }
}
