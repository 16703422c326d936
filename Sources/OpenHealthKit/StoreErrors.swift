internal import HealthModel
internal import HealthStore

extension HKError {
    /// The HealthKit code of a store failure, with the store's message as the reason.
    static func from(_ error: any Error) -> HKError {
        if let error = error as? HKError { return error }
        guard let error = error as? HealthStoreError else { return HKError(.errorInvalidArgument, "\(error)") }
        switch error {
        case .notAuthorized, .ownerOnly: return HKError(.errorAuthorizationDenied, error.description)
        case .file, .database: return HKError(.errorDatabaseInaccessible, error.description)
        case .invalidSample, .unit, .statistics, .model, .misuse: return HKError(.errorInvalidArgument, error.description)
        case .unknownPerson, .invalidPersonName, .personExists: return HKError(.errorInvalidArgument, error.description)
        }
    }
}

/// Runs `body`, turning whatever it throws into an ``HKError``.
func healthKitErrors<T>(_ body: () throws -> T) throws(HKError) -> T {
    do { return try body() } catch { throw HKError.from(error) }
}
