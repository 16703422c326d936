import FoundationEssentials
import HealthModel

/// What imports from other stores need beyond saving samples: workouts attributed to their
/// source and kept once however often they are imported, and characteristics written in the
/// same transaction as the samples (so a failed import leaves them untouched too).
extension WriteTransaction {
    /// Saves a workout attributed to `source` (owner only). A workout whose id is already stored
    /// is left as it is and false returned: importers derive ids from the workout's content, so
    /// a second import of the same file adds nothing.
    @discardableResult
    public func saveWorkout(_ workout: Workout, attributedTo source: AppIdentity) throws -> Bool {
        guard app.isOwner else { throw HealthStoreError.ownerOnly(operation: "saving for another source", app: app.id) }
        guard isOpen else { throw HealthStoreError.misuse("the write transaction has ended; use the one passed to write(as:)") }
        guard workout.end >= workout.start else { throw HealthStoreError.invalidSample("workout ends before it starts") }
        if let problem = PlausibleRange.problem(start: workout.start, end: workout.end, maximumDuration: SampleType.workout.maximumDuration) {
            throw HealthStoreError.invalidSample("workout \(problem)")
        }
        let energy: Double?
        let distance: Double?
        do {
            energy = try workout.totalEnergyBurned?.value(in: .kilocalorie)
            distance = try workout.totalDistance?.value(in: .meter)
        } catch { throw HealthStoreError.unit(error) }
        let appID = try appID(source.id)
        let deviceID = try workout.device.map { device throws(HealthStoreError) in try self.deviceID(device) }
        let insert = try connection.cached("""
            INSERT INTO workout (anchor, uuid, activity, start_us, end_us, energy_kcal, distance_m, app_id,
                                 app_version, device_id, metadata)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (uuid) DO NOTHING
            """).get()
        let anchor = nextAnchor()
        insert.bind(1, anchor)
        insert.bind(2, workout.id)
        insert.bind(3, workout.activity.rawValue)
        insert.bind(4, workout.start.microsecondsSince1970)
        insert.bind(5, workout.end.microsecondsSince1970)
        if let energy { insert.bind(6, energy) } else { insert.bindNull(6) }
        if let distance { insert.bind(7, distance) } else { insert.bindNull(7) }
        insert.bind(8, appID)
        insert.bind(9, source.version)
        insert.bind(10, deviceID)
        insert.bind(11, MetadataCoding.encode(workout.metadata))
        try insert.run().get()
        return connection.changes > 0
    }

    /// Sets a characteristic inside this transaction (owner only); the value must be one the
    /// store accepts (`YYYY-MM-DD`, a known sex or blood type).
    public func setCharacteristic(_ type: CharacteristicType, _ value: String) throws {
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
            INSERT INTO characteristic (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value
            """).get()
        upsert.bind(1, type.rawValue)
        upsert.bind(2, value)
        try upsert.run().get()
    }
}
