import FoundationEssentials
import HealthModel

/// What imports from other stores need beyond saving samples and workouts (``save(_:attributedTo:)``):
/// characteristics written in the same transaction as the samples (so a failed import leaves
/// them untouched too).
extension WriteTransaction {
    /// Sets a characteristic inside this transaction (owner only); the value must be one the
    /// store accepts (`YYYY-MM-DD`, a known sex or blood type).
    public func setCharacteristic(_ type: CharacteristicType, _ value: String) throws(HealthStoreError) {
        guard app.isOwner else { throw HealthStoreError.ownerOnly(operation: "setting characteristics", app: app.id) }
        guard isOpen else { throw HealthStoreError.misuse("the write transaction has ended; use the one passed to write(as:)") }
        let valid: Bool
        switch type {
        case .dateOfBirth: valid = HealthStore.parseBirthDate(value) != nil
        case .biologicalSex: valid = BiologicalSex.known.contains(BiologicalSex(rawValue: value))
        case .bloodType: valid = BloodType.known.contains(BloodType(rawValue: value))
        }
        guard valid else {
            throw HealthStoreError.model(.invalidValue(field: type.rawValue, value: value, reason: "is not a value the store accepts"))
        }
        let upsert = try connection.cached("""
            INSERT INTO characteristic (person_id, key, value) VALUES (?, ?, ?)
            ON CONFLICT (person_id, key) DO UPDATE SET value = excluded.value
            """).get()
        upsert.bind(1, store.personID)
        upsert.bind(2, type.rawValue)
        upsert.bind(3, value)
        try upsert.run().get()
    }
}
