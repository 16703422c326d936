import AppleHealth
import Foundation
import HealthModel

/// A workout as Garmin's Training Center XML v2: one activity, its laps (one spanning the workout
/// when none were stored), each lap's track points with position, altitude, distance, heart rate
/// and cadence (what Strava and TrainingPeaks import).
enum TCXDocument {
    static func render(_ workout: Workout, _ track: WorkoutTrack) -> String {
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2" \
            xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" \
            xsi:schemaLocation="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2 http://www.garmin.com/xmlschemas/TrainingCenterDatabasev2.xsd">
              <Activities>

            """
        let sport = workout.activity == .running || workout.activity == .walking || workout.activity == .hiking ? "Running"
            : workout.activity == .cycling ? "Biking" : "Other"
        out += "    <Activity Sport=\"\(sport)\">\n      <Id>\(XMLValues.time(workout.start))</Id>\n"
        let laps = track.laps.isEmpty ? [WorkoutLap(start: workout.start, end: workout.end,
                                                   distance: try? workout.totalDistance?.value(in: .meter),
                                                   energy: try? workout.totalEnergyBurned?.value(in: .kilocalorie))] : track.laps
        let pointsByLap = assign(track.points, to: laps)
        for (lap, points) in zip(laps, pointsByLap) {
            out += "      <Lap StartTime=\"\(XMLValues.time(lap.start))\">\n"
            out += "        <TotalTimeSeconds>\(XMLValues.number(max(0, lap.end.timeIntervalSince(lap.start))))</TotalTimeSeconds>\n"
            let distance = lap.distance ?? points.compactMap(\.distance).max().map { max(0, $0 - (points.compactMap(\.distance).min() ?? 0)) } ?? 0
            out += "        <DistanceMeters>\(XMLValues.number(distance))</DistanceMeters>\n"
            out += "        <Calories>\(min(65_535, max(0, Int((lap.energy ?? 0).rounded()))))</Calories>\n"
            if let average = beats(lap.averageHeartRate) { out += "        <AverageHeartRateBpm><Value>\(average)</Value></AverageHeartRateBpm>\n" }
            if let maximum = beats(lap.maximumHeartRate) { out += "        <MaximumHeartRateBpm><Value>\(maximum)</Value></MaximumHeartRateBpm>\n" }
            out += "        <Intensity>Active</Intensity>\n"
            if let cadence = cadence(lap.averageCadence) { out += "        <Cadence>\(cadence)</Cadence>\n" }
            out += "        <TriggerMethod>Manual</TriggerMethod>\n"
            if !points.isEmpty {
                out += "        <Track>\n"
                for point in points { out += trackpoint(point) }
                out += "        </Track>\n"
            }
            out += "      </Lap>\n"
        }
        out += "      <Notes>\(ExportXMLWriter.escape(WorkoutFileNaming.title(workout) + ", " + WorkoutFileNaming.description(workout)))</Notes>\n"
        out += "    </Activity>\n  </Activities>\n</TrainingCenterDatabase>\n"
        return out
    }

    private static func trackpoint(_ point: WorkoutTrackPoint) -> String {
        var out = "          <Trackpoint><Time>\(XMLValues.time(point.time))</Time>"
        if let latitude = point.latitude, let longitude = point.longitude {
            out += "<Position><LatitudeDegrees>\(XMLValues.number(latitude))</LatitudeDegrees>"
                + "<LongitudeDegrees>\(XMLValues.number(longitude))</LongitudeDegrees></Position>"
        }
        if let altitude = point.altitude { out += "<AltitudeMeters>\(XMLValues.number(altitude))</AltitudeMeters>" }
        if let distance = point.distance { out += "<DistanceMeters>\(XMLValues.number(distance))</DistanceMeters>" }
        if let heartRate = beats(point.heartRate) { out += "<HeartRateBpm><Value>\(heartRate)</Value></HeartRateBpm>" }
        if let cadence = cadence(point.cadence) { out += "<Cadence>\(cadence)</Cadence>" }
        return out + "</Trackpoint>\n"
    }

    private static func beats(_ value: Double?) -> Int? { value.map { Int($0.rounded()) }.flatMap { (1...255).contains($0) ? $0 : nil } }
    private static func cadence(_ value: Double?) -> Int? { value.map { Int($0.rounded()) }.flatMap { (0...254).contains($0) ? $0 : nil } }

    /// Each point to the lap whose span holds it; points before the first lap go to it, after the last to the last.
    static func assign(_ points: [WorkoutTrackPoint], to laps: [WorkoutLap]) -> [[WorkoutTrackPoint]] {
        var result = Array(repeating: [WorkoutTrackPoint](), count: laps.count)
        for point in points {
            let index = laps.lastIndex { $0.start <= point.time } ?? 0
            result[index].append(point)
        }
        return result
    }
}
