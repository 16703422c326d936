/// A named schema change. Migrations are append-only: once one has shipped, it is never edited;
/// a later migration changes what it made.
///
/// Each migration is written for both engines: the same tables, columns, keys and indexes, in
/// each dialect's types (SQLite's STRICT INTEGER/REAL/BLOB are PostgreSQL's BIGINT/DOUBLE
/// PRECISION/BYTEA; SQLite's rowid keys are identity columns).
struct Migration: Sendable {
    let name: String
    let sql: String
    let postgresql: String

    init(name: String, sql: String, postgresql: String) {
        self.name = name
        self.sql = sql
        self.postgresql = postgresql
    }

    func sql(for engine: DatabaseError.Engine) -> String { engine == .sqlite ? sql : postgresql }
}

extension Migration {
    /// Every migration, in the order they are applied.
    static let all: [Migration] = [.initialSchema, .mergedHours, .people, .workoutTracks, .personAnchors]

    /// Samples, their sources and devices, the change feed, authorization, source priority,
    /// per-app state and characteristics.
    static let initialSchema = Migration(name: "2026-11-30-initial-schema", sql: """
        CREATE TABLE sample_type (
            id INTEGER PRIMARY KEY,
            identifier TEXT NOT NULL UNIQUE,
            -- Longest sample ever stored: bounds the index range scanned for overlapping samples.
            max_duration_us INTEGER NOT NULL DEFAULT 0
        ) STRICT;

        CREATE TABLE app (
            id INTEGER PRIMARY KEY,
            bundle_id TEXT NOT NULL UNIQUE,
            -- Change anchor when the app first wrote: newer sources rank higher by default.
            first_anchor INTEGER NOT NULL,
            -- Set once the app saves a sample recorded by a device (band, watch, phone sensor).
            records_device INTEGER NOT NULL DEFAULT 0
        ) STRICT;

        -- Absent fields are '' rather than NULL so that UNIQUE sees equal devices as equal.
        CREATE TABLE device (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            manufacturer TEXT NOT NULL,
            model TEXT NOT NULL,
            hardware_id TEXT NOT NULL,
            firmware TEXT NOT NULL,
            UNIQUE (name, manufacturer, model, hardware_id, firmware)
        ) STRICT;

        -- One row per sample. The rowid is the change anchor: a new value on every insert and
        -- replacement, taken from change_counter, so the change feed is a rowid range scan.
        CREATE TABLE sample (
            anchor INTEGER PRIMARY KEY,
            uuid BLOB NOT NULL,
            type_id INTEGER NOT NULL REFERENCES sample_type (id),
            start_us INTEGER NOT NULL,
            end_us INTEGER NOT NULL,
            value REAL NOT NULL,
            app_id INTEGER NOT NULL REFERENCES app (id),
            app_version TEXT NOT NULL,
            device_id INTEGER REFERENCES device (id),
            zone TEXT,
            sync_id TEXT,
            sync_version INTEGER NOT NULL DEFAULT 0,
            user_entered INTEGER NOT NULL DEFAULT 0,
            metadata TEXT,
            CHECK (end_us >= start_us)
        ) STRICT;
        CREATE UNIQUE INDEX sample_by_uuid ON sample (uuid);
        -- Covers statistics: the merge reads only these columns (and the rowid).
        CREATE INDEX sample_by_type_time ON sample (type_id, start_us, end_us, app_id, value);
        CREATE UNIQUE INDEX sample_by_sync_id ON sample (app_id, type_id, sync_id) WHERE sync_id IS NOT NULL;

        -- Deleted and replaced samples, for the change feed.
        CREATE TABLE tombstone (
            anchor INTEGER PRIMARY KEY,
            uuid BLOB NOT NULL,
            type_id INTEGER NOT NULL REFERENCES sample_type (id),
            app_id INTEGER NOT NULL REFERENCES app (id)
        ) STRICT;

        -- The last anchor handed out. Readers poll this one row to learn that something changed.
        CREATE TABLE change_counter (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            anchor INTEGER NOT NULL
        ) STRICT;
        INSERT INTO change_counter (id, anchor) VALUES (1, 0);

        -- Per app and type (or characteristic): NULL not determined, 0 denied, 1 granted.
        CREATE TABLE authorization (
            app_id INTEGER NOT NULL REFERENCES app (id),
            type TEXT NOT NULL,
            can_read INTEGER,
            can_write INTEGER,
            PRIMARY KEY (app_id, type)
        ) STRICT, WITHOUT ROWID;

        -- The user's source order per type; lower rank wins. Unlisted sources follow, in default order.
        CREATE TABLE source_priority (
            type_id INTEGER NOT NULL REFERENCES sample_type (id),
            app_id INTEGER NOT NULL REFERENCES app (id),
            rank INTEGER NOT NULL,
            PRIMARY KEY (type_id, app_id)
        ) STRICT, WITHOUT ROWID;

        -- Per-app key/value state (sync cursors), committed atomically with the app's samples.
        CREATE TABLE app_state (
            app_id INTEGER NOT NULL REFERENCES app (id),
            key TEXT NOT NULL,
            value TEXT NOT NULL,
            PRIMARY KEY (app_id, key)
        ) STRICT, WITHOUT ROWID;

        CREATE TABLE characteristic (
            key TEXT PRIMARY KEY,
            value TEXT NOT NULL
        ) STRICT, WITHOUT ROWID;

        CREATE TABLE workout (
            anchor INTEGER PRIMARY KEY,
            uuid BLOB NOT NULL UNIQUE,
            activity TEXT NOT NULL,
            start_us INTEGER NOT NULL,
            end_us INTEGER NOT NULL,
            energy_kcal REAL,
            distance_m REAL,
            app_id INTEGER NOT NULL REFERENCES app (id),
            app_version TEXT NOT NULL,
            device_id INTEGER REFERENCES device (id),
            metadata TEXT,
            CHECK (end_us >= start_us)
        ) STRICT;
        CREATE INDEX workout_by_time ON workout (start_us);
        """, postgresql: """
        CREATE TABLE sample_type (
            id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            identifier TEXT NOT NULL UNIQUE,
            max_duration_us BIGINT NOT NULL DEFAULT 0
        );

        CREATE TABLE app (
            id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            bundle_id TEXT NOT NULL UNIQUE,
            first_anchor BIGINT NOT NULL,
            records_device BIGINT NOT NULL DEFAULT 0
        );

        CREATE TABLE device (
            id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            name TEXT NOT NULL,
            manufacturer TEXT NOT NULL,
            model TEXT NOT NULL,
            hardware_id TEXT NOT NULL,
            firmware TEXT NOT NULL,
            UNIQUE (name, manufacturer, model, hardware_id, firmware)
        );

        CREATE TABLE sample (
            anchor BIGINT PRIMARY KEY,
            uuid BYTEA NOT NULL,
            type_id BIGINT NOT NULL REFERENCES sample_type (id),
            start_us BIGINT NOT NULL,
            end_us BIGINT NOT NULL,
            value DOUBLE PRECISION NOT NULL,
            app_id BIGINT NOT NULL REFERENCES app (id),
            app_version TEXT NOT NULL,
            device_id BIGINT REFERENCES device (id),
            zone TEXT,
            sync_id TEXT,
            sync_version BIGINT NOT NULL DEFAULT 0,
            user_entered BIGINT NOT NULL DEFAULT 0,
            metadata TEXT,
            CHECK (end_us >= start_us)
        );
        CREATE UNIQUE INDEX sample_by_uuid ON sample (uuid);
        CREATE INDEX sample_by_type_time ON sample (type_id, start_us, end_us, app_id, value);
        CREATE UNIQUE INDEX sample_by_sync_id ON sample (app_id, type_id, sync_id) WHERE sync_id IS NOT NULL;

        CREATE TABLE tombstone (
            anchor BIGINT PRIMARY KEY,
            uuid BYTEA NOT NULL,
            type_id BIGINT NOT NULL REFERENCES sample_type (id),
            app_id BIGINT NOT NULL REFERENCES app (id)
        );

        CREATE TABLE change_counter (
            id BIGINT PRIMARY KEY CHECK (id = 1),
            anchor BIGINT NOT NULL
        );
        INSERT INTO change_counter (id, anchor) VALUES (1, 0);

        CREATE TABLE "authorization" (
            app_id BIGINT NOT NULL REFERENCES app (id),
            type TEXT NOT NULL,
            can_read BIGINT,
            can_write BIGINT,
            PRIMARY KEY (app_id, type)
        );

        CREATE TABLE source_priority (
            type_id BIGINT NOT NULL REFERENCES sample_type (id),
            app_id BIGINT NOT NULL REFERENCES app (id),
            rank BIGINT NOT NULL,
            PRIMARY KEY (type_id, app_id)
        );

        CREATE TABLE app_state (
            app_id BIGINT NOT NULL REFERENCES app (id),
            key TEXT NOT NULL,
            value TEXT NOT NULL,
            PRIMARY KEY (app_id, key)
        );

        CREATE TABLE characteristic (
            key TEXT PRIMARY KEY,
            value TEXT NOT NULL
        );

        CREATE TABLE workout (
            anchor BIGINT PRIMARY KEY,
            uuid BYTEA NOT NULL UNIQUE,
            activity TEXT NOT NULL,
            start_us BIGINT NOT NULL,
            end_us BIGINT NOT NULL,
            energy_kcal DOUBLE PRECISION,
            distance_m DOUBLE PRECISION,
            app_id BIGINT NOT NULL REFERENCES app (id),
            app_version TEXT NOT NULL,
            device_id BIGINT REFERENCES device (id),
            metadata TEXT,
            CHECK (end_us >= start_us)
        );
        CREATE INDEX workout_by_time ON workout (start_us);
        """)

    /// Merged sums of cumulative types per UTC hour, kept current at every commit for the hours
    /// the commit touched, so that long-range statistics read one row per hour instead of every
    /// sample. `merged_hour_state.complete = 0` makes the next open rebuild them from the samples.
    static let mergedHours = Migration(name: "2026-11-30-merged-hours", sql: """
        CREATE TABLE merged_hour (
            type_id INTEGER NOT NULL REFERENCES sample_type (id),
            hour_us INTEGER NOT NULL,
            value REAL NOT NULL,
            PRIMARY KEY (type_id, hour_us)
        ) STRICT, WITHOUT ROWID;

        CREATE TABLE merged_hour_state (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            complete INTEGER NOT NULL
        ) STRICT;
        INSERT INTO merged_hour_state (id, complete) VALUES (1, 0);
        """, postgresql: """
        CREATE TABLE merged_hour (
            type_id BIGINT NOT NULL REFERENCES sample_type (id),
            hour_us BIGINT NOT NULL,
            value DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (type_id, hour_us)
        );

        CREATE TABLE merged_hour_state (
            id BIGINT PRIMARY KEY CHECK (id = 1),
            complete BIGINT NOT NULL
        );
        INSERT INTO merged_hour_state (id, complete) VALUES (1, 0);
        """)

    /// Several people in one store (docs/architecture.md, "People"). Every existing row belongs
    /// to the default person (id 1, named "default" until renamed), so a store written before keeps
    /// every sample, workout, grant and hourly total, and statistics read the same.
    ///
    /// Samples, tombstones and workouts gain `person_id` as a column with a constant default:
    /// SQLite and PostgreSQL add such a column without rewriting the table, so the migration of a
    /// year of minute data costs the two index rebuilds, not a copy. The default exists for those
    /// old rows; every insert binds the person explicitly. There is no foreign key on these added
    /// columns (SQLite refuses `REFERENCES` on an added column with a non-NULL default while
    /// foreign keys are on); people are never deleted, so no row can point nowhere.
    ///
    /// The person leads the statistics index and joins the sync-identifier key: two people's
    /// bands may use the same sync identifiers and still store two rows. Hourly totals, grants and
    /// characteristics change their primary keys, so SQLite copies those small tables (its
    /// `WITHOUT ROWID` keys cannot be altered); PostgreSQL alters them in place.
    static let people = Migration(name: "2026-12-02-people", sql: """
        CREATE TABLE person (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            created_us INTEGER NOT NULL
        ) STRICT;
        INSERT INTO person (id, name, created_us) VALUES (1, 'default', CAST((julianday('now') - 2440587.5) * 86400000000.0 AS INTEGER));

        ALTER TABLE sample ADD COLUMN person_id INTEGER NOT NULL DEFAULT 1;
        DROP INDEX sample_by_type_time;
        CREATE INDEX sample_by_type_time ON sample (person_id, type_id, start_us, end_us, app_id, value);
        DROP INDEX sample_by_sync_id;
        CREATE UNIQUE INDEX sample_by_sync_id ON sample (person_id, app_id, type_id, sync_id) WHERE sync_id IS NOT NULL;

        ALTER TABLE tombstone ADD COLUMN person_id INTEGER NOT NULL DEFAULT 1;

        ALTER TABLE workout ADD COLUMN person_id INTEGER NOT NULL DEFAULT 1;
        DROP INDEX workout_by_time;
        CREATE INDEX workout_by_time ON workout (person_id, start_us);

        CREATE TABLE merged_hour_by_person (
            person_id INTEGER NOT NULL REFERENCES person (id),
            type_id INTEGER NOT NULL REFERENCES sample_type (id),
            hour_us INTEGER NOT NULL,
            value REAL NOT NULL,
            PRIMARY KEY (person_id, type_id, hour_us)
        ) STRICT, WITHOUT ROWID;
        INSERT INTO merged_hour_by_person (person_id, type_id, hour_us, value) SELECT 1, type_id, hour_us, value FROM merged_hour;
        DROP TABLE merged_hour;
        ALTER TABLE merged_hour_by_person RENAME TO merged_hour;

        -- Grants are per app, person and type: an app granted for one person reads nothing of another.
        CREATE TABLE authorization_by_person (
            app_id INTEGER NOT NULL REFERENCES app (id),
            person_id INTEGER NOT NULL REFERENCES person (id),
            type TEXT NOT NULL,
            can_read INTEGER,
            can_write INTEGER,
            PRIMARY KEY (app_id, person_id, type)
        ) STRICT, WITHOUT ROWID;
        INSERT INTO authorization_by_person (app_id, person_id, type, can_read, can_write)
            SELECT app_id, 1, type, can_read, can_write FROM authorization;
        DROP TABLE authorization;
        ALTER TABLE authorization_by_person RENAME TO authorization;

        CREATE TABLE characteristic_by_person (
            person_id INTEGER NOT NULL REFERENCES person (id),
            key TEXT NOT NULL,
            value TEXT NOT NULL,
            PRIMARY KEY (person_id, key)
        ) STRICT, WITHOUT ROWID;
        INSERT INTO characteristic_by_person (person_id, key, value) SELECT 1, key, value FROM characteristic;
        DROP TABLE characteristic;
        ALTER TABLE characteristic_by_person RENAME TO characteristic;
        """, postgresql: """
        CREATE TABLE person (
            id BIGINT GENERATED BY DEFAULT AS IDENTITY (START WITH 2) PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            created_us BIGINT NOT NULL
        );
        INSERT INTO person (id, name, created_us) VALUES (1, 'default', (extract(epoch FROM clock_timestamp()) * 1000000)::BIGINT);

        ALTER TABLE sample ADD COLUMN person_id BIGINT NOT NULL DEFAULT 1;
        DROP INDEX sample_by_type_time;
        CREATE INDEX sample_by_type_time ON sample (person_id, type_id, start_us, end_us, app_id, value);
        DROP INDEX sample_by_sync_id;
        CREATE UNIQUE INDEX sample_by_sync_id ON sample (person_id, app_id, type_id, sync_id) WHERE sync_id IS NOT NULL;

        ALTER TABLE tombstone ADD COLUMN person_id BIGINT NOT NULL DEFAULT 1;

        ALTER TABLE workout ADD COLUMN person_id BIGINT NOT NULL DEFAULT 1;
        DROP INDEX workout_by_time;
        CREATE INDEX workout_by_time ON workout (person_id, start_us);

        ALTER TABLE merged_hour ADD COLUMN person_id BIGINT NOT NULL DEFAULT 1 REFERENCES person (id);
        ALTER TABLE merged_hour DROP CONSTRAINT merged_hour_pkey;
        ALTER TABLE merged_hour ADD PRIMARY KEY (person_id, type_id, hour_us);

        ALTER TABLE "authorization" ADD COLUMN person_id BIGINT NOT NULL DEFAULT 1 REFERENCES person (id);
        ALTER TABLE "authorization" DROP CONSTRAINT authorization_pkey;
        ALTER TABLE "authorization" ADD PRIMARY KEY (app_id, person_id, type);

        ALTER TABLE characteristic ADD COLUMN person_id BIGINT NOT NULL DEFAULT 1 REFERENCES person (id);
        ALTER TABLE characteristic DROP CONSTRAINT characteristic_pkey;
        ALTER TABLE characteristic ADD PRIMARY KEY (person_id, key);
        """)

    /// Laps and track points of workouts (imported from FIT files, exported as GPX, TCX and FIT).
    /// Rows belong to their workout: deleting it deletes them. Points are numbered in time order
    /// within their workout, so two records of the same second both stay.
    static let workoutTracks = Migration(name: "2026-12-07-workout-tracks", sql: """
        CREATE TABLE workout_lap (
            workout_uuid BLOB NOT NULL REFERENCES workout (uuid) ON DELETE CASCADE,
            lap_index INTEGER NOT NULL,
            start_us INTEGER NOT NULL,
            end_us INTEGER NOT NULL,
            distance_m REAL,
            energy_kcal REAL,
            hr_avg REAL,
            hr_max REAL,
            cadence_avg REAL,
            cadence_max REAL,
            PRIMARY KEY (workout_uuid, lap_index),
            CHECK (end_us >= start_us)
        ) STRICT, WITHOUT ROWID;

        CREATE TABLE workout_track_point (
            workout_uuid BLOB NOT NULL REFERENCES workout (uuid) ON DELETE CASCADE,
            point_index INTEGER NOT NULL,
            time_us INTEGER NOT NULL,
            latitude REAL,
            longitude REAL,
            altitude_m REAL,
            heart_rate REAL,
            cadence REAL,
            distance_m REAL,
            speed_mps REAL,
            PRIMARY KEY (workout_uuid, point_index)
        ) STRICT, WITHOUT ROWID;
        """, postgresql: """
        CREATE TABLE workout_lap (
            workout_uuid BYTEA NOT NULL REFERENCES workout (uuid) ON DELETE CASCADE,
            lap_index BIGINT NOT NULL,
            start_us BIGINT NOT NULL,
            end_us BIGINT NOT NULL,
            distance_m DOUBLE PRECISION,
            energy_kcal DOUBLE PRECISION,
            hr_avg DOUBLE PRECISION,
            hr_max DOUBLE PRECISION,
            cadence_avg DOUBLE PRECISION,
            cadence_max DOUBLE PRECISION,
            PRIMARY KEY (workout_uuid, lap_index),
            CHECK (end_us >= start_us)
        );

        CREATE TABLE workout_track_point (
            workout_uuid BYTEA NOT NULL REFERENCES workout (uuid) ON DELETE CASCADE,
            point_index BIGINT NOT NULL,
            time_us BIGINT NOT NULL,
            latitude DOUBLE PRECISION,
            longitude DOUBLE PRECISION,
            altitude_m DOUBLE PRECISION,
            heart_rate DOUBLE PRECISION,
            cadence DOUBLE PRECISION,
            distance_m DOUBLE PRECISION,
            speed_mps DOUBLE PRECISION,
            PRIMARY KEY (workout_uuid, point_index)
        );
        """)

    /// Each person's change-feed horizon, so that writers of different people can commit in
    /// parallel (``WriteTransaction``'s comment argues the rule). `person_anchor` holds the
    /// anchor of each person's newest committed change; every person starts at the store's
    /// counter, so an anchor handed out before stays valid. On PostgreSQL, anchors come from the
    /// sequence `anchor_block`, a block of 1,024 per call, starting past every anchor handed out.
    static let personAnchors = Migration(name: "2026-12-07-person-anchors", sql: """
        CREATE TABLE person_anchor (
            person_id INTEGER PRIMARY KEY REFERENCES person (id),
            anchor INTEGER NOT NULL
        ) STRICT;
        INSERT INTO person_anchor (person_id, anchor) SELECT id, (SELECT anchor FROM change_counter WHERE id = 1) FROM person;
        """, postgresql: """
        CREATE TABLE person_anchor (
            person_id BIGINT PRIMARY KEY REFERENCES person (id),
            anchor BIGINT NOT NULL
        );
        INSERT INTO person_anchor (person_id, anchor) SELECT id, (SELECT anchor FROM change_counter WHERE id = 1) FROM person;
        CREATE SEQUENCE anchor_block INCREMENT BY 1024 MINVALUE 0;
        SELECT setval('anchor_block', (SELECT anchor FROM change_counter WHERE id = 1), false);
        """)
}
