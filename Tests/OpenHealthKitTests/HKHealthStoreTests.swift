import Foundation
import HealthModel
import HealthStore
import HealthTestSupport
@testable import OpenHealthKit
import Testing

/// HealthKit's API over a temporary store the owner seeds: authorization, saving, sample and
/// statistics queries, the change feed, and bad input.
@Suite struct HKHealthStoreTests {
    let temporary: TemporaryStore
    let app: HKHealthStore
    let steps = HKObjectType.quantityType(forIdentifier: .stepCount)!
    let heartRate = HKObjectType.quantityType(forIdentifier: .heartRate)!
    let day = Date(timeIntervalSince1970: 1_764_489_600)  // 2025-11-30T08:00:00Z

    init() throws {
        temporary = try TemporaryStore()
        app = HKHealthStore(appIdentifier: "com.example.app", storePath: temporary.path)
    }

    /// Steps from a band and a watch recorded over the same minutes: 60 + 60 raw, merged by priority.
    func seedOverlappingSteps() throws {
        let band = AppIdentity(id: "bandkit.band", version: "1"), watch = AppIdentity(id: "com.example.watch", version: "2")
        try temporary.store.write(as: .owner) { transaction in
            for minute in 0..<10 {
                let start = day.addingTimeInterval(Double(minute) * 60)
                try transaction.save(QuantitySample(type: .stepCount, quantity: Quantity(60, .count), start: start, end: start.addingTimeInterval(60),
                                                    device: DeviceInfo(name: "band"), metadata: ["minute": String(minute)]), attributedTo: band)
                try transaction.save(QuantitySample(type: .stepCount, quantity: Quantity(50, .count), start: start, end: start.addingTimeInterval(60),
                                                    device: DeviceInfo(name: "watch")), attributedTo: watch)
            }
        }
    }

    func authorize(share: Set<HKSampleType> = [], read: Set<HKObjectType> = []) async throws {
        try await app.requestAuthorization(toShare: share, read: read)
    }

    @Test func aTypeTheAppMayNotWriteIsRefusedUntilRequested() async throws {
        let sample = HKQuantitySample(type: steps, quantity: HKQuantity(unit: .count(), doubleValue: 10), start: day, end: day.addingTimeInterval(60))
        #expect(app.authorizationStatus(for: steps) == .notDetermined)
        await #expect(throws: HKError.self) { try await app.save(sample) }
        do { try await app.save(sample) } catch let error as HKError { #expect(error.code == .errorAuthorizationDenied) }
        #expect(try await app.statusForAuthorizationRequest(toShare: [steps], read: []) == .shouldRequest)
        try await authorize(share: [steps])
        #expect(app.authorizationStatus(for: steps) == .sharingAuthorized)
        #expect(try await app.statusForAuthorizationRequest(toShare: [steps], read: []) == .unnecessary)
        try await app.save(sample)
        try temporary.store.setAuthorization(app: "com.example.app", type: "step-count", access: .write, granted: false)
        #expect(app.authorizationStatus(for: steps) == .sharingDenied)
        try await authorize(share: [steps])
        #expect(app.authorizationStatus(for: steps) == .sharingDenied, "the user's revoke stays")
    }

    @Test func aReadDenialIsInvisibleTheAppSeesOnlyItsOwnSamples() async throws {
        try seedOverlappingSteps()
        try await authorize(share: [steps])
        try await app.save(HKQuantitySample(type: steps, quantity: HKQuantity(unit: .count(), doubleValue: 7), start: day.addingTimeInterval(-3600),
                                            end: day.addingTimeInterval(-3540)))
        let all = HKSampleQueryDescriptor(predicates: [.quantitySample(type: steps)], sortDescriptors: [])
        #expect(try await all.result(for: app).map { $0.quantity.doubleValue(for: .count()) } == [7])
        // A type it never asked to read, holding only others' samples: empty, and no error.
        let never = try await HKSampleQueryDescriptor(predicates: [.quantitySample(type: steps)], sortDescriptors: [])
            .result(for: HKHealthStore(appIdentifier: "com.example.stranger", storePath: temporary.path))
        #expect(never.isEmpty)
        try await authorize(read: [steps])
        #expect(try await all.result(for: app).count == 21)
        try temporary.store.setAuthorization(app: "com.example.app", type: "step-count", access: .read, granted: false)
        let statistics = try await HKStatisticsQueryDescriptor(predicate: .quantitySample(type: steps), options: .cumulativeSum).result(for: app)
        #expect(statistics?.sumQuantity()?.doubleValue(for: .count()) == 7)
    }

    @Test func statisticsAreTheStoresMergedStatisticsNotTheRawSum() async throws {
        try seedOverlappingSteps()
        try await authorize(read: [steps])
        let range = day..<day.addingTimeInterval(600)
        let predicate = HKQuery.predicateForSamples(withStart: range.lowerBound, end: range.upperBound, options: .strictStartDate)
        let expected = try temporary.store.statistics(type: .stepCount, range: range, options: .sum, as: AppIdentity(id: "com.example.app", version: "1"))
        let result = try await HKStatisticsQueryDescriptor(predicate: .quantitySample(type: steps, predicate: predicate),
                                                           options: [.cumulativeSum, .separateBySource]).result(for: app)
        let statistics = try #require(result)
        #expect(statistics.sumQuantity()?.doubleValue(for: .count()) == expected.first?.sum)
        // Both record with a device; the newer source (the watch) ranks first: its 50 a minute, not 110.
        #expect(statistics.sumQuantity()?.doubleValue(for: .count()) == 500)
        #expect(Set(statistics.sources?.map(\.bundleIdentifier) ?? []) == ["bandkit.band", "com.example.watch"])
        #expect(statistics.sumQuantity(for: HKSource(bundleIdentifier: "bandkit.band"))?.doubleValue(for: .count()) == 600)
        let raw = try await HKSampleQueryDescriptor(predicates: [.quantitySample(type: steps, predicate: predicate)], sortDescriptors: [])
            .result(for: app).reduce(0) { $0 + $1.quantity.doubleValue(for: .count()) }
        #expect(raw == 1100)
    }

    @Test func statisticsQueryErrors() async throws {
        try await authorize(read: [steps, heartRate])
        let empty = HKQuery.predicateForSamples(withStart: day, end: day.addingTimeInterval(60), options: [])
        let (result, error): (HKStatistics?, (any Error)?) = await withCheckedContinuation { continuation in
            app.execute(HKStatisticsQuery(quantityType: steps, quantitySamplePredicate: empty, options: .cumulativeSum) { _, result, error in
                continuation.resume(returning: (result, error))
            })
        }
        #expect(result == nil)
        #expect((error as? HKError)?.code == .errorNoData)
        await #expect(throws: HKError.self) {
            _ = try await HKStatisticsQueryDescriptor(predicate: .quantitySample(type: heartRate), options: .cumulativeSum).result(for: app)
        }
    }

    @Test func sampleQueriesFilterSortAndLimit() async throws {
        try seedOverlappingSteps()
        try await authorize(read: [steps])
        func query(_ predicate: NSPredicate?, _ sort: [NSSortDescriptor]?, limit: Int = HKObjectQueryNoLimit) async throws -> [HKSample] {
            try await withCheckedThrowingContinuation { continuation in
                app.execute(HKSampleQuery(sampleType: steps, predicate: predicate, limit: limit, sortDescriptors: sort) { _, samples, error in
                    if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: samples ?? []) }
                })
            }
        }
        let watch = HKQuery.predicateForObjects(from: HKSource(bundleIdentifier: "com.example.watch"))
        #expect(try await query(watch, nil).count == 10)
        let newest = try await query(nil, [NSSortDescriptor(key: HKSampleSortIdentifierStartDate, ascending: false)], limit: 3)
        #expect(newest.map(\.startDate) == [day.addingTimeInterval(540), day.addingTimeInterval(540), day.addingTimeInterval(480)])
        let firstMinutes = HKQuery.predicateForSamples(withStart: day, end: day.addingTimeInterval(120), options: .strictStartDate)
        let both = NSCompoundPredicate(andPredicateWithSubpredicates: [firstMinutes, watch])
        #expect(try await query(both, nil).count == 2)
        let either = NSCompoundPredicate(orPredicateWithSubpredicates: [firstMinutes, watch])
        #expect(try await query(either, nil).count == 12)
        let tagged = HKQuery.predicateForObjects(withMetadataKey: "minute", allowedValues: ["3", "4"])
        #expect(try await query(tagged, nil).count == 2)
        let byDevice = HKQuery.predicateForObjects(from: [HKDevice(name: "band", manufacturer: nil, model: nil, hardwareVersion: nil,
                                                                    firmwareVersion: nil, softwareVersion: nil, localIdentifier: nil, udiDeviceIdentifier: nil)])
        #expect(try await query(byDevice, [NSSortDescriptor(key: HKSampleSortIdentifierEndDate, ascending: true)], limit: 4).count == 4)
        await #expect(throws: HKError.self) { _ = try await query(nil, [NSSortDescriptor(key: "quantity", ascending: true)]) }
    }

    @Test func statisticsCollectionBucketsByTheIntervalFromTheAnchor() async throws {
        try seedOverlappingSteps()
        try await authorize(read: [steps])
        let predicate = HKQuery.predicateForSamples(withStart: day, end: day.addingTimeInterval(600), options: .strictStartDate)
        let collection = try await HKStatisticsCollectionQueryDescriptor(
            predicate: .quantitySample(type: steps, predicate: predicate), options: .cumulativeSum, anchorDate: day,
            intervalComponents: DateComponents(minute: 1)).result(for: app)
        #expect(collection.statistics().count == 10)
        var seen: [Double] = []
        collection.enumerateStatistics(from: day.addingTimeInterval(120), to: day.addingTimeInterval(240)) { statistics, _ in
            seen.append(statistics.sumQuantity()?.doubleValue(for: .count()) ?? -1)
        }
        #expect(seen == [50, 50, 50])
        #expect(collection.statistics(for: day.addingTimeInterval(30))?.startDate == day)
        await #expect(throws: HKError.self) {
            _ = try await HKStatisticsCollectionQueryDescriptor(predicate: .quantitySample(type: steps), options: .cumulativeSum, anchorDate: day,
                                                                intervalComponents: DateComponents(minute: 15)).result(for: app)
        }
    }

    @Test func badSamplesAreRefusedWithInvalidArgument() async throws {
        try await authorize(share: [steps, heartRate])
        let backwards = HKQuantitySample(type: steps, quantity: HKQuantity(unit: .count(), doubleValue: 1), start: day, end: day.addingTimeInterval(-1))
        let wrongUnit = HKQuantitySample(type: heartRate, quantity: HKQuantity(unit: .meter(), doubleValue: 1), start: day, end: day)
        for sample in [backwards, wrongUnit] {
            do {
                try await app.save(sample)
                Issue.record("saved \(sample)")
            } catch let error as HKError {
                #expect(error.code == .errorInvalidArgument)
            }
        }
        let unsynced = HKQuantitySample(type: steps, quantity: HKQuantity(unit: .count(), doubleValue: 1), start: day, end: day,
                                        metadata: [HKMetadataKeySyncIdentifier: "x"])
        await #expect(throws: HKError.self) { try await app.save(unsynced) }
    }

    @Test func aStoreThatCannotBeOpenedIsAnHKErrorWithTheReason() async throws {
        let blocker = temporary.directory + "/file"
        #expect(FileManager.default.createFile(atPath: blocker, contents: Data("x".utf8)))
        let broken = HKHealthStore(appIdentifier: "com.example.app", storePath: blocker + "/health.sqlite")
        do {
            try await broken.save(HKQuantitySample(type: steps, quantity: HKQuantity(unit: .count(), doubleValue: 1), start: day, end: day))
            Issue.record("saved into a store that cannot exist")
        } catch let error as HKError {
            #expect(error.code == .errorDatabaseInaccessible)
            #expect(error.reason.contains(blocker))
        }
        let owner = HKHealthStore(appIdentifier: "health", storePath: temporary.path)
        await #expect(throws: HKError(.errorInvalidArgument, AppIdentityResolver.problem(with: .owner)!)) {
            try await owner.requestAuthorization(toShare: [steps], read: [])
        }
    }

    @Test func syncIdentifiersReplaceOnlyWithAGreaterVersionAndMetadataReadsBack() async throws {
        try await authorize(share: [steps], read: [steps])
        func save(_ value: Double, version: Int) async throws {
            try await app.save(HKQuantitySample(type: steps, quantity: HKQuantity(unit: .count(), doubleValue: value), start: day,
                                                end: day.addingTimeInterval(60),
                                                metadata: [HKMetadataKeySyncIdentifier: "minute-1", HKMetadataKeySyncVersion: version,
                                                           HKMetadataKeyTimeZone: "Europe/Berlin", HKMetadataKeyExternalUUID: "abc"]))
        }
        try await save(10, version: 1)
        try await save(20, version: 3)
        try await save(30, version: 2)
        let stored = try await HKSampleQueryDescriptor(predicates: [.quantitySample(type: steps)], sortDescriptors: []).result(for: app)
        #expect(stored.map { $0.quantity.doubleValue(for: .count()) } == [20])
        #expect(stored.first?.metadata?[HKMetadataKeySyncVersion] as? Int == 3)
        #expect(stored.first?.metadata?[HKMetadataKeyTimeZone] as? String == "Europe/Berlin")
        #expect(stored.first?.metadata?[HKMetadataKeyExternalUUID] as? String == "abc")
    }

    @Test func characteristicsFollowReadGrantsAndAnUnsetBirthDateIsNoData() async throws {
        let birth = HKObjectType.characteristicType(forIdentifier: .dateOfBirth)!
        let sex = HKObjectType.characteristicType(forIdentifier: .biologicalSex)!
        try temporary.store.setCharacteristic(.biologicalSex, "male")
        try await authorize(read: [birth])
        #expect(try app.biologicalSex().biologicalSex == .notSet, "not granted: looks unset")
        #expect(throws: HKError.self) { try app.dateOfBirthComponents() }
        try await authorize(read: [sex])
        #expect(try app.biologicalSex().biologicalSex == .male)
        #expect(try app.bloodType().bloodType == .notSet)
        #expect(app.authorizationStatus(for: sex) == .sharingDenied)
    }
}
