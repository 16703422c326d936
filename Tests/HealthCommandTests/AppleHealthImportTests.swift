import HealthTestSupport
import Foundation
import HealthModel
import HealthStore
import Testing

/// `health import export.zip|export.xml` and `health export --format apple-health`, run as processes.
@Suite struct AppleHealthImportTests {
    let temp: TemporaryStore
    let health: HealthCommand

    init() throws {
        temp = try TemporaryStore()
        health = HealthCommand(store: temp.path)
    }

    static let prologue = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE HealthData [
        <!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary)*)>
        <!ATTLIST HealthData locale CDATA #REQUIRED>
        ]>
        <HealthData locale="en_US">
         <ExportDate value="2024-06-02 10:00:00 -0700"/>

        """

    static func record(_ type: String, _ value: String, unit: String? = "count", source: String = "Watch",
                       start: String = "2024-06-01 09:00:00 -0700", end: String = "2024-06-01 09:01:00 -0700", extra: String = "") -> String {
        " <Record type=\"\(type)\" sourceName=\"\(source)\"\(unit.map { " unit=\"\($0)\"" } ?? "") startDate=\"\(start)\" endDate=\"\(end)\" value=\"\(value)\"\(extra)/>\n"
    }

    /// Every element kind, with a named zone, a device, metadata, a correlation, a workout and Me.
    static let export = prologue + """
         <Me HKCharacteristicTypeIdentifierDateOfBirth="1985-03-02" HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexFemale" HKCharacteristicTypeIdentifierBloodType="HKBloodTypeABPositive"/>
         <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Anna’s iPhone" sourceVersion="17.5" device="&lt;&lt;HKDevice: 0x1&gt;, name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone14,5, software:17.5&gt;" unit="count" startDate="2024-06-01 09:00:00 +0200" endDate="2024-06-01 09:05:00 +0200" value="412">
          <MetadataEntry key="HKTimeZone" value="Europe/Berlin"/>
          <MetadataEntry key="note" value="a &amp; b &lt;c&gt; &quot;d&quot;"/>
         </Record>
         <Record type="HKQuantityTypeIdentifierActiveEnergyBurned" sourceName="Watch" sourceVersion="10.5" unit="Cal" startDate="2024-06-01 09:00:00 -0700" endDate="2024-06-01 09:05:00 -0700" value="12.5">
          <MetadataEntry key="HKMetadataKeySyncIdentifier" value="energy-1"/>
          <MetadataEntry key="HKMetadataKeySyncVersion" value="2"/>
          <MetadataEntry key="HKWasUserEntered" value="1"/>
         </Record>
        \(record("HKCategoryTypeIdentifierSleepAnalysis", "HKCategoryValueSleepAnalysisAsleepREM", unit: nil, start: "2024-06-01 01:00:00 -0700", end: "2024-06-01 02:30:00 -0700"))\
        \(record("HKCategoryTypeIdentifierAppleStandHour", "HKCategoryValueAppleStandHourStood", unit: nil, start: "2024-06-01 10:00:00 -0700", end: "2024-06-01 11:00:00 -0700"))\
         <Correlation type="HKCorrelationTypeIdentifierBloodPressure" sourceName="Omron" startDate="2024-06-01 08:00:00 -0700" endDate="2024-06-01 08:00:00 -0700">
        \(record("HKQuantityTypeIdentifierBloodPressureSystolic", "120", unit: "mmHg", source: "Omron", start: "2024-06-01 08:00:00 -0700", end: "2024-06-01 08:00:00 -0700"))\
        \(record("HKQuantityTypeIdentifierHeartRate", "61", unit: "count/min", source: "Omron", start: "2024-06-01 08:00:00 -0700", end: "2024-06-01 08:00:00 -0700"))\
         </Correlation>
         <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="30" durationUnit="min" sourceName="Watch" sourceVersion="10.5" startDate="2024-06-01 07:00:00 -0700" endDate="2024-06-01 07:30:00 -0700">
          <MetadataEntry key="HKIndoorWorkout" value="0"/>
          <WorkoutEvent type="HKWorkoutEventTypePause" date="2024-06-01 07:10:00 -0700"/>
          <WorkoutStatistics type="HKQuantityTypeIdentifierActiveEnergyBurned" startDate="2024-06-01 07:00:00 -0700" endDate="2024-06-01 07:30:00 -0700" sum="300" unit="kcal"/>
          <WorkoutStatistics type="HKQuantityTypeIdentifierDistanceWalkingRunning" startDate="2024-06-01 07:00:00 -0700" endDate="2024-06-01 07:30:00 -0700" sum="5.1" unit="km"/>
         </Workout>
         <ActivitySummary dateComponents="2024-06-01" activeEnergyBurned="500"/>
        </HealthData>

        """

    func write(_ text: String, _ name: String) throws -> String {
        let path = temp.directory + "/" + name
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Zips `members` (name → content) with Python's zipfile, DEFLATE.
    func zip(_ members: [String: String], _ name: String) throws -> String {
        let path = temp.directory + "/" + name
        var script = "import zipfile, sys\nz = zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED)\n"
        for (index, (member, content)) in members.sorted(by: { $0.key < $1.key }).enumerated() {
            let source = try write(content, "member-\(index)")
            script += "z.write(\(pythonString(source)), \(pythonString(member)))\n"
        }
        script += "z.close()\n"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, path]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return path
    }

    /// Zips one member with the given compression (`ZIP_STORED`, `ZIP_BZIP2`, …).
    func zip(member: String, content: String, compression: String, _ name: String) throws -> String {
        let path = temp.directory + "/" + name
        let source = try write(content, name + ".member")
        let script = "import zipfile, sys\nz = zipfile.ZipFile(sys.argv[1], 'w', zipfile.\(compression))\nz.write(\(pythonString(source)), \(pythonString(member)))\nz.close()\n"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, path]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return path
    }

    func pythonString(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "\\'") + "'" }

    func samplesJSON(_ store: String? = nil) throws -> [String] {
        let command = store.map(HealthCommand.init(store:)) ?? health
        let result = try command.run("export")
        #expect(result.code == 0, "\(result.error)")
        // Sample ids are the store's own; everything else must survive.
        return result.output.split(separator: "\n").map { String($0).replacing(/,"id":"[^"]*"/, with: "") }.sorted()
    }

    @Test func anExportXMLImportsEveryKindAndASecondImportAddsNothing() throws {
        let path = try write(Self.export, "export.xml")
        let first = try health.run("import", path)
        #expect(first.code == 0, "\(first.error)")
        #expect(first.output.contains("imported 5 records"))
        #expect(first.output.contains("1 workouts (0 already stored)"))
        #expect(first.output.contains("3 characteristics"))
        #expect(first.output.contains("skipped 1 HKQuantityTypeIdentifierBloodPressureSystolic"))
        #expect(first.output.contains("skipped 1 ActivitySummary"))
        let stored = try samplesJSON()
        #expect(stored.count == 6)  // five samples and the workout
        #expect(stored.contains { $0.contains(#""zone":"Europe/Berlin""#) && $0.contains(#""source":"Anna’s iPhone""#) })
        let second = try health.run("import", path)
        #expect(second.code == 0)
        #expect(second.output.contains("imported 0 records"))
        #expect(second.output.contains("5 already stored"))
        #expect(second.output.contains("0 workouts (1 already stored)"))
        #expect(try samplesJSON() == stored)
        let profile = try health.run("profile")
        #expect(profile.output.contains("blood-type: AB+"))
    }

    @Test func anExportZipIsReadFromItsAppleHealthExportFolder() throws {
        let path = try zip(["apple_health_export/export.xml": Self.export, "apple_health_export/export_cda.xml": "<cda/>"], "export.zip")
        let result = try health.run("import", path)
        #expect(result.code == 0, "\(result.error)")
        #expect(result.output.contains("imported 5 records"))
    }

    @Test func aRoundTripThroughExportKeepsEveryField() throws {
        #expect(try health.run("import", try write(Self.export, "export.xml")).code == 0)
        let exported = try health.run("export", "--format", "apple-health")
        #expect(exported.code == 0, "\(exported.error)")
        #expect(exported.output.hasPrefix("<?xml"))
        let other = TemporaryStoreCopy(directory: temp.directory)
        let again = try other.health.run("import", try write(exported.output, "again.xml"))
        #expect(again.code == 0, "\(again.error)")
        #expect(try samplesJSON(other.path) == samplesJSON())
        let workouts = try other.health.run("export", "--format", "apple-health", "--type", "workout")
        #expect(workouts.output.contains(#"<WorkoutEvent type="HKWorkoutEventTypePause" date="2024-06-01 07:10:00 -0700"/>"#))
        #expect(workouts.output.contains(#"sum="300" unit="kcal""#))
        #expect(workouts.output.contains(#"<MetadataEntry key="HKIndoorWorkout" value="0"/>"#))
        #expect(try other.health.run("profile").output == health.run("profile").output)
    }

    @Test func anUnknownUnitStopsTheImportNamingTheRecordAndNothingIsWritten() throws {
        #expect(try health.run("import", try write(Self.export, "export.xml")).code == 0)
        let before = try samplesJSON()
        let bad = Self.prologue + Self.record("HKQuantityTypeIdentifierStepCount", "5", start: "2024-07-01 09:00:00 -0700", end: "2024-07-01 09:01:00 -0700")
            + Self.record("HKQuantityTypeIdentifierBodyMass", "11", unit: "stone") + "</HealthData>\n"
        let result = try health.run("import", try write(bad, "bad.xml"))
        #expect(result.code == 65)
        #expect(result.error.contains("line 9, column 2: Record HKQuantityTypeIdentifierBodyMass: unknown unit 'stone'"))
        #expect(result.error.contains("nothing was imported"))
        #expect(try samplesJSON() == before)
    }

    @Test func malformedXMLAndOutOfRangeDatesAreExit65() throws {
        let malformed = try health.run("import", try write(Self.prologue + " <Record type=\"x\"\n</HealthData>", "broken.xml"))
        #expect(malformed.code == 65)
        #expect(malformed.error.contains("line 9, column 1: malformed XML"))
        let future = Self.prologue + Self.record("HKQuantityTypeIdentifierStepCount", "5", start: "2206-01-01 09:00:00 +0000", end: "2206-01-01 09:01:00 +0000") + "</HealthData>\n"
        let late = try health.run("import", try write(future, "future.xml"))
        #expect(late.code == 65)
        #expect(late.error.contains("outside 1900-01-01T00:00:00Z ..< 2100-01-01T00:00:00Z"))
        #expect(try samplesJSON().isEmpty)
    }

    @Test func aDamagedZipMemberIsExit65NamingTheMember() throws {
        let path = try zip(["apple_health_export/export.xml": Self.export + String(repeating: "<!-- padding -->\n", count: 200)], "export.zip")
        var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
        // Flip bytes in the middle of the compressed data (the local header is 30 + name bytes).
        for index in 200..<240 { bytes[index] ^= 0x5A }
        let damaged = try write("", "damaged.zip")
        try Data(bytes).write(to: URL(fileURLWithPath: damaged))
        let result = try health.run("import", damaged)
        #expect(result.code == 65)
        #expect(result.error.contains("member apple_health_export/export.xml"))
        #expect(result.error.contains("damaged"))
        #expect(try samplesJSON().isEmpty)
    }

    @Test func aTruncatedZipAndOneWithoutExportXMLAreExit65() throws {
        let path = try zip(["apple_health_export/export.xml": Self.export], "export.zip")
        let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
        let truncated = try write("", "truncated.zip")
        try Data(bytes[0..<(bytes.count / 2)]).write(to: URL(fileURLWithPath: truncated))
        let cut = try health.run("import", truncated)
        #expect(cut.code == 65)
        #expect(cut.error.contains("not a readable zip"))
        let other = try zip(["apple_health_export/export_cda.xml": "<cda/>"], "other.zip")
        let missing = try health.run("import", other)
        #expect(missing.code == 65)
        #expect(missing.error.contains("has no export.xml member (members: apple_health_export/export_cda.xml)"))
    }

    /// A ZIP64 export.zip (Tests/support/make-zip64.py) imports; one whose ZIP64 end record is
    /// damaged is exit 65 naming the record and its byte offset, and the store stays empty.
    @Test func aZip64ArchiveImportsAndADamagedZip64RecordIsExit65() throws {
        let member = try write(Self.export, "export64.member")
        let path = temp.directory + "/export64.zip"
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("support/make-zip64.py").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, path, member, "ZIP_DEFLATED"]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
        // ZIP64 end record (56 bytes), locator (20), end record (22) at the end of the file.
        let record = bytes.count - 22 - 20 - 56
        #expect(Array(bytes[record..<(record + 4)]) == [0x50, 0x4B, 0x06, 0x06])
        bytes[record] = 0x00
        let damaged = try write("", "damaged64.zip")
        try Data(bytes).write(to: URL(fileURLWithPath: damaged))
        let refused = try health.run("import", damaged)
        #expect(refused.code == 65)
        #expect(refused.error.contains("damaged64.zip"))
        #expect(refused.error.contains("no ZIP64 end record at byte \(record)"), "\(refused.error)")
        #expect(try samplesJSON().isEmpty)

        let result = try health.run("import", path)
        #expect(result.code == 0, "\(result.error)")
        #expect(result.output.contains("imported 5 records"))
    }

    @Test func aStoredMemberIsReadAndAnUnsupportedMethodIsExit65NamingIt() throws {
        let stored = try zip(member: "apple_health_export/export.xml", content: Self.export, compression: "ZIP_STORED", "stored.zip")
        let result = try health.run("import", stored)
        #expect(result.code == 0, "\(result.error)")
        #expect(result.output.contains("imported 5 records"))
        let bzip2 = try zip(member: "export.xml", content: Self.export, compression: "ZIP_BZIP2", "bzip2.zip")
        let refused = try health.run("import", bzip2)
        #expect(refused.code == 65)
        #expect(refused.error.contains("member export.xml: uses compression method 12"))
    }

    @Test func ndjsonStillImportsAndFormatChoosesForStandardInput() throws {
        let lines = minuteSteps(count: 3, source: "com.example.app")
        #expect(try health.run("import", try write(lines, "steps.ndjson")).output.contains("imported 3 samples"))
        let viaStdin = try health.run("import", "-", "--format", "apple-health", input: Self.export)
        #expect(viaStdin.code == 0, "\(viaStdin.error)")
        #expect(viaStdin.output.contains("imported 5 records"))
        let badFormat = try health.run("import", "-", "--format", "csv", input: "")
        #expect(badFormat.code == 64)
    }

    /// NDJSON goes to the store in batches (multi-row statements on PostgreSQL): the counts, the
    /// re-import's "unchanged", a workout between samples and a bad line's number are what
    /// importing line by line gives.
    @Test func aLargeNDJSONImportCountsAndNamesLinesAsOneByOne() throws {
        var lines = minuteSteps(count: 1_200, source: "com.example.app").split(separator: "\n").map(String.init)
        lines.insert(#"{"id":"0E3C5B1A-1D2F-4A55-9C61-2B7D8E9F0A11","type":"workout","activity":"running","start":"2026-11-30T05:00:00Z","end":"2026-11-30T05:30:00Z","source":"com.example.app"}"#,
                     at: 700)
        let file = try write(lines.joined(separator: "\n") + "\n", "minutes.ndjson")
        let first = try health.run("import", file)
        #expect(first.code == 0, "\(first.error)")
        #expect(first.output.contains("imported 1201 samples from \(file) (1201 new, 0 replaced, 0 unchanged by sync version)"),
                "\(first.output)")
        let again = try health.run("import", file)
        #expect(again.output.contains("(0 new, 0 replaced, 1201 unchanged by sync version)"), "\(again.output)")
        let stored = try samplesJSON()
        #expect(stored.filter { $0.contains("step-count") }.count == 1_200)

        // Line 1,101 repeats line 3's id without a sync identifier: refused, named, nothing imported.
        let id = UUID()
        var duplicate = (0..<1_200).map { minute -> String in
            let start = at("2026-12-01T00:00:00Z").addingTimeInterval(Double(minute) * 60)
            let formatter = ISO8601DateFormatter()
            let sampleID = minute == 2 || minute == 1_100 ? id : UUID()
            return #"{"id":"\#(sampleID)","type":"step-count","value":3,"start":"\#(formatter.string(from: start))","end":"\#(formatter.string(from: start.addingTimeInterval(60)))","source":"com.example.other"}"#
        }
        duplicate.append("not json")
        let refused = try health.run("import", try write(duplicate.joined(separator: "\n") + "\n", "duplicate.ndjson"))
        #expect(refused.code == 65)
        #expect(refused.error.contains("line 1101: invalid sample: a sample with id \(id) already exists; nothing was imported"),
                "\(refused.error)")
        #expect(try samplesJSON() == stored)
    }

    /// A child `health import` killed with SIGKILL in the middle of a large export leaves the
    /// store exactly as it was; the same import then completes.
    @Test func killedMidImportLeavesTheStoreAsBefore() throws {
        #expect(try health.run("import", try write(Self.export, "export.xml")).code == 0)
        let before = try samplesJSON()
        var big = Self.prologue
        big.reserveCapacity(30_000_000)
        let start = Date(timeIntervalSince1970: 1_600_000_000)
        for minute in 0..<100_000 {
            let from = Self.appleDate(start.addingTimeInterval(Double(minute) * 60))
            let to = Self.appleDate(start.addingTimeInterval(Double(minute + 1) * 60))
            big += " <Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"Watch\" sourceVersion=\"10.5\" unit=\"count\" creationDate=\"\(to)\" startDate=\"\(from)\" endDate=\"\(to)\" value=\"\(minute % 90)\"/>\n"
        }
        big += "</HealthData>\n"
        let path = try write(big, "big.xml")
        let child = try health.start(["import", path])
        let (process, _, _) = child
        // Kill once the child has read a few megabytes (its /proc io counter): mid-parse, mid-transaction.
        let deadline = Date().addingTimeInterval(120)
        while process.isRunning, Date() < deadline {
            let io = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/io", encoding: .utf8)) ?? ""
            let read = io.split(separator: "\n").first { $0.hasPrefix("rchar:") }.flatMap { Int($0.dropFirst(6).trimmingCharacters(in: .whitespaces)) } ?? 0
            if read > 4_000_000 { break }
            usleep(10_000)
        }
        #expect(process.isRunning, "the import finished before it could be killed; make the file larger")
        kill(process.processIdentifier, SIGKILL)
        let killed = HealthCommand.finish(child)
        #expect(killed.code == SIGKILL || process.terminationReason == .uncaughtSignal)
        #expect(try samplesJSON() == before)
        let complete = try health.run("import", path)
        #expect(complete.code == 0, "\(complete.error)")
        #expect(complete.output.contains("imported 100000 records"))
    }

    static func appleDate(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ v: Int?) -> String { String(format: "%02d", v ?? 0) }
        return "\(c.year!)-\(two(c.month))-\(two(c.day)) \(two(c.hour)):\(two(c.minute)):\(two(c.second)) +0000"
    }
}

/// A second store file in the same temporary directory.
struct TemporaryStoreCopy {
    let path: String
    let health: HealthCommand
    init(directory: String) {
        path = directory + "/second.sqlite"
        health = HealthCommand(store: path)
    }
}
