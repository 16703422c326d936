import Foundation
import HealthModel
import HealthStore

/// What a Gadgetbridge database holds, found by table and column names (greenDAO's
/// upper-snake-case spelling of Gadgetbridge's entity properties), so that any schema version
/// with the same names imports: its devices, how many users, the activity-sample tables that
/// share the minute layout, the workout summaries, and every other table, counted, as skipped.
struct GadgetbridgeSchema {
    struct NotGadgetbridge: Error { var reason: String }

    struct SampleTable {
        var name: String
        /// TIMESTAMP, STEPS, HEART_RATE, RAW_KIND (NULL where the table has no such column) of one DEVICE_ID, in time order.
        var select: String
        /// How many rows belong to no device of the DEVICE table.
        var orphans: String
    }

    struct WorkoutTable {
        var name: String
        /// START_TIME, END_TIME, ACTIVITY_KIND, NAME of one DEVICE_ID, in time order.
        var select: String
    }

    var devices: [GadgetbridgeDevice] = []
    var users = 0
    var sampleTables: [SampleTable] = []
    var workoutTable: WorkoutTable?
    var skippedTables: [(name: String, rows: Int, reason: String)] = []

    /// Tables that are read for what they describe, not imported or listed as skipped.
    private static let described: Set<String> = ["DEVICE", "USER", "DEVICE_ATTRIBUTES", "USER_ATTRIBUTES", "ANDROID_METADATA"]

    init(_ file: ForeignSQLiteFile) throws {
        let tables = try file.tableNames()
        guard let deviceTable = tables.first(where: { $0.uppercased() == "DEVICE" }) else {
            throw NotGadgetbridge(reason: "it has no DEVICE table")
        }
        let deviceColumns = Set(try file.columnNames(deviceTable))
        for required in ["_ID", "NAME", "IDENTIFIER"] where !deviceColumns.contains(required) {
            throw NotGadgetbridge(reason: "its DEVICE table has no \(required) column")
        }
        func column(_ name: String, in columns: Set<String>) -> String { columns.contains(name) ? name : "NULL" }
        let deviceSQL = "SELECT _ID, NAME, \(column("ALIAS", in: deviceColumns)), \(column("MANUFACTURER", in: deviceColumns)), "
            + "\(column("MODEL", in: deviceColumns)), IDENTIFIER, \(column("TYPE", in: deviceColumns)), "
            + "\(column("TYPE_NAME", in: deviceColumns)) FROM \(Self.quoted(deviceTable)) ORDER BY _ID"
        try file.forEachRow(deviceSQL) { row in
            // Newer Gadgetbridge names the device type (TYPE_NAME) where older files keep DeviceType's key.
            let type: Int64? = row.isInteger(6) ? row.int64(6) : (row.text(7) == "MIBAND" ? 10 : nil)
            devices.append(GadgetbridgeDevice(rowID: row.int64(0), name: row.text(1) ?? "", alias: row.text(2),
                                              manufacturer: row.text(3), model: row.text(4), identifier: row.text(5) ?? "",
                                              type: type))
        }
        if let userTable = tables.first(where: { $0.uppercased() == "USER" }) {
            try file.forEachRow("SELECT count(*) FROM \(Self.quoted(userTable))") { users = Int($0.int64(0)) }
        }
        for table in tables where !Self.described.contains(table.uppercased()) {
            let columns = Set(try file.columnNames(table))
            let quoted = Self.quoted(table)
            if table.uppercased() == "BASE_ACTIVITY_SUMMARY",
               columns.isSuperset(of: ["START_TIME", "END_TIME", "ACTIVITY_KIND", "DEVICE_ID"]) {
                workoutTable = WorkoutTable(name: table, select: """
                    SELECT START_TIME, END_TIME, ACTIVITY_KIND, \(column("NAME", in: columns)) FROM \(quoted)
                    WHERE DEVICE_ID = ? ORDER BY START_TIME
                    """)
            } else if columns.isSuperset(of: ["TIMESTAMP", "DEVICE_ID"]), columns.contains("STEPS") || columns.contains("HEART_RATE") {
                sampleTables.append(SampleTable(name: table, select: """
                    SELECT TIMESTAMP, \(column("STEPS", in: columns)), \(column("HEART_RATE", in: columns)), \
                    \(column("RAW_KIND", in: columns)) FROM \(quoted) WHERE DEVICE_ID = ? ORDER BY TIMESTAMP
                    """, orphans: "SELECT count(*) FROM \(quoted) WHERE DEVICE_ID NOT IN (SELECT _ID FROM \(Self.quoted(deviceTable)))"))
            } else {
                var rows = 0
                try file.forEachRow("SELECT count(*) FROM \(quoted)") { rows = Int($0.int64(0)) }
                let reason = table.uppercased().hasSuffix("_SAMPLE")
                    ? "no TIMESTAMP, DEVICE_ID and STEPS or HEART_RATE columns: not the minute layout"
                    : "not activity data BandKit keeps"
                skippedTables.append((table, rows, reason))
            }
        }
    }

    /// An SQL identifier in double quotes (a name from the file is never trusted as SQL).
    static func quoted(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
