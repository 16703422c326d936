import FitFile

/// FIT files the tests write: a small activity (file_id, records, two laps, a session) and a
/// monitoring day, built with the module's own writer field by field.
public enum FitFixtures {
    /// 2026-11-30T07:00:00Z in FIT seconds.
    public static let start: UInt32 = 1_164_956_400

    public static let identity = FitFileIdentity(type: FitFileType.activity, manufacturer: 1, product: 3_113, serialNumber: 3_999_123_456,
                                          timeCreated: start, productName: "Forerunner <&> \"test\"")

    public static func activity(points count: Int = 120) -> FitActivity {
        let points = (0..<count).map { index in
            FitTrackPoint(timestamp: start + UInt32(index), latitude: 52.5 + Double(index) * 0.0001, longitude: 13.4 - Double(index) * 0.00005,
                          altitude: 34.2 + Double(index % 7), heartRate: 120 + index % 40, cadence: 80 + index % 10,
                          distance: Double(index) * 2.5, speed: 2.5)
        }
        let half = Double(count / 2)
        let laps = [FitSummary(start: start, elapsed: half, timerTime: half, distance: half * 2.5, calories: 12,
                               averageHeartRate: 130, maximumHeartRate: 159, averageCadence: 84, maximumCadence: 89),
                    FitSummary(start: start + UInt32(count / 2), elapsed: Double(count) - half, timerTime: Double(count) - half,
                               distance: (Double(count) - half) * 2.5, calories: 13, averageHeartRate: 140, maximumHeartRate: 159)]
        let session = FitSummary(start: start, elapsed: Double(count), timerTime: Double(count), distance: Double(count) * 2.5, calories: 25,
                                 averageHeartRate: 135, maximumHeartRate: 159, averageCadence: 84, maximumCadence: 89, sport: 1, subSport: 0)
        return FitActivity(identity: identity, sessions: [session], laps: laps, points: points)
    }

    /// A definition and one record message, for damage tests: local type 0 is file_id, 1 a record.
    public static func minimalWriter() -> FitWriter {
        var writer = FitWriter()
        writer.write(0, global: FitMessageNumber.fileID, [FitOutField(0, .enumeration, .integer(FitFileType.activity)),
                                                          FitOutField(4, .uint32, .integer(Int64(start)))])
        writer.write(1, global: FitMessageNumber.record, [FitOutField(253, .uint32, .integer(Int64(start))),
                                                          FitOutField(3, .uint8, .integer(150))])
        return writer
    }
}
