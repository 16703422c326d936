import HealthTestSupport
import Foundation
import Testing

/// `health import` of Gadgetbridge databases, built here from the schema Gadgetbridge's greenDAO
/// generator writes (an older file without aliases and workouts, a current one with both); no
/// real person's export is ever committed.
@Suite struct GadgetbridgeImportTests {
    let temp: TemporaryStore
    let health: HealthCommand

    init() throws {
        temp = try TemporaryStore()
        health = HealthCommand(store: temp.path)
    }

    /// 2024-06-01T00:00:00Z in Unix seconds.
    static let t0 = 1_717_200_000

    static func sampleTable(_ name: String, intensity: Bool = true) -> String {
        """
        CREATE TABLE "\(name)" ("TIMESTAMP" INTEGER NOT NULL ,"DEVICE_ID" INTEGER NOT NULL ,"USER_ID" INTEGER NOT NULL ,\
        \(intensity ? "\"RAW_INTENSITY\" INTEGER NOT NULL ," : "")"STEPS" INTEGER NOT NULL ,"RAW_KIND" INTEGER NOT NULL ,\
        "HEART_RATE" INTEGER NOT NULL ,PRIMARY KEY ("TIMESTAMP" ,"DEVICE_ID") ON CONFLICT REPLACE) WITHOUT ROWID;

        """
    }

    /// An early schema (Gadgetbridge 0.1x): DEVICE with TYPE keys and no ALIAS, no workouts.
    static let oldSchema = """
        CREATE TABLE android_metadata (locale TEXT);
        CREATE TABLE "USER" ("_id" INTEGER PRIMARY KEY AUTOINCREMENT ,"NAME" TEXT NOT NULL ,"BIRTHDAY" INTEGER NOT NULL ,"GENDER" INTEGER NOT NULL );
        CREATE TABLE "DEVICE" ("_id" INTEGER PRIMARY KEY AUTOINCREMENT ,"NAME" TEXT NOT NULL ,"MANUFACTURER" TEXT NOT NULL ,\
        "IDENTIFIER" TEXT NOT NULL UNIQUE ,"TYPE" INTEGER NOT NULL ,"MODEL" TEXT);
        CREATE TABLE "PEBBLE_MISFIT_SAMPLE" ("TIMESTAMP" INTEGER NOT NULL ,"DEVICE_ID" INTEGER NOT NULL ,"USER_ID" INTEGER NOT NULL ,\
        "RAW_PEBBLE_MISFIT_SAMPLE" INTEGER NOT NULL ,PRIMARY KEY ("TIMESTAMP" ,"DEVICE_ID") ON CONFLICT REPLACE) WITHOUT ROWID;

        """ + sampleTable("MI_BAND_ACTIVITY_SAMPLE")

    /// A current schema: DEVICE with ALIAS and TYPE_NAME, PineTime and Bangle.js tables,
    /// BASE_ACTIVITY_SUMMARY, and tables BandKit has no use for.
    static let currentSchema = """
        CREATE TABLE android_metadata (locale TEXT);
        CREATE TABLE "USER" ("_id" INTEGER PRIMARY KEY AUTOINCREMENT ,"NAME" TEXT NOT NULL ,"BIRTHDAY" INTEGER NOT NULL ,"GENDER" INTEGER NOT NULL );
        CREATE TABLE "DEVICE" ("_id" INTEGER PRIMARY KEY AUTOINCREMENT ,"NAME" TEXT NOT NULL ,"MANUFACTURER" TEXT NOT NULL ,\
        "IDENTIFIER" TEXT NOT NULL UNIQUE ,"TYPE" INTEGER NOT NULL ,"TYPE_NAME" TEXT,"MODEL" TEXT,"ALIAS" TEXT,"PARENT_FOLDER" TEXT);
        CREATE TABLE "ALARM" ("DEVICE_ID" INTEGER NOT NULL ,"USER_ID" INTEGER NOT NULL ,"POSITION" INTEGER NOT NULL ,"ENABLED" INTEGER NOT NULL);
        CREATE TABLE "BASE_ACTIVITY_SUMMARY" ("_id" INTEGER PRIMARY KEY AUTOINCREMENT ,"NAME" TEXT,"START_TIME" INTEGER NOT NULL ,\
        "END_TIME" INTEGER NOT NULL ,"ACTIVITY_KIND" INTEGER NOT NULL ,"BASE_LONGITUDE" INTEGER,"BASE_LATITUDE" INTEGER,\
        "BASE_ALTITUDE" INTEGER,"GPX_TRACK" TEXT,"RAW_DETAILS_PATH" TEXT,"DEVICE_ID" INTEGER NOT NULL ,"USER_ID" INTEGER NOT NULL ,\
        "SUMMARY_DATA" TEXT,"RAW_SUMMARY_DATA" BLOB);

        """ + sampleTable("PINE_TIME_ACTIVITY_SAMPLE") + sampleTable("BANGLE_JSACTIVITY_SAMPLE", intensity: false)

    /// Writes an SQLite database from `sql` with Python's sqlite3 (an independent writer).
    func database(_ sql: String, _ name: String) throws -> String {
        let path = temp.directory + "/" + name
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.executescript(sys.stdin.read()); c.commit()", path]
        let input = Pipe()
        process.standardInput = input
        try process.run()
        input.fileHandleForWriting.write(Data(sql.utf8))
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "python3 could not write \(name)")
        return path
    }

    /// (TIMESTAMP, DEVICE_ID, STEPS, RAW_KIND, HEART_RATE) rows as INSERTs.
    static func rows(_ table: String, intensity: Bool = true, _ rows: [(Int, Int, Int, Int, Int)]) -> String {
        rows.map { row in
            let (timestamp, device, steps, kind, heartRate) = row
            return "INSERT INTO \"\(table)\" (TIMESTAMP, DEVICE_ID, USER_ID, \(intensity ? "RAW_INTENSITY, " : "")STEPS, RAW_KIND, HEART_RATE) "
                + "VALUES (\(timestamp), \(device), 1, \(intensity ? "20, " : "")\(steps), \(kind), \(heartRate));\n"
        }.joined()
    }

    /// The store's samples and workouts as `health export` lines, parsed.
    func exported() throws -> [[String: Any]] {
        let result = try health.run("export")
        #expect(result.code == 0, "\(result.error)")
        return try result.output.split(separator: "\n").map {
            try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    /// A Mi Band 2 night: Huami kinds 9 light and 11 deep (high bits set on one), 0 and 10 carrying
    /// the minute before, heart rate 255 and 0 as no reading.
    static let miBand2 = oldSchema + """
        INSERT INTO USER VALUES (1, 'me', 0, 1);
        INSERT INTO DEVICE VALUES (1, 'MI Band 2', 'Huami', 'C8:0F:10:AA:BB:01', 11, '');

        """ + rows("MI_BAND_ACTIVITY_SAMPLE", [
            (t0, 1, 30, 1, 72), (t0 + 60, 1, 0, 0x79, 255), (t0 + 120, 1, 0, 0, 0), (t0 + 180, 1, 0, 11, 58),
            (t0 + 240, 1, 0, 10, 255), (t0 + 300, 1, 12, 1, 255),
        ]) + "INSERT INTO PEBBLE_MISFIT_SAMPLE VALUES (\(t0), 1, 1, 5);\n"

    @Test func anOldMiBand2FileGivesStepsHeartRateAndSleepAndASecondImportAddsNothing() throws {
        let path = try database(Self.miBand2, "Gadgetbridge")
        let first = try health.run("import", path)
        #expect(first.code == 0, "\(first.error)")
        #expect(first.output.contains("imported 6 samples"), "\(first.output)")
        #expect(first.output.contains("MI_BAND_ACTIVITY_SAMPLE: 6 rows → 2 step, 2 heart-rate, 2 sleep samples"), "\(first.output)")
        #expect(first.output.contains("skipped table PEBBLE_MISFIT_SAMPLE (1 rows)"), "\(first.output)")
        #expect(first.output.contains("MI Band 2 (C8:0F:10:AA:BB:01) as gadgetbridge.mi-band-2-bb01"), "\(first.output)")
        let samples = try exported()
        #expect(samples.count == 6)
        let steps = samples.filter { $0["type"] as? String == "step-count" }.compactMap { $0["value"] as? Double }.sorted()
        #expect(steps == [12, 30])
        let heartRates = samples.filter { $0["type"] as? String == "heart-rate" }.compactMap { $0["value"] as? Double }.sorted()
        #expect(heartRates == [58, 72])
        let sleep = samples.filter { $0["type"] as? String == "sleep-analysis" }
            .map { "\($0["value"] ?? "") \($0["start"] ?? "") \($0["end"] ?? "")" }.sorted()
        #expect(sleep.count == 2)
        #expect(sleep.contains { $0.contains("2024-06-01T00:01:00") && $0.contains("2024-06-01T00:03:00") }, "\(sleep)")
        #expect(sleep.contains { $0.contains("2024-06-01T00:03:00") && $0.contains("2024-06-01T00:05:00") }, "\(sleep)")
        #expect(samples.allSatisfy { ($0["source"] as? String) == "gadgetbridge.mi-band-2-bb01" })
        let again = try health.run("import", path)
        #expect(again.code == 0, "\(again.error)")
        #expect(again.output.contains("imported 0 samples"), "\(again.output)")
        #expect(again.output.contains("6 already stored"), "\(again.output)")
        #expect(try exported().count == 6)
    }

    static let current = currentSchema + """
        INSERT INTO USER VALUES (1, 'me', 0, 1);
        INSERT INTO DEVICE VALUES (1, 'InfiniTime', 'Pine64', 'E5:00:00:00:12:34', 180, 'PINETIME_JF', '', 'My PineTime', NULL);
        INSERT INTO DEVICE VALUES (2, 'Bangle.js 2', 'Espruino', 'F0:00:00:00:56:78', 210, 'BANGLEJS', '', NULL, NULL);
        INSERT INTO ALARM VALUES (1, 1, 0, 1);
        INSERT INTO BASE_ACTIVITY_SUMMARY (NAME, START_TIME, END_TIME, ACTIVITY_KIND, DEVICE_ID, USER_ID)
          VALUES ('Morning run', \(t0 + 3600)000, \(t0 + 5400)000, 16, 1, 1);
        INSERT INTO BASE_ACTIVITY_SUMMARY (NAME, START_TIME, END_TIME, ACTIVITY_KIND, DEVICE_ID, USER_ID)
          VALUES ('seconds', \(t0 + 7200), \(t0 + 7300), 32, 1, 1);

        """ + rows("PINE_TIME_ACTIVITY_SAMPLE", [(t0, 1, 50, 1, 80), (t0 + 60, 1, 0, 2, 0), (t0 + 120, 1, 0, 4, 0)])
        + rows("BANGLE_JSACTIVITY_SAMPLE", intensity: false, [(t0, 2, 20, 3, 255), (t0 + 60, 2, 25, 3, 90)])

    @Test func aCurrentFileGivesEveryDeviceAndWorkoutsAndDeviceTakesOne() throws {
        let path = try database(Self.current, "backup.db")
        let result = try health.run("import", path)
        #expect(result.code == 0, "\(result.error)")
        #expect(result.output.contains("PINE_TIME_ACTIVITY_SAMPLE: 3 rows → 1 step, 1 heart-rate, 2 sleep samples"), "\(result.output)")
        // Bangle.js RAW_KIND has no documented meaning here: steps and heart rate only.
        #expect(result.output.contains("BANGLE_JSACTIVITY_SAMPLE: 2 rows → 2 step, 1 heart-rate, 0 sleep samples"), "\(result.output)")
        #expect(result.output.contains("BASE_ACTIVITY_SUMMARY: 2 rows → 1 workouts; skipped 1 (1 start or end in seconds, not milliseconds)"), "\(result.output)")
        #expect(result.output.contains("skipped table ALARM (1 rows)"), "\(result.output)")
        #expect(result.output.contains("My PineTime (E5:00:00:00:12:34) as gadgetbridge.my-pinetime-1234"), "\(result.output)")
        let workouts = try exported().filter { $0["activity"] != nil }
        #expect(workouts.count == 1)
        #expect(workouts.first?["activity"] as? String == "running", "\(workouts)")
        #expect(workouts.first?["start"] as? String == "2024-06-01T01:00:00Z", "\(workouts)")
        let again = try health.run("import", path)
        #expect(again.output.contains("0 workouts (1 already stored)"), "\(again.output)")

        let other = try TemporaryStore()
        let one = try HealthCommand(store: other.path).run("import", path, "--device", "bangle.js 2")
        #expect(one.code == 0, "\(one.error)")
        #expect(one.output.contains("1 devices: Bangle.js 2"), "\(one.output)")
        #expect(one.output.contains("PINE_TIME_ACTIVITY_SAMPLE: 0 rows"), "\(one.output)")
        #expect(one.output.contains("imported 3 samples"), "\(one.output)")
        let unknown = try HealthCommand(store: other.path).run("import", path, "--device", "Mi Band 9")
        #expect(unknown.code == 64)
        #expect(unknown.error.contains("'My PineTime' (E5:00:00:00:12:34)"), "\(unknown.error)")
    }

    /// The first greenDAO schema (2016): no HEART_RATE column yet, lower-case column names as a
    /// hand-made file may have them. Steps and Mi Band 1 sleep (device type 10: 4 light, 5 deep).
    @Test func theEarliestSchemaWithoutHeartRateGivesStepsAndMiBand1Sleep() throws {
        let path = try database("""
            CREATE TABLE "DEVICE" ("_id" INTEGER PRIMARY KEY AUTOINCREMENT ,"name" TEXT NOT NULL ,"manufacturer" TEXT NOT NULL ,\
            "identifier" TEXT NOT NULL UNIQUE ,"type" INTEGER NOT NULL ,"model" TEXT);
            CREATE TABLE "MI_BAND_ACTIVITY_SAMPLE" ("timestamp" INTEGER NOT NULL ,"device_id" INTEGER NOT NULL ,\
            "user_id" INTEGER NOT NULL ,"raw_intensity" INTEGER NOT NULL ,"steps" INTEGER NOT NULL ,"raw_kind" INTEGER NOT NULL ,\
            PRIMARY KEY ("timestamp" ,"device_id") ON CONFLICT REPLACE) WITHOUT ROWID;
            INSERT INTO DEVICE VALUES (1, 'MI', 'Xiaomi', '88:0F:10:00:00:07', 10, '5.15.7.14');
            INSERT INTO MI_BAND_ACTIVITY_SAMPLE VALUES (\(Self.t0), 1, 1, 30, 0, 4), (\(Self.t0 + 60), 1, 1, 30, 0, 5),
              (\(Self.t0 + 120), 1, 1, 30, 44, -1);
            """, "Gadgetbridge")
        let result = try health.run("import", path)
        #expect(result.code == 0, "\(result.error)")
        #expect(result.output.contains("MI_BAND_ACTIVITY_SAMPLE: 3 rows → 1 step, 0 heart-rate, 2 sleep samples"), "\(result.output)")
        #expect(result.output.contains("0 users"), "\(result.output)")
        let sleep = try exported().filter { $0["type"] as? String == "sleep-analysis" }
        #expect(sleep.count == 2)
    }

    @Test func garbageRowsAreCountedAndSkippedNeverStored() throws {
        let path = try database(Self.oldSchema + """
            INSERT INTO DEVICE VALUES (1, 'MI Band 2', 'Huami', 'C8:0F:10:AA:BB:01', 11, '');

            """ + Self.rows("MI_BAND_ACTIVITY_SAMPLE", [
                (Self.t0, 1, 10, 1, 70),
                (Self.t0 + 60, 1, -5, 1, 70),                  // negative steps
                (Self.t0 * 1000 + 120_000, 1, 10, 1, 70),      // milliseconds
                (4_000_000_000, 1, 10, 1, 70),                 // 2096: far future
                (Self.t0 + 180, 1, 10, 1, 300),                // no heart beats 300 a minute
                (Self.t0 + 240, 1, 5000, 1, 70),               // 5000 steps in a minute
                (12, 1, 10, 1, 70),                            // an unset clock
                (Self.t0 + 300, 9, 10, 1, 70),                 // a device the file does not have
            ]), "garbage.db")
        let result = try health.run("import", path)
        #expect(result.code == 0, "\(result.error)")
        for expected in ["MI_BAND_ACTIVITY_SAMPLE: 8 rows → 1 step, 1 heart-rate, 0 sleep samples; skipped 7",
                         "1 negative steps", "1 timestamp in milliseconds", "1 timestamp in the future",
                         "1 heart rate outside 20…250", "1 more than 1000 steps in a minute", "1 timestamp before 2000",
                         "1 DEVICE_ID of no device", "skipped 7 bad rows"] {
            #expect(result.output.contains(expected), "\(expected) in \(result.output)")
        }
        #expect(try exported().count == 2)
    }

    @Test func anSQLiteFileThatIsNotGadgetbridgeAndADamagedOneAreExit65() throws {
        let other = try database("CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('x');", "notes.db")
        let notGadgetbridge = try health.run("import", other)
        #expect(notGadgetbridge.code == 65)
        #expect(notGadgetbridge.error.contains("no DEVICE table"), "\(notGadgetbridge.error)")

        // The second half overwritten: the sample table's later pages cannot be read.
        let path = try database(Self.miBand2 + Self.rows("MI_BAND_ACTIVITY_SAMPLE", (0..<2000).map {
            (Self.t0 + 3600 + 60 * $0, 1, 10, 1, 70)
        }), "damaged.db")
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        for index in stride(from: bytes.count / 2, to: bytes.count, by: 1) { bytes[index] = 0xA5 }
        try bytes.write(to: URL(fileURLWithPath: path))
        let damaged = try health.run("import", path)
        #expect(damaged.code == 65, "\(damaged.output) \(damaged.error)")
        #expect(damaged.error.contains("nothing was imported"), "\(damaged.error)")
        #expect(try exported().isEmpty)
    }

    @Test func deviceIsRefusedForFilesThatAreNotGadgetbridge() throws {
        let path = temp.directory + "/samples.ndjson"
        try Data().write(to: URL(fileURLWithPath: path))
        let result = try health.run("import", path, "--device", "x")
        #expect(result.code == 64, "\(result.error)")
    }
}
