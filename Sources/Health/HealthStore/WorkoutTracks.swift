import FoundationEssentials
import HealthModel

/// Laps and track points of a workout: saved with it (FIT import), read for export.
extension WriteTransaction {
    /// Replaces the laps and track points of workout `id` (this person's, and for an app other than
    /// the owner, one it saved). Implausible points (a position off the globe, a heart rate of 300)
    /// are refused with the point's index; nothing of the track is written then.
    public func saveTrack(_ track: WorkoutTrack, forWorkout id: UUID) throws {
        try ensureOpen()
        let select = try connection.cached("SELECT app_id FROM workout WHERE uuid = ? AND person_id = ?").get()
        select.bind(1, id)
        select.bind(2, store.personID)
        guard try select.step().get() else { select.reset(); throw HealthStoreError.invalidSample("no workout \(id) to attach a track to") }
        let ownerID = select.int64(0)
        select.reset()
        if !app.isOwner {
            guard try store.existingAppID(app.id, connection) == ownerID else {
                throw HealthStoreError.invalidSample("workout \(id) was saved by another app")
            }
            try checkWritable(.workout)
        }
        for (index, point) in track.points.enumerated() {
            if let problem = point.problem { throw HealthStoreError.invalidSample("track point \(index): \(problem)") }
        }
        for (index, lap) in track.laps.enumerated() where lap.end < lap.start {
            throw HealthStoreError.invalidSample("lap \(index) ends before it starts")
        }
        for table in ["workout_lap", "workout_track_point"] {
            let delete = try connection.cached("DELETE FROM \(table) WHERE workout_uuid = ?").get()
            delete.bind(1, id)
            try delete.run().get()
        }
        let insertLap = try connection.cached("""
            INSERT INTO workout_lap (workout_uuid, lap_index, start_us, end_us, distance_m, energy_kcal, hr_avg, hr_max,
                                     cadence_avg, cadence_max) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).get()
        for (index, lap) in track.laps.enumerated() {
            insertLap.bind(1, id)
            insertLap.bind(2, index)
            insertLap.bind(3, lap.start.microsecondsSince1970)
            insertLap.bind(4, lap.end.microsecondsSince1970)
            for (column, value) in [lap.distance, lap.energy, lap.averageHeartRate, lap.maximumHeartRate,
                                    lap.averageCadence, lap.maximumCadence].enumerated() {
                insertLap.bind(Int32(5 + column), optional: value)
            }
            try insertLap.run().get()
        }
        let insertPoint = try connection.cached("""
            INSERT INTO workout_track_point (workout_uuid, point_index, time_us, latitude, longitude, altitude_m, heart_rate,
                                             cadence, distance_m, speed_mps) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).get()
        for (index, point) in track.points.sorted(by: { $0.time < $1.time }).enumerated() {
            insertPoint.bind(1, id)
            insertPoint.bind(2, index)
            insertPoint.bind(3, point.time.microsecondsSince1970)
            for (column, value) in [point.latitude, point.longitude, point.altitude, point.heartRate, point.cadence,
                                    point.distance, point.speed].enumerated() {
                insertPoint.bind(Int32(4 + column), optional: value)
            }
            try insertPoint.run().get()
        }
    }
}

extension Statement {
    func bind(_ index: Int32, optional value: Double?) {
        if let value { bind(index, value) } else { bindNull(index) }
    }

    func optionalDouble(_ column: Int32) -> Double? { isNull(column) ? nil : double(column) }
}

extension HealthStore {
    /// The workout with id `id`, if `app` may see it.
    public func workout(id: UUID, as app: AppIdentity) throws -> Workout? {
        try read { connection in
            let visible = try visibilityFilter(for: app, type: .workout, connection)
            let statement = try connection.cached("""
                SELECT \(Self.workoutColumns)
                WHERE w.uuid = ?1 AND w.person_id = ?2 AND (CAST(?3 AS BIGINT) IS NULL OR w.app_id = ?3)
                """).get()
            defer { statement.reset() }
            statement.bind(1, id)
            statement.bind(2, personID)
            statement.bind(3, visible)
            return try statement.step().get() ? decodeWorkout(statement) : nil
        }
    }

    /// The laps and track points of workout `id` (empty when it has none or `app` may not see it).
    public func track(ofWorkout id: UUID, as app: AppIdentity) throws -> WorkoutTrack {
        guard try workout(id: id, as: app) != nil else { return WorkoutTrack() }
        return try read { connection in
            var track = WorkoutTrack()
            let laps = try connection.cached("""
                SELECT start_us, end_us, distance_m, energy_kcal, hr_avg, hr_max, cadence_avg, cadence_max
                FROM workout_lap WHERE workout_uuid = ? ORDER BY lap_index
                """).get()
            defer { laps.reset() }
            laps.bind(1, id)
            while try laps.step().get() {
                track.laps.append(WorkoutLap(start: Date(microsecondsSince1970: laps.int64(0)), end: Date(microsecondsSince1970: laps.int64(1)),
                                             distance: laps.optionalDouble(2), energy: laps.optionalDouble(3),
                                             averageHeartRate: laps.optionalDouble(4), maximumHeartRate: laps.optionalDouble(5),
                                             averageCadence: laps.optionalDouble(6), maximumCadence: laps.optionalDouble(7)))
            }
            let points = try connection.cached("""
                SELECT time_us, latitude, longitude, altitude_m, heart_rate, cadence, distance_m, speed_mps
                FROM workout_track_point WHERE workout_uuid = ? ORDER BY point_index
                """).get()
            defer { points.reset() }
            points.bind(1, id)
            while try points.step().get() {
                track.points.append(WorkoutTrackPoint(time: Date(microsecondsSince1970: points.int64(0)),
                                                      latitude: points.optionalDouble(1), longitude: points.optionalDouble(2),
                                                      altitude: points.optionalDouble(3), heartRate: points.optionalDouble(4),
                                                      cadence: points.optionalDouble(5), distance: points.optionalDouble(6),
                                                      speed: points.optionalDouble(7)))
            }
            return track
        }
    }
}
