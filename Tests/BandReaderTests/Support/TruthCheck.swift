import BandProtocol
import BandReader
import Foundation
import HealthModel
import HealthStore

/// Compares the store with the band's truth, minute by minute: every recorded minute must be
/// there exactly once with the band's steps, distance, energy and heart-rate average, minimum and
/// maximum; nothing else may be stored up to the last recorded minute; after it, only provisional
/// live minutes; and no value may be negative. A minute the band recorded more than once (a
/// clock or zone change inside it, a boot with the clock inside it) is all its records together:
/// steps, distance and energy summed, heart rate the mean of the averages, the lowest minimum and
/// the highest maximum (``TruthCheck/Minute``).
struct TruthCheck {
    var problems: [String] = []
    var minutesCompared = 0
    /// Minutes the truth holds more than one record of.
    var minutesRecordedTwice = 0

    /// One minute's records combined.
    struct Minute {
        var steps = 0, distanceDecimetres = 0, energyDecikilocalories = 0
        var heartRateAverages: [Int] = [], heartRateMinimum = Int.max, heartRateMaximum = 0
        var records = 0

        mutating func add(_ record: MinuteRecord) {
            records += 1
            steps += Int(record.steps)
            distanceDecimetres += Int(record.distanceDecimetres)
            energyDecikilocalories += Int(record.energyDecikilocalories)
            if let hr = record.heartRate {
                heartRateAverages.append(Int(hr.average))
                heartRateMinimum = min(heartRateMinimum, Int(hr.minimum))
                heartRateMaximum = max(heartRateMaximum, Int(hr.maximum))
            }
        }

        var heartRate: Double? {
            heartRateAverages.isEmpty ? nil : Double(heartRateAverages.reduce(0, +)) / Double(heartRateAverages.count)
        }
    }

    init(truth: [MinuteRecord], store: HealthStore) throws {
        var byMinute: [UInt32: Minute] = [:]
        for record in truth { byMinute[record.minuteStart, default: Minute()].add(record) }
        minutesRecordedTwice = byMinute.values.filter { $0.records > 1 }.count
        guard let lastMinute = byMinute.keys.max() else {
            problems.append("the band recorded nothing")
            return
        }
        minutesCompared = byMinute.count
        func stored(_ type: QuantityType) throws -> [UInt32: [QuantitySample]] {
            var out: [UInt32: [QuantitySample]] = [:]
            for sample in try store.samples(HealthQuery(type: type), as: .owner).compactMap(\.quantitySample) {
                let minute = UInt32(sample.start.timeIntervalSince1970)
                out[minute, default: []].append(sample)
                if sample.quantity.value < 0 { problems.append("\(type.identifier) at \(minute) is negative: \(sample.quantity.value)") }
                if sample.end.timeIntervalSince(sample.start) != 60 { problems.append("\(type.identifier) at \(minute) is not one minute long") }
            }
            return out
        }
        let steps = try stored(.stepCount)
        let distance = try stored(.distanceWalkingRunning)
        let energy = try stored(.activeEnergyBurned)
        let heartRate = try stored(.heartRate)
        func check(_ name: String, _ samples: [UInt32: [QuantitySample]], _ expected: (Minute) -> Double?) {
            for (minute, record) in byMinute {
                let got = samples[minute] ?? []
                switch expected(record) {
                case .some(let value):
                    if got.count != 1 {
                        problems.append("\(name) at \(minute): \(got.count) samples, expected 1")
                    } else if abs(got[0].quantity.value - value) > 1e-6 {
                        problems.append("\(name) at \(minute): stored \(got[0].quantity.value), band recorded \(value)")
                    } else if got[0].metadata["bandkit.origin"] != "history" {
                        problems.append("\(name) at \(minute): still the provisional live value")
                    }
                case .none:
                    if !got.isEmpty { problems.append("\(name) at \(minute): stored \(got.map(\.quantity.value)) but the band measured none") }
                }
            }
            for (minute, extra) in samples where byMinute[minute] == nil {
                if minute <= lastMinute {
                    problems.append("\(name) at \(minute): \(extra.count) samples for a minute the band never recorded")
                } else if extra.contains(where: { $0.metadata["bandkit.origin"] != "live" }) || extra.count != 1 {
                    problems.append("\(name) at \(minute): after the last record, expected one provisional live sample")
                }
            }
        }
        check("steps", steps) { Double($0.steps) }
        check("distance", distance) { Double($0.distanceDecimetres) / 10 }
        check("energy", energy) { Double($0.energyDecikilocalories) / 10 }
        check("heart rate", heartRate) { $0.heartRate }
        for (minute, record) in byMinute {
            guard record.heartRate != nil, let sample = heartRate[minute]?.first else { continue }
            if sample.metadata["bandkit.hr.min"] != String(record.heartRateMinimum) || sample.metadata["bandkit.hr.max"] != String(record.heartRateMaximum) {
                problems.append("heart rate at \(minute): min/max \(sample.metadata["bandkit.hr.min"] ?? "-")/\(sample.metadata["bandkit.hr.max"] ?? "-"), band \(record.heartRateMinimum)/\(record.heartRateMaximum)")
            }
        }
        if problems.count > 20 { problems = Array(problems.prefix(20)) + ["… and \(problems.count - 20) more"] }
    }

    /// Daily totals from the store's statistics (which merge sources) against the truth's sums,
    /// per UTC day wholly covered by `truth`.
    static func dailyTotalProblems(truth: [MinuteRecord], store: HealthStore) throws -> [String] {
        var problems: [String] = []
        var days: [Int: (steps: Int, distance: Int, energy: Int)] = [:]
        for record in truth {
            let day = Int(record.minuteStart) / 86_400
            var totals = days[day] ?? (0, 0, 0)
            totals.steps += Int(record.steps)
            totals.distance += Int(record.distanceDecimetres)
            totals.energy += Int(record.energyDecikilocalories)
            days[day] = totals
        }
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        for (day, totals) in days.sorted(by: { $0.key < $1.key }) {
            let start = Date(timeIntervalSince1970: TimeInterval(day * 86_400))
            let range = start..<start.addingTimeInterval(86_400)
            func sum(_ type: QuantityType) throws -> Double {
                try store.statistics(type: type, range: range, options: .sum, timeZone: utc.timeZone, as: .owner).first?.values.sum ?? 0
            }
            let pairs: [(String, Double, Double)] = [
                ("steps", try sum(.stepCount), Double(totals.steps)),
                ("distance m", try sum(.distanceWalkingRunning), Double(totals.distance) / 10),
                ("energy kcal", try sum(.activeEnergyBurned), Double(totals.energy) / 10),
            ]
            for (name, stored, expected) in pairs where abs(stored - expected) > 1e-6 {
                problems.append("day \(start): \(name) total \(stored), band \(expected)")
            }
        }
        return problems
    }

    /// The band's walk and run sessions in `truth` that a later record closes, against the
    /// workouts in the store: each exactly once, same activity, start, end, distance and energy.
    /// Computed here from the records' activity byte and start flag on their own (not with the
    /// reader's tracker), so a bug in the tracker shows as a difference.
    static func workoutProblems(truth: [MinuteRecord], store: HealthStore) throws -> [String] {
        var sessions: [(activity: MinuteActivity, start: UInt32, last: UInt32, distance: Int, energy: Int)] = []
        var open: (activity: MinuteActivity, start: UInt32, last: UInt32, distance: Int, energy: Int)?
        for record in truth {
            if var current = open, record.activity == current.activity, !record.startsSession {
                current.last = max(current.last, record.minuteStart)
                current.distance += Int(record.distanceDecimetres)
                current.energy += Int(record.energyDecikilocalories)
                open = current
                continue
            }
            if let current = open { sessions.append(current) }
            open = record.activity.isSession
                ? (record.activity, record.minuteStart, record.minuteStart, Int(record.distanceDecimetres), Int(record.energyDecikilocalories))
                : nil
        }
        let workouts = try store.workouts(as: .owner).filter { $0.source?.id == SampleWriter.app.id }.sorted { $0.start < $1.start }
        var problems: [String] = []
        if workouts.count != sessions.count { problems.append("\(workouts.count) band workouts stored, the band closed \(sessions.count) sessions") }
        for (workout, session) in zip(workouts, sessions) {
            let name = "workout at \(workout.start)"
            if workout.activity != WorkoutWriter.activityType(session.activity) { problems.append("\(name): \(workout.activity)") }
            if workout.start != Date(timeIntervalSince1970: TimeInterval(session.start)) { problems.append("\(name): band's session starts \(session.start)") }
            if workout.end != Date(timeIntervalSince1970: TimeInterval(session.last + 60)) { problems.append("\(name): ends \(workout.end), band \(session.last + 60)") }
            if abs((try workout.totalDistance?.value(in: .meter) ?? -1) - Double(session.distance) / 10) > 1e-6 { problems.append("\(name): distance") }
            if abs((try workout.totalEnergyBurned?.value(in: .kilocalorie) ?? -1) - Double(session.energy) / 10) > 1e-6 { problems.append("\(name): energy") }
        }
        return problems
    }
}
