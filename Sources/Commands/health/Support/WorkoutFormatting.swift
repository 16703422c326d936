import CommandKit
import Foundation
import HealthModel
import HealthStore
import JSONOutput

/// Workouts as text and JSON (`health workouts`, `health export`, `health changes`).
enum WorkoutFormatting {
    /// One line of the import format (`health import` reads it back).
    static func importLine(_ workout: Workout, zone: TimeZone) -> String {
        JSON.text { writeImportObject(workout, zone: zone, to: &$0) }
    }

    static func writeImportObject(_ workout: Workout, zone: TimeZone, to json: inout JSONWriter<JSONBuffer>) {
        json.beginObject()
        json.key("type"); json.value(verbatim: "workout")
        json.key("activity"); json.value(workout.activity.rawValue)
        json.key("start"); json.value(TimeParsing.format(workout.start, in: zone))
        json.key("end"); json.value(TimeParsing.format(workout.end, in: zone))
        if let energy = try? workout.totalEnergyBurned?.value(in: .kilocalorie) { json.key("total_energy_kcal"); json.value(energy) }
        if let distance = try? workout.totalDistance?.value(in: .meter) { json.key("total_distance_m"); json.value(distance) }
        json.key("source"); json.value(workout.source?.id ?? "")
        if let version = workout.source?.version, !version.isEmpty { json.key("source_version"); json.value(version) }
        if let device = workout.device {
            json.key("device")
            SampleFormatting.writeDevice(device, to: &json)
        }
        if !workout.metadata.isEmpty {
            json.key("metadata")
            SampleFormatting.writeMetadata(workout.metadata, to: &json)
        }
        json.key("id"); json.value(workout.id.uuidString.lowercased())
        json.endObject()
    }

    /// A workout with its statistics, for `workouts list --json`.
    static func writeJSON(_ stats: WorkoutStatistics, zone: TimeZone, to json: inout JSONWriter<JSONBuffer>) {
        let workout = stats.workout
        json.beginObject()
        json.key("id"); json.value(workout.id.uuidString.lowercased())
        json.key("activity"); json.value(workout.activity.rawValue)
        json.key("start"); json.value(TimeParsing.format(workout.start, in: zone))
        json.key("end"); json.value(TimeParsing.format(workout.end, in: zone))
        json.key("duration_s"); json.value(stats.duration)
        json.key("distance_m"); json.value(stats.distanceMetres)
        json.key("energy_kcal"); json.value(stats.energyKilocalories)
        json.key("hr_avg"); json.value(stats.averageHeartRate)
        json.key("hr_max"); json.value(stats.maximumHeartRate)
        json.key("source"); json.value(workout.source?.id ?? "")
        json.endObject()
    }

    /// `2026-11-30T18:30:00+01:00  running  40 min  6.2 km  410 kcal  HR 148 avg / 171 max  bandkit.band`
    static func line(_ stats: WorkoutStatistics, zone: TimeZone) -> String {
        var parts = [TimeParsing.format(stats.workout.start, in: zone), stats.workout.activity.rawValue.terminalEscaped,
                     NightReport.duration(stats.duration)]
        parts.append(stats.distanceMetres.map { "\(formatValue(($0 / 10).rounded() / 100)) km" } ?? "— km")
        parts.append(stats.energyKilocalories.map { "\(formatValue($0.rounded())) kcal" } ?? "— kcal")
        if let average = stats.averageHeartRate, let maximum = stats.maximumHeartRate {
            parts.append("HR \(formatValue(average.rounded())) avg / \(formatValue(maximum.rounded())) max")
        } else {
            parts.append("HR —")
        }
        parts.append((stats.workout.source?.id ?? "").terminalEscaped)
        return parts.joined(separator: "  ")
    }
}
