/// Reading a SQLite store written before workouts had tracks, read-only: empty temporary tables of
/// the same names stand in, so every workout reads as having no laps and no points (which is what
/// such a store holds) and nothing is written to the file. PostgreSQL, as for people, asks for one
/// command that writes.
enum WorkoutTracksBeforeMigration {
    static let tables = """
        CREATE TEMP TABLE workout_lap (workout_uuid BLOB, lap_index INTEGER, start_us INTEGER, end_us INTEGER,
            distance_m REAL, energy_kcal REAL, hr_avg REAL, hr_max REAL, cadence_avg REAL, cadence_max REAL);
        CREATE TEMP TABLE workout_track_point (workout_uuid BLOB, point_index INTEGER, time_us INTEGER, latitude REAL,
            longitude REAL, altitude_m REAL, heart_rate REAL, cadence REAL, distance_m REAL, speed_mps REAL);
        """
}

/// Reading a SQLite store written before per-person anchors, read-only: a temporary view gives
/// every person the store's counter as their horizon, which is what the migration starts them at.
enum PersonAnchorsBeforeMigration {
    static let view = """
        CREATE TEMP VIEW person_anchor AS SELECT id AS person_id, (SELECT anchor FROM change_counter WHERE id = 1) AS anchor FROM person;
        """
}
