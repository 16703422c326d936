import FoundationEssentials
import HealthModel

/// Reading workouts: the row format shared by ``HealthStore/workouts(in:as:)`` and the change feed.
extension HealthStore {
    static let workoutColumns = """
        w.uuid, w.activity, w.start_us, w.end_us, w.energy_kcal, w.distance_m, a.bundle_id, w.app_version, w.metadata,
        d.name, d.manufacturer, d.model, d.hardware_id, d.firmware, w.anchor
        FROM workout w JOIN app a ON a.id = w.app_id LEFT JOIN device d ON d.id = w.device_id
        """

    func decodeWorkout(_ row: Statement) -> Workout? {
        guard let id = row.uuid(0) else { return nil }
        var device: DeviceInfo?
        if !row.isNull(9) {
            // The device table stores absent fields as empty text.
            func field(_ column: Int32) -> String? {
                guard let text = row.text(column), !text.isEmpty else { return nil }
                return text
            }
            device = DeviceInfo(name: field(9), manufacturer: field(10), model: field(11),
                                hardwareIdentifier: field(12), firmwareVersion: field(13))
        }
        return Workout(id: id, activity: WorkoutActivityType(rawValue: row.text(1) ?? "other").canonical,
                       start: Date(microsecondsSince1970: row.int64(2)), end: Date(microsecondsSince1970: row.int64(3)),
                       totalEnergyBurned: row.isNull(4) ? nil : Quantity(row.double(4), .kilocalorie),
                       totalDistance: row.isNull(5) ? nil : Quantity(row.double(5), .meter),
                       device: device, metadata: MetadataCoding.decode(row.text(8)),
                       source: AppIdentity(id: row.text(6) ?? "", version: row.text(7) ?? ""))
    }

    /// Workouts saved with an anchor in `(after, through]` that `app` may see, in anchor order,
    /// at most `limit`, each with its anchor: the change feed's workouts (HealthKit's anchored
    /// query over `HKWorkoutType`).
    func workoutsSaved(after: Int64, through: Int64, limit: Int?, as app: AppIdentity,
                       _ connection: Connection) throws(HealthStoreError) -> [(anchor: Int64, workout: Workout)] {
        let visible = try visibilityFilter(for: app, type: .workout, connection)
        let statement = try connection.cached("""
            SELECT \(Self.workoutColumns)
            WHERE w.person_id = ?5 AND (CAST(?1 AS BIGINT) IS NULL OR w.app_id = ?1) AND w.anchor > ?2 AND w.anchor <= ?3
            ORDER BY w.anchor LIMIT ?4
            """).get()
        defer { statement.reset() }
        statement.bind(1, visible)
        statement.bind(5, personID)
        statement.bind(2, after)
        statement.bind(3, through)
        statement.bind(4, Int64(limit ?? Int.max))
        var workouts: [(anchor: Int64, workout: Workout)] = []
        while try statement.step().get() {
            if let workout = decodeWorkout(statement) { workouts.append((statement.int64(14), workout)) }
        }
        return workouts
    }
}
