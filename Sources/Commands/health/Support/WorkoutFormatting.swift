import CommandKit
import Foundation
import HealthModel
import HealthStore

/// Workouts as text and JSON (`health workouts`, `health export`, `health changes`).
enum WorkoutFormatting {
    /// One line of the import format (`health import` reads it back).
    static func importLine(_ workout: Workout, zone: TimeZone) -> String {
        var pairs: [(String, String)] = [
            ("type", jsonString("workout")), ("activity", jsonString(workout.activity.rawValue)),
            ("start", jsonString(TimeParsing.format(workout.start, in: zone))), ("end", jsonString(TimeParsing.format(workout.end, in: zone))),
        ]
        if let energy = try? workout.totalEnergyBurned?.value(in: .kilocalorie) { pairs.append(("total_energy_kcal", jsonNumber(energy))) }
        if let distance = try? workout.totalDistance?.value(in: .meter) { pairs.append(("total_distance_m", jsonNumber(distance))) }
        pairs.append(("source", jsonString(workout.source?.id ?? "")))
        if let version = workout.source?.version, !version.isEmpty { pairs.append(("source_version", jsonString(version))) }
        if let device = workout.device {
            let parts: [(String, String?)] = [("name", device.name), ("manufacturer", device.manufacturer), ("model", device.model),
                                              ("hardware_id", device.hardwareIdentifier), ("firmware", device.firmwareVersion)]
            pairs.append(("device", jsonObject(parts.compactMap { key, value in value.map { (key, jsonString($0)) } })))
        }
        if !workout.metadata.isEmpty {
            pairs.append(("metadata", jsonObject(workout.metadata.sorted { $0.key < $1.key }.map { ($0.key, jsonString($0.value)) })))
        }
        pairs.append(("id", jsonString(workout.id.uuidString.lowercased())))
        return jsonObject(pairs)
    }

    /// A workout with its statistics, for `workouts list --json`.
    static func json(_ stats: WorkoutStatistics, zone: TimeZone) -> String {
        let workout = stats.workout
        return jsonObject([
            ("id", jsonString(workout.id.uuidString.lowercased())), ("activity", jsonString(workout.activity.rawValue)),
            ("start", jsonString(TimeParsing.format(workout.start, in: zone))), ("end", jsonString(TimeParsing.format(workout.end, in: zone))),
            ("duration_s", jsonNumber(stats.duration)), ("distance_m", jsonNumber(stats.distanceMetres)),
            ("energy_kcal", jsonNumber(stats.energyKilocalories)), ("hr_avg", jsonNumber(stats.averageHeartRate)),
            ("hr_max", jsonNumber(stats.maximumHeartRate)), ("source", jsonString(workout.source?.id ?? "")),
        ])
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
