internal import HealthStore

extension HKError {
    /// The HealthKit code of a store failure, with the store's message as the reason.
    static func from(_ error: any Error) -> HKError {
        if let error = error as? HKError { return error }
        guard let error = error as? HealthStoreError else { return HKError(.errorInvalidArgument, "\(error)") }
        // Not an exhaustive switch: a case the store adds later is an invalid argument until
        // it is given a code of its own.
        if case .notAuthorized = error { return HKError(.errorAuthorizationDenied, error.description) }
        if case .ownerOnly = error { return HKError(.errorAuthorizationDenied, error.description) }
        if case .file = error { return HKError(.errorDatabaseInaccessible, error.description) }
        if case .database = error { return HKError(.errorDatabaseInaccessible, error.description) }
        return HKError(.errorInvalidArgument, error.description)
    }
}

/// Runs `body`, turning whatever it throws into an ``HKError``.
func healthKitErrors<T>(_ body: () throws -> T) throws(HKError) -> T {
    do { return try body() } catch { throw HKError.from(error) }
}
