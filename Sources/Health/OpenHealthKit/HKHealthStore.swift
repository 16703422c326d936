import Foundation
internal import HealthModel
internal import HealthStore

/// Whether a permission sheet would be shown (HealthKit `HKAuthorizationRequestStatus`).
public enum HKAuthorizationRequestStatus: Int, Sendable {
    case unknown = 0, shouldRequest, unnecessary
}

/// The sharing (write) permission of a type (HealthKit `HKAuthorizationStatus`). Read permission
/// is never revealed, as in HealthKit.
public enum HKAuthorizationStatus: Int, Sendable {
    case notDetermined = 0, sharingDenied, sharingAuthorized
}

/// HealthKit's entry point over BandKit's store (`HKHealthStore`).
///
/// The store is `BANDKIT_STORE` (else `$XDG_DATA_HOME/bandkit/health.sqlite`), a file or a
/// `postgresql://` URL (the app then links HealthStorePostgreSQL and calls
/// `HealthStore.enablePostgreSQL()` once), opened on first use; the app is `BANDKIT_APP_ID` (else the process's
/// name). ``init(appIdentifier:appVersion:storePath:person:)`` names both explicitly. A store
/// that cannot be opened makes every call fail with ``HKError/Code/errorDatabaseInaccessible``
/// and the reason. Completion handlers run on a background queue, as HealthKit's do.
public final class HKHealthStore: @unchecked Sendable {
    let app: AppIdentity
    private let path: String
    private let person: String?
    private let lock = NSLock()
    private var opened: Result<HealthStore, HKError>?
    let queue = DispatchQueue(label: "OpenHealthKit.HKHealthStore", attributes: .concurrent)

    /// The store and app from the environment (see the type's documentation), or from
    /// ``setDefault(appIdentifier:appVersion:storePath:)``.
    public convenience init() {
        self.init(identity: AppIdentityResolver.fromEnvironment(),
                  path: AppIdentityResolver.processDefault?.storePath ?? HealthStore.defaultPath(),
                  person: ProcessInfo.processInfo.environment["BANDKIT_PERSON"])
    }

    /// OpenHealthKit only: the app (and store; nil keeps the environment's) that `HKHealthStore()`
    /// and new objects' sources use in this process from now on, instead of `BANDKIT_APP_ID` and
    /// `BANDKIT_STORE` — for a host process (a test runner) that must not change its environment.
    public static func setDefault(appIdentifier: String, appVersion: String = "1", storePath: String?) {
        AppIdentityResolver.processDefault = (AppIdentity(id: appIdentifier, version: appVersion), storePath)
    }

    /// An app and a store named explicitly; `person` picks one of the store's people (nil: the default).
    public convenience init(appIdentifier: String, appVersion: String = "1", storePath: String? = nil, person: String? = nil) {
        self.init(identity: AppIdentity(id: appIdentifier, version: appVersion), path: storePath ?? HealthStore.defaultPath(),
                  person: person)
    }

    init(identity: AppIdentity, path: String, person: String?) {
        app = identity
        self.path = path
        self.person = person
    }

    /// True: BandKit's store can be created on any Linux machine (see the DocC's differences).
    public class func isHealthDataAvailable() -> Bool { true }

    /// The opened store, or why it cannot be opened (remembered: a bad path stays bad).
    func store() throws(HKError) -> HealthStore {
        lock.lock()
        defer { lock.unlock() }
        if let opened { return try opened.get() }
        let result: Result<HealthStore, HKError>
        if let problem = AppIdentityResolver.problem(with: app) {
            result = .failure(HKError(.errorInvalidArgument, problem))
        } else {
            do {
                result = .success(try HealthStore(path: path, cacheKiB: 8_192, person: person))
            } catch {
                result = .failure(HKError(.errorDatabaseInaccessible, "cannot open the health store: \(error)"))
            }
        }
        opened = result
        return try result.get()
    }

    /// Runs `work` on the queue and hands its result to `completion` there.
    func run<T: Sendable>(_ work: @escaping @Sendable () throws(HKError) -> T, _ completion: @escaping @Sendable (Result<T, HKError>) -> Void) {
        queue.async {
            do throws(HKError) { completion(.success(try work())) } catch { completion(.failure(error)) }
        }
    }

    /// Runs `work` on the queue and tells `completion` whether it succeeded (HealthKit's
    /// `(Bool, Error?)` handlers).
    func run(_ work: @escaping @Sendable () throws(HKError) -> Void, reporting completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        run(work) { result in
            switch result {
            case .success: completion(true, nil)
            case .failure(let error): completion(false, error)
            }
        }
    }

    func perform<T: Sendable>(_ work: @escaping @Sendable () throws(HKError) -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            run(work) { continuation.resume(with: $0.mapError { $0 as any Error }) }
        }
    }

    // MARK: Authorization

    private static func split(_ read: Set<HKObjectType>?) -> (samples: Set<SampleType>, characteristics: Set<CharacteristicType>) {
        var samples: Set<SampleType> = [], characteristics: Set<CharacteristicType> = []
        for type in read ?? [] {
            if let characteristic = type as? HKCharacteristicType { characteristics.insert(characteristic.model) }
            if let sample = type.sampleType { samples.insert(sample) }
        }
        return (samples, characteristics)
    }

    func requestAuthorization(toShare typesToShare: Set<HKSampleType>?, read typesToRead: Set<HKObjectType>?) throws(HKError) {
        if (typesToShare ?? []).isEmpty && (typesToRead ?? []).isEmpty {
            throw HKError(.errorInvalidArgument, "requestAuthorization needs at least one type to share or read")
        }
        let store = try store()
        let read = Self.split(typesToRead)
        let share = Set((typesToShare ?? []).compactMap(\.sampleType))
        _ = try healthKitErrors {
            try store.requestAuthorization(for: app, toShare: share, read: read.samples, readCharacteristics: read.characteristics)
        }
    }

    /// HealthKit's first-use prompt. BandKit grants what the user has not decided and keeps what
    /// the user decided (`health grant` / `health revoke`); `success` says the request was
    /// processed, not what was granted.
    public func requestAuthorization(toShare typesToShare: Set<HKSampleType>?, read typesToRead: Set<HKObjectType>?,
                                     completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        let share = typesToShare, read = typesToRead
        run({ () throws(HKError) in try self.requestAuthorization(toShare: share, read: read) }, reporting: completion)
    }

    public func requestAuthorization(toShare typesToShare: Set<HKSampleType>, read typesToRead: Set<HKObjectType>) async throws {
        let share = typesToShare, read = typesToRead
        try await perform { () throws(HKError) in try self.requestAuthorization(toShare: share, read: read) }
    }

    /// The sharing permission of `type`; characteristics are never writable (`sharingDenied`).
    public func authorizationStatus(for type: HKObjectType) -> HKAuthorizationStatus {
        guard let sampleType = type.sampleType else { return .sharingDenied }
        guard let store = try? store(), let status = try? store.authorization(app: app.id, type: sampleType.identifier) else {
            return .notDetermined
        }
        switch status.write {
        case .notDetermined: return .notDetermined
        case .denied: return .sharingDenied
        case .granted: return .sharingAuthorized
        }
    }

    func requestStatus(toShare typesToShare: Set<HKSampleType>, read typesToRead: Set<HKObjectType>) throws(HKError) -> HKAuthorizationRequestStatus {
        let store = try store()
        let read = Self.split(typesToRead)
        var undecided = false
        try healthKitErrors {
            for type in typesToShare.compactMap(\.sampleType) where try store.authorization(app: app.id, type: type.identifier).write == .notDetermined {
                undecided = true
            }
            for identifier in read.samples.map(\.identifier) + read.characteristics.map(\.rawValue)
            where try store.authorization(app: app.id, type: identifier).read == .notDetermined {
                undecided = true
            }
        }
        return undecided ? .shouldRequest : .unnecessary
    }

    public func getRequestStatusForAuthorization(toShare typesToShare: Set<HKSampleType>, read typesToRead: Set<HKObjectType>,
                                                 completion: @escaping @Sendable (HKAuthorizationRequestStatus, (any Error)?) -> Void) {
        let share = typesToShare, read = typesToRead
        run({ () throws(HKError) in try self.requestStatus(toShare: share, read: read) }) { result in
            switch result {
            case .success(let status): completion(status, nil)
            case .failure(let error): completion(.unknown, error)
            }
        }
    }

    public func statusForAuthorizationRequest(toShare typesToShare: Set<HKSampleType>, read typesToRead: Set<HKObjectType>) async throws
        -> HKAuthorizationRequestStatus {
        let share = typesToShare, read = typesToRead
        return try await perform { () throws(HKError) in try self.requestStatus(toShare: share, read: read) }
    }

    // MARK: Units

    /// The units the store keeps each type in (BandKit has no locale preferences: metric, kcal, count/min, degC).
    public func preferredUnits(for quantityTypes: Set<HKQuantityType>,
                               completion: @escaping @Sendable ([HKQuantityType: HKUnit], (any Error)?) -> Void) {
        queue.async { completion(Dictionary(uniqueKeysWithValues: quantityTypes.map { ($0, $0.canonicalUnit) }), nil) }
    }

    public func preferredUnits(for quantityTypes: Set<HKQuantityType>) async throws -> [HKQuantityType: HKUnit] {
        Dictionary(uniqueKeysWithValues: quantityTypes.map { ($0, $0.canonicalUnit) })
    }
}
