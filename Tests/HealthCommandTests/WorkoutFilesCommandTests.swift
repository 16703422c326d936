import FitFile
import Foundation
import HealthModel
import HealthStore
import HealthTestSupport
import Testing

/// `health import FILE.fit|FOLDER` and `health workouts export ID --format gpx|tcx|fit`.
@Suite struct WorkoutFilesCommandTests {
    let temp: TemporaryStore
    let health: HealthCommand
    let folder: URL

    init() throws {
        temp = try TemporaryStore()
        health = HealthCommand(store: temp.path)
        folder = URL(fileURLWithPath: temp.directory).appendingPathComponent("fit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    func write(_ bytes: [UInt8], _ name: String) throws -> String {
        let url = folder.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    func onlyWorkout(_ store: String) throws -> (Workout, WorkoutTrack) {
        let opened = try HealthStore(path: store)
        let workouts = try opened.workouts(as: .owner)
        try #require(workouts.count == 1)
        return (workouts[0], try opened.track(ofWorkout: workouts[0].id, as: .owner))
    }

    @Test func anActivityFileBecomesAWorkoutWithLapsTrackAndHeartRateOnce() throws {
        let path = try write(FitFixtures.activity().encoded(), "run.fit")
        let first = try health.run("import", path)
        #expect(first.code == 0, "\(first.error)")
        #expect(first.output.contains("1 new workout (0 already stored)") && first.output.contains("2 laps, 120 track points, 120 samples"), "\(first.output)")
        let (workout, track) = try onlyWorkout(temp.path)
        #expect(workout.activity == .running && workout.duration == 120)
        #expect(try workout.totalDistance?.value(in: .meter) == 300 && workout.totalEnergyBurned?.value(in: .kilocalorie) == 25)
        #expect(workout.device?.manufacturer == "Garmin" && workout.device?.hardwareIdentifier == "3999123456")
        #expect(track.laps.count == 2 && track.laps[1].averageHeartRate == 140 && track.laps[0].distance == 150)
        #expect(track.points.count == 120 && track.points[5].heartRate == 125 && track.points[5].cadence == 85)
        let list = try health.run("workouts", "list", "--json")
        #expect(list.output.contains("\"hr_max\":159"), "\(list.output)")
        let again = try health.run("import", path)
        #expect(again.output.contains("0 new workouts (1 already stored)") && again.output.contains("0 samples (120 unchanged)"), "\(again.output)")
        #expect(try onlyWorkout(temp.path).1 == track)
    }

    @Test func aFolderImportsEveryFitFileInOneTransaction() throws {
        var second = FitFixtures.activity(points: 30)
        second.identity.serialNumber = 7
        second.sessions[0].start += 3_600
        second.laps = []
        second.points = second.points.map { var point = $0; point.timestamp += 3_600; return point }
        _ = try write(FitFixtures.activity().encoded(), "a.fit")
        _ = try write(second.encoded(), "b.FIT")
        _ = try write(Array("not fit".utf8), "notes.txt")
        let result = try health.run("import", folder.path)
        #expect(result.code == 0, "\(result.error)")
        #expect(result.output.contains("imported 2 FIT files: 2 new workouts"), "\(result.output)")
    }

    @Test func aDamagedFileExits65NamingTheByteOffsetAndImportsNothing() throws {
        var bytes = FitFixtures.activity().encoded()
        bytes[40] ^= 0x10
        _ = try write(FitFixtures.activity().encoded(), "good.fit")
        let bad = try write(bytes, "zz-bad.fit")
        let result = try health.run("import", bad)
        #expect(result.code == 65)
        #expect(result.error.contains("zz-bad.fit: damaged FIT file: invalid_value in file CRC at byte offset \(bytes.count - 2)"), "\(result.error)")
        let folderResult = try health.run("import", folder.path)
        #expect(folderResult.code == 65 && folderResult.error.contains("nothing was imported"), "\(folderResult.error)")
        #expect(try HealthStore(path: temp.path).workouts(as: .owner).isEmpty)
    }

    @Test func gpxAndTcxCarryTheTrackWithHeartRateAndCadence() throws {
        #expect(try health.run("import", try write(FitFixtures.activity().encoded(), "run.fit")).code == 0)
        let id = try onlyWorkout(temp.path).0.id.uuidString.lowercased()
        let gpx = try health.run("workouts", "export", id, "--format", "gpx")
        #expect(gpx.code == 0, "\(gpx.error)")
        #expect(gpx.output.contains(#"<trkpt lat="52.499999972" lon="13.399999989"><ele>34.2</ele><time>2026-11-30T07:00:00Z</time><extensions><gpxtpx:TrackPointExtension><gpxtpx:hr>120</gpxtpx:hr><gpxtpx:cad>80</gpxtpx:cad></gpxtpx:TrackPointExtension></extensions></trkpt>"#), "\(gpx.output.prefix(1500))")
        #expect(gpx.output.components(separatedBy: "<trkpt ").count == 121)
        // The device's name comes from the file: escaped.
        #expect(gpx.output.contains("<desc>running by Forerunner &lt;&amp;&gt; &quot;test&quot; (fit-file)</desc>"), "\(gpx.output.prefix(900))")
        let tcx = try health.run("workouts", "export", id, "--format", "tcx")
        #expect(tcx.code == 0, "\(tcx.error)")
        #expect(tcx.output.contains(#"<Activity Sport="Running">"#) && tcx.output.components(separatedBy: "<Lap ").count == 3)
        #expect(tcx.output.contains("<HeartRateBpm><Value>120</Value></HeartRateBpm><Cadence>80</Cadence></Trackpoint>"))
        #expect(tcx.output.contains("<Notes>running 2026-11-30T07:00:00Z, running by Forerunner &lt;&amp;&gt; &quot;test&quot; (fit-file)</Notes>"))
        #expect(tcx.output.contains("<Calories>12</Calories>\n        <AverageHeartRateBpm><Value>130</Value></AverageHeartRateBpm>"))
    }

    @Test func theFitExportImportsBackFieldForField() throws {
        #expect(try health.run("import", try write(FitFixtures.activity().encoded(), "run.fit")).code == 0)
        let (workout, track) = try onlyWorkout(temp.path)
        let exported = folder.appendingPathComponent("out.fit").path
        let result = try health.run("workouts", "export", workout.id.uuidString, "--format", "fit", "-o", exported)
        #expect(result.code == 0, "\(result.error)")
        let other = try TemporaryStore()
        let imported = try HealthCommand(store: other.path).run("import", exported)
        #expect(imported.code == 0, "\(imported.error)")
        let (back, backTrack) = try onlyWorkout(other.path)
        #expect(back.activity == workout.activity && back.start == workout.start && back.end == workout.end)
        #expect(back.totalDistance == workout.totalDistance && back.totalEnergyBurned == workout.totalEnergyBurned)
        #expect(backTrack == track)
    }

    @Test func aRangeGoesIntoAFolderOneFilePerWorkout() throws {
        #expect(try health.run("import", try write(FitFixtures.activity().encoded(), "run.fit")).code == 0)
        #expect(try health.run("workouts", "add", "walking", "--start", "2026-11-30T09:00:00Z", "--end", "2026-11-30T09:30:00Z").code == 0)
        let out = folder.appendingPathComponent("gpx").path
        let result = try health.run("workouts", "export", "--from", "2026-11-30T00:00:00Z", "--to", "2026-12-01T00:00:00Z",
                                    "--format", "tcx", "-o", out)
        #expect(result.code == 0, "\(result.error)")
        let names = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
        #expect(names.count == 2 && names[0].hasPrefix("2026-11-30T07-00-00Z-running-") && names[1].hasSuffix(".tcx"), "\(names)")
        #expect(try health.run("workouts", "export", "--format", "gpx").code == 64)
        #expect(try health.run("workouts", "export", "not-a-uuid", "--format", "gpx").code == 64)
        #expect(try health.run("workouts", "export", UUID().uuidString, "--format", "gpx").code == 1)
    }

    @Test func aMonitoringFileBecomesStepsEnergyAndHeartRatePerIntervalOnce() throws {
        var writer = FitWriter()
        let t = FitFixtures.start
        writer.write(0, global: FitMessageNumber.fileID, [FitOutField(0, .enumeration, .integer(FitFileType.monitoringB)),
                                                          FitOutField(1, .uint16, .integer(1)), FitOutField(3, .uint32z, .integer(42))])
        for (index, (steps, calories, rate)) in [(1_000, 50, 70), (1_100, 55, 72), (1_350, 61, 0)].enumerated() {
            writer.write(1, global: FitMessageNumber.monitoring, [
                FitOutField(253, .uint32, .integer(Int64(t) + 60 * Int64(index))), FitOutField(5, .enumeration, .integer(6)),
                FitOutField(3, .uint32, .integer(Int64(steps))), FitOutField(19, .uint16, .integer(Int64(calories))),
                FitOutField(27, .uint8, .integer(Int64(rate))),
            ])
        }
        let path = try write(writer.finish(), "day.fit")
        let first = try health.run("import", path)
        #expect(first.code == 0, "\(first.error)")
        #expect(first.output.contains("6 samples (0 unchanged)"), "\(first.output)")
        #expect(try health.run("import", path).output.contains("0 samples (6 unchanged)"))
        let store = try HealthStore(path: temp.path)
        func values(_ type: QuantityType) throws -> [Double] {
            try store.samples(HealthQuery(type: type), as: .owner).compactMap { sample -> Double? in
                guard case .quantity(let quantity) = sample else { return nil }
                return quantity.quantity.value
            }
        }
        #expect(try values(.stepCount) == [100, 250])
        #expect(try values(.activeEnergyBurned) == [5, 6])
        #expect(try values(.heartRate) == [70, 72])
    }

    @Test func twoCopiesOfOneActivityAreStoredOnce() throws {
        let file = FitFixtures.activity().encoded()
        // The same activity with a 12-byte header: other bytes, the same device serial and creation time.
        var copy = Array(file[0..<12]) + Array(file[14..<(file.count - 2)])
        copy[0] = 12
        let crc = FitCRC.checksum(copy)
        copy += [UInt8(crc & 0xFF), UInt8(crc >> 8)]
        _ = try write(file, "a.fit")
        _ = try write(copy, "b.fit")
        let result = try health.run("import", folder.path)
        #expect(result.code == 0, "\(result.error)")
        #expect(result.output.contains("1 new workout (1 already stored)") && result.output.contains("120 samples (120 unchanged)"), "\(result.output)")
    }
}
