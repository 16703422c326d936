/// Reading a SQLite store written before people existed without migrating it: a read-only
/// open (a store on read-only media, or any reading command) may not add the `person_id`
/// columns the queries filter on, so temporary views named like the tables add them instead.
///
/// Unqualified names resolve to the `temp` schema first, so every query of the store reads
/// `sample`, `workout`, … through a view whose `person_id` is the default person's 1 and whose
/// `person` holds only that person. Each view flattens into its table: statistics still scan
/// `sample_by_type_time` (then `(type_id, start_us, …)`), only without the `INDEXED BY` hint,
/// which SQLite allows on tables alone (``SQLiteEngine/dropsIndexHints``). Nothing is written to
/// the file; the views live in the connection's in-memory temporary schema.
///
/// PostgreSQL has no such path: a read-only session may not create even temporary views, so a
/// PostgreSQL store lacking the migration still asks for one command that writes.
enum PeopleBeforeMigration {
    static let views = """
        CREATE TEMP VIEW person (id, name, created_us) AS SELECT 1, 'default', 0;
        CREATE TEMP VIEW sample AS SELECT *, 1 AS person_id FROM main.sample;
        CREATE TEMP VIEW tombstone AS SELECT *, 1 AS person_id FROM main.tombstone;
        CREATE TEMP VIEW workout AS SELECT *, 1 AS person_id FROM main.workout;
        CREATE TEMP VIEW merged_hour AS SELECT *, 1 AS person_id FROM main.merged_hour;
        CREATE TEMP VIEW "authorization" AS SELECT *, 1 AS person_id FROM main."authorization";
        CREATE TEMP VIEW characteristic AS SELECT *, 1 AS person_id FROM main.characteristic;
        """

    static func createViews(_ connection: Connection) throws(HealthStoreError) {
        guard let engine = connection.engine as? SQLiteEngine else {
            throw .file(path: "", reason: "lacks the migration \(Migration.people.name)")
        }
        try connection.execute(views).get()
        engine.dropsIndexHints = true
    }
}
