import Foundation
internal import HealthModel
internal import HealthStore

/// `HKBiologicalSex`, Apple's raw values.
public enum HKBiologicalSex: Int, Sendable {
    case notSet = 0, female, male, other
}

/// `HKBloodType`, Apple's raw values.
public enum HKBloodType: Int, Sendable {
    case notSet = 0, aPositive, aNegative, bPositive, bNegative, abPositive, abNegative, oPositive, oNegative
}

public final class HKBiologicalSexObject: Sendable {
    public let biologicalSex: HKBiologicalSex
    init(_ value: HKBiologicalSex) { biologicalSex = value }
}

public final class HKBloodTypeObject: Sendable {
    public let bloodType: HKBloodType
    init(_ value: HKBloodType) { bloodType = value }
}

extension HKHealthStore {
    // MARK: Saving

    /// Saves samples and workouts in one transaction: all or none. A sample that ends before it
    /// starts, a quantity whose unit does not fit its type or a category value out of range fails
    /// with errorInvalidArgument (Apple raises an exception); a type the app may not write with
    /// errorAuthorizationDenied.
    func save(objects: [HKObject]) throws(HKError) {
        let store = try store()
        var samples: [(any Sendable)] = []
        for object in objects {
            switch object {
            case let sample as HKQuantitySample: samples.append(try sample.model())
            case let sample as HKCategorySample: samples.append(try sample.model())
            case let workout as HKWorkout: samples.append(try workout.model())
            default: throw HKError(.errorInvalidArgument, "\(type(of: object)) cannot be saved")
            }
        }
        try healthKitErrors {
            try store.write(as: app) { transaction in
                for sample in samples {
                    switch sample {
                    case let quantity as QuantitySample: try transaction.save(quantity)
                    case let category as CategorySample: try transaction.save(category)
                    case let workout as Workout: try transaction.save(workout)
                    default: break
                    }
                }
            }
        }
    }

    public func save(_ object: HKObject, withCompletion completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        save([object], withCompletion: completion)
    }

    public func save(_ objects: [HKObject], withCompletion completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        run({ () throws(HKError) in try self.save(objects: objects) }, reporting: completion)
    }

    public func save(_ object: HKObject) async throws { try await save([object]) }

    public func save(_ objects: [HKObject]) async throws {
        try await perform { () throws(HKError) in try self.save(objects: objects) }
    }

    // MARK: Deleting

    /// Deletes objects the app saved; one it did not save (or that is gone) fails the whole call
    /// with errorInvalidArgument and deletes nothing.
    func delete(objects: [HKObject]) throws(HKError) {
        let store = try store()
        try healthKitErrors {
            try store.write(as: app) { transaction in
                for object in objects {
                    let deleted = object is HKWorkout
                        ? try transaction.delete(workoutID: object.uuid) : try transaction.delete(sampleID: object.uuid)
                    if !deleted {
                        throw HKError(.errorInvalidArgument, "no object \(object.uuid) saved by \(app.id) to delete")
                    }
                }
            }
        }
    }

    public func delete(_ object: HKObject, withCompletion completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        delete([object], withCompletion: completion)
    }

    public func delete(_ objects: [HKObject], withCompletion completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        run({ () throws(HKError) in try self.delete(objects: objects) }, reporting: completion)
    }

    public func delete(_ object: HKObject) async throws { try await delete([object]) }

    public func delete(_ objects: [HKObject]) async throws {
        try await perform { () throws(HKError) in try self.delete(objects: objects) }
    }

    /// Deletes the app's own objects of `objectType` matching `predicate`; returns how many.
    func deleteObjects(of objectType: HKObjectType, predicate: NSPredicate) throws(HKError) -> Int {
        guard let sampleType = objectType as? HKSampleType else {
            throw HKError(.errorInvalidArgument, "\(objectType.identifier) is not a sample type")
        }
        let own = NSCompoundPredicate(andPredicateWithSubpredicates: [
            predicate, HKQuery.predicateForObjects(from: HKSource(bundleIdentifier: app.id)),
        ])
        let objects = try samples(of: sampleType, predicate: own, limit: HKObjectQueryNoLimit, sortDescriptors: nil)
        if !objects.isEmpty { try delete(objects: objects) }
        return objects.count
    }

    public func deleteObjects(of objectType: HKObjectType, predicate: NSPredicate,
                              withCompletion completion: @escaping @Sendable (Bool, Int, (any Error)?) -> Void) {
        nonisolated(unsafe) let predicate = predicate
        run({ () throws(HKError) in try self.deleteObjects(of: objectType, predicate: predicate) }) { result in
            switch result {
            case .success(let count): completion(true, count, nil)
            case .failure(let error): completion(false, 0, error)
            }
        }
    }

    public func deleteObjects(of objectType: HKObjectType, predicate: NSPredicate) async throws -> Int {
        nonisolated(unsafe) let predicate = predicate
        return try await perform { () throws(HKError) in try self.deleteObjects(of: objectType, predicate: predicate) }
    }

    // MARK: Characteristics

    /// Characteristics the app may read; one it may not read looks unset (HealthKit's privacy rule).
    private func characteristics() throws(HKError) -> Characteristics {
        let store = try store()
        return try healthKitErrors { try store.characteristics(as: app) }
    }

    /// The date of birth (year, month, day, Gregorian); errorNoData when it was never set.
    public func dateOfBirthComponents() throws -> DateComponents {
        guard var components = try characteristics().dateOfBirth else {
            throw HKError(.errorNoData, "no date of birth is set (health profile --set date-of-birth=YYYY-MM-DD)")
        }
        components.calendar = Calendar(identifier: .gregorian)
        return components
    }

    public func biologicalSex() throws -> HKBiologicalSexObject {
        switch try characteristics().biologicalSex {
        case .some(.female): HKBiologicalSexObject(.female)
        case .some(.male): HKBiologicalSexObject(.male)
        case .some(.other): HKBiologicalSexObject(.other)
        default: HKBiologicalSexObject(.notSet)
        }
    }

    public func bloodType() throws -> HKBloodTypeObject {
        let names: [String: HKBloodType] = ["A+": .aPositive, "A-": .aNegative, "B+": .bPositive, "B-": .bNegative,
                                            "AB+": .abPositive, "AB-": .abNegative, "O+": .oPositive, "O-": .oNegative]
        return HKBloodTypeObject(try characteristics().bloodType.flatMap { names[$0.rawValue] } ?? .notSet)
    }
}
