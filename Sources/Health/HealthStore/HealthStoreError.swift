import HealthModel

/// Why a store operation failed.
public enum HealthStoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The database engine (SQLite or PostgreSQL) reported an error; it names the SQL and carries
    /// the engine's message.
    case database(DatabaseError)
    /// The store file or its directory could not be created or opened.
    case file(path: String, reason: String)
    /// The app has no write grant for the type (reads are never refused: see ``HealthStore``).
    case notAuthorized(app: String, type: String)
    /// Only the owner (the `health` command) may do this.
    case ownerOnly(operation: String, app: String)
    /// A sample that cannot be stored as given.
    case invalidSample(String)
    /// The API was used out of order (a transaction used after it ended, a write inside a write).
    case misuse(String)
    /// No person of this name in the store (``HealthStore/people()`` lists them).
    case unknownPerson(String)
    /// A name that cannot name a person (``Person/problem(withName:)`` says why).
    case invalidPersonName(String, String)
    /// Another person already has this name.
    case personExists(String)
    /// The store was migrated by a newer BandKit: its ledger holds `storeMigration`, which this
    /// binary does not know (its newest is `newestKnown`). Opening it for writing is refused.
    case supersededSchema(storeMigration: String, newestKnown: String)
    case unit(UnitError)
    case statistics(StatisticsError)
    case model(HealthModelError)

    public var description: String {
        switch self {
        case .database(let error): return error.description
        case .file(let path, let reason): return "\(path): \(reason)"
        case .notAuthorized(let app, let type): return "\(app) is not authorized to write \(type) (see 'health grant')"
        case .ownerOnly(let operation, let app): return "\(operation) is reserved to the owner; \(app) may not"
        case .invalidSample(let reason): return "invalid sample: \(reason)"
        case .misuse(let reason): return reason
        case .unknownPerson(let name): return "no person named '\(name)' in this store (see 'health people list')"
        case .invalidPersonName(let name, let problem): return "the person's name '\(name)' \(problem)"
        case .personExists(let name): return "a person named '\(name)' already exists"
        case .supersededSchema(let storeMigration, let newestKnown):
            return "was migrated by a newer BandKit (its newest migration is \(storeMigration); this BandKit's newest is "
                + "\(newestKnown)): open it with that newer version, as this one could misread or damage it"
        case .unit(let error): return error.description
        case .statistics(let error): return error.description
        case .model(let error): return error.description
        }
    }
}

extension Result where Failure == DatabaseError {
    /// Unwraps into the public error type (the third layer's throwing API).
    package func get() throws(HealthStoreError) -> Success {
        switch self {
        case .success(let value): return value
        case .failure(let error): throw .database(error)
        }
    }
}
