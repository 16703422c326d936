import FitFile
import Foundation
import HealthModel

/// A workout as a FIT activity file (file_id, timer events, records, laps, one session, activity),
/// the layout devices write; `health import` reads it back to the same workout, laps and points.
/// FIT counts whole seconds: times are rounded down to the second.
enum FitExport {
    static func encode(_ workout: Workout, _ track: WorkoutTrack) -> [UInt8] {
        func seconds(_ date: Date) -> UInt32 { FitTime.fitSeconds(unix: Int64(date.timeIntervalSince1970.rounded(.down))) ?? 0 }
        func summary(start: Date, end: Date, points: [WorkoutTrackPoint]) -> FitSummary {
            let rates = points.compactMap(\.heartRate)
            let cadences = points.compactMap(\.cadence)
            return FitSummary(start: seconds(start), elapsed: Double(seconds(end)) - Double(seconds(start)),
                              averageHeartRate: rates.isEmpty ? nil : Int((rates.reduce(0, +) / Double(rates.count)).rounded()),
                              maximumHeartRate: rates.max().map { Int($0.rounded()) },
                              averageCadence: cadences.isEmpty ? nil : Int((cadences.reduce(0, +) / Double(cadences.count)).rounded()),
                              maximumCadence: cadences.max().map { Int($0.rounded()) })
        }
        var session = summary(start: workout.start, end: workout.end, points: track.points)
        session.timerTime = session.elapsed
        session.distance = try? workout.totalDistance?.value(in: .meter)
        session.calories = try? workout.totalEnergyBurned?.value(in: .kilocalorie)
        session.sport = FitSports.sport(workout.activity)
        let laps = track.laps.map { lap in
            var summary = FitSummary(start: seconds(lap.start), elapsed: Double(seconds(lap.end)) - Double(seconds(lap.start)),
                                     distance: lap.distance, calories: lap.energy,
                                     averageHeartRate: lap.averageHeartRate.map { Int($0.rounded()) },
                                     maximumHeartRate: lap.maximumHeartRate.map { Int($0.rounded()) },
                                     averageCadence: lap.averageCadence.map { Int($0.rounded()) },
                                     maximumCadence: lap.maximumCadence.map { Int($0.rounded()) })
            summary.timerTime = summary.elapsed
            return summary
        }
        let points = track.points.map { point in
            FitTrackPoint(timestamp: seconds(point.time), latitude: point.latitude, longitude: point.longitude, altitude: point.altitude,
                          heartRate: point.heartRate.map { Int($0.rounded()) }, cadence: point.cadence.map { Int($0.rounded()) },
                          distance: point.distance, speed: point.speed)
        }
        let identity = FitFileIdentity(type: FitFileType.activity, manufacturer: 255, product: 0,
                                       serialNumber: nil, timeCreated: seconds(workout.start), productName: "BandKit health")
        return FitActivity(identity: identity, sessions: [session], laps: laps, points: points).encoded()
    }
}
