import Foundation
import OpenHealthKitShim

// A command-line "Prancercise" tracker: `record` saves a session, `list` reads the sessions back.

let usage = """
    usage: workout-tracker record ACTIVITY --start ISO8601 --minutes N [--energy KCAL] [--distance METRES]
           workout-tracker list
    ACTIVITY: prancercise (recorded as other), walking, running, cycling, dance
    """

enum TrackerError: Error, CustomStringConvertible {
    case usage(String)
    var description: String { if case .usage(let message) = self { message } else { "" } }
}

func activity(named name: String) -> HKWorkoutActivityType? {
    switch name {
    case "prancercise": .other
    case "walking": .walking
    case "running": .running
    case "cycling": .cycling
    case "dance": .dance
    default: nil
    }
}

func name(of type: HKWorkoutActivityType) -> String {
    switch type {
    case .walking: "walking"
    case .running: "running"
    case .cycling: "cycling"
    case .dance: "dance"
    default: "prancercise"
    }
}

/// `--name value` pairs after the first argument.
func options(_ arguments: ArraySlice<String>) throws -> [String: String] {
    var result: [String: String] = [:]
    var index = arguments.startIndex
    while index < arguments.endIndex {
        let key = arguments[index]
        guard key.hasPrefix("--"), index + 1 < arguments.endIndex else { throw TrackerError.usage("unexpected '\(key)'") }
        result[String(key.dropFirst(2))] = arguments[index + 1]
        index += 2
    }
    return result
}

func number(_ options: [String: String], _ key: String, in range: ClosedRange<Double>) throws -> Double? {
    guard let text = options[key] else { return nil }
    guard let value = Double(text), range.contains(value) else {
        throw TrackerError.usage("--\(key) '\(text)' is not a number in \(range.lowerBound)...\(range.upperBound)")
    }
    return value
}

let healthStore = HKHealthStore()
let workoutType = HKObjectType.workoutType()
let activeEnergy = HKObjectType.quantityType(forIdentifier: .activeEnergyBurned)!

func authorize() async throws {
    guard HKHealthStore.isHealthDataAvailable() else { throw TrackerError.usage("health data is not available here") }
    try await healthStore.requestAuthorization(toShare: [workoutType, activeEnergy], read: [workoutType, activeEnergy])
}

func record(_ arguments: ArraySlice<String>) async throws {
    guard let first = arguments.first, let type = activity(named: first) else { throw TrackerError.usage("unknown or missing ACTIVITY") }
    let options = try options(arguments.dropFirst())
    guard let startText = options["start"], let start = ISO8601DateFormatter().date(from: startText) else {
        throw TrackerError.usage("--start ISO8601 is required (e.g. 2026-12-06T18:00:00Z)")
    }
    guard let minutes = try number(options, "minutes", in: 1...1440) else { throw TrackerError.usage("--minutes N is required") }
    let end = start.addingTimeInterval(minutes * 60)
    let energy = try number(options, "energy", in: 0...20_000).map { HKQuantity(unit: .kilocalorie(), doubleValue: $0) }
    let distance = try number(options, "distance", in: 0...1_000_000).map { HKQuantity(unit: .meter(), doubleValue: $0) }
    try await authorize()
    let workout = HKWorkout(activityType: type, start: start, end: end, duration: end.timeIntervalSince(start),
                            totalEnergyBurned: energy, totalDistance: distance, metadata: nil)
    var objects: [HKObject] = [workout]
    if let energy {
        objects.append(HKQuantitySample(type: activeEnergy, quantity: energy, start: start, end: end))
    }
    try await healthStore.save(objects)
    print("recorded \(first) \(Int(minutes)) min from \(startText) (\(workout.uuid.uuidString.lowercased()))")
}

func list() async throws {
    try await authorize()
    let newestFirst = NSSortDescriptor(key: HKSampleSortIdentifierStartDate, ascending: false)
    let samples: [HKSample] = try await withCheckedThrowingContinuation { continuation in
        healthStore.execute(HKSampleQuery(sampleType: workoutType, predicate: nil, limit: HKObjectQueryNoLimit,
                                          sortDescriptors: [newestFirst]) { _, samples, error in
            if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: samples ?? []) }
        })
    }
    let formatter = ISO8601DateFormatter()
    for case let workout as HKWorkout in samples {
        let energy = workout.totalEnergyBurned.map { String(format: "%.0f kcal", $0.doubleValue(for: .kilocalorie())) } ?? "-"
        let distance = workout.totalDistance.map { String(format: "%.2f km", $0.doubleValue(for: .meterUnit(with: .kilo))) } ?? "-"
        print("\(formatter.string(from: workout.startDate))  \(name(of: workout.workoutActivityType))  "
              + "\(Int(workout.duration / 60)) min  \(energy)  \(distance)")
    }
    print("\(samples.count) sessions")
}

let arguments = CommandLine.arguments.dropFirst()
do {
    switch arguments.first {
    case "record": try await record(arguments.dropFirst())
    case "list": try await list()
    default: throw TrackerError.usage("expected record or list")
    }
} catch let error as TrackerError {
    FileHandle.standardError.write(Data("workout-tracker: \(error)\n\(usage)\n".utf8))
    exit(64)
} catch {
    FileHandle.standardError.write(Data("workout-tracker: \(error.localizedDescription)\n".utf8))
    exit(1)
}
