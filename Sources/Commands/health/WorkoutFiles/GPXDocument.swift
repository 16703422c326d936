import AppleHealth
import Foundation
import HealthModel

/// A workout as GPX 1.1: one track, one segment, a point per track point with a position, heart
/// rate and cadence in Garmin's TrackPointExtension v1 (what Strava, Komoot and Gadgetbridge read).
/// GPX has no place for a point without a position: those are left out (TCX and FIT keep them).
enum GPXDocument {
    static func render(_ workout: Workout, _ track: WorkoutTrack) -> String {
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="BandKit health" xmlns="http://www.topografix.com/GPX/1/1" \
            xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" \
            xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v1" \
            xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd \
            http://www.garmin.com/xmlschemas/TrackPointExtension/v1 http://www.garmin.com/xmlschemas/TrackPointExtensionv1.xsd">

            """
        let title = WorkoutFileNaming.title(workout)
        out += "  <metadata>\n    <name>\(ExportXMLWriter.escape(title))</name>\n"
        out += "    <desc>\(ExportXMLWriter.escape(WorkoutFileNaming.description(workout)))</desc>\n    <time>\(XMLValues.time(workout.start))</time>\n  </metadata>\n"
        out += "  <trk>\n    <name>\(ExportXMLWriter.escape(title))</name>\n    <type>\(ExportXMLWriter.escape(workout.activity.rawValue))</type>\n"
        out += "    <trkseg>\n"
        for point in track.points {
            guard let latitude = point.latitude, let longitude = point.longitude else { continue }
            out += "      <trkpt lat=\"\(XMLValues.number(latitude))\" lon=\"\(XMLValues.number(longitude))\">"
            if let altitude = point.altitude { out += "<ele>\(XMLValues.number(altitude))</ele>" }
            out += "<time>\(XMLValues.time(point.time))</time>"
            let heartRate = point.heartRate.map { Int($0.rounded()) }.flatMap { (1...255).contains($0) ? $0 : nil }
            let cadence = point.cadence.map { Int($0.rounded()) }.flatMap { (0...254).contains($0) ? $0 : nil }
            if heartRate != nil || cadence != nil {
                out += "<extensions><gpxtpx:TrackPointExtension>"
                if let heartRate { out += "<gpxtpx:hr>\(heartRate)</gpxtpx:hr>" }
                if let cadence { out += "<gpxtpx:cad>\(cadence)</gpxtpx:cad>" }
                out += "</gpxtpx:TrackPointExtension></extensions>"
            }
            out += "</trkpt>\n"
        }
        out += "    </trkseg>\n  </trk>\n</gpx>\n"
        return out
    }
}

/// Numbers and times as XML Schema's `xsd:double`, `xsd:decimal` and `xsd:dateTime` spell them.
enum XMLValues {
    /// A plain decimal (never exponent form, valid as xsd:double and xsd:decimal), to 9 places:
    /// 0.1 mm of latitude, below what FIT's semicircles resolve; the binary noise of scaled values
    /// (34.19999999999999 m) goes.
    static func number(_ value: Double) -> String {
        var text = String(format: "%.9f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text == "-0" ? "0" : text
    }

    /// UTC, `Z`, milliseconds only when there is a fraction.
    static func time(_ date: Date) -> String { TimeParsing.format(date, utcOffsetSeconds: 0) }
}

/// Names for exported workouts: a title inside the file, a file name in a folder.
enum WorkoutFileNaming {
    static func title(_ workout: Workout) -> String {
        "\(workout.activity.rawValue) \(XMLValues.time(workout.start))"
    }

    /// Who recorded it: "running by Forerunner 255 (com.garmin.connect)"; device names come from
    /// outside (a FIT file, an import) and are escaped where they are written.
    static func description(_ workout: Workout) -> String {
        var text = workout.activity.rawValue
        if let device = workout.device?.name ?? workout.device?.manufacturer { text += " by \(device)" }
        if let source = workout.source?.id { text += " (\(source))" }
        return text
    }

    /// `2026-11-30T07-15-00Z-running-3f2504e0.gpx`: sortable, unique by id, safe on every filesystem.
    static func fileName(_ workout: Workout, extension ext: String) -> String {
        let time = XMLValues.time(workout.start).replacingOccurrences(of: ":", with: "-")
        let activity = String(workout.activity.rawValue.unicodeScalars.map { scalar -> Character in
            CharacterSet.alphanumerics.contains(scalar) && scalar.isASCII ? Character(scalar) : "-"
        }.prefix(40))
        return "\(time)-\(activity)-\(workout.id.uuidString.lowercased().prefix(8)).\(ext)"
    }
}
