// OpenHealthKit's cost over the store it wraps: the same day's statistics and the same day's
// samples, read through HealthStore directly and through HealthKit's API (descriptors), on a
// store of a week of minute steps from a band and a watch (20,160 samples).
import Foundation
import HealthModel
import HealthStore
import OpenHealthKit

@main
struct OpenHealthKitBench {
    @MainActor static func best(_ rounds: Int, _ iterations: Int, _ body: () async throws -> Void) async rethrows -> Double {
        var best = Double.infinity
        for _ in 0..<rounds {
            let start = ContinuousClock.now
            for _ in 0..<iterations { try await body() }
            let elapsed = ContinuousClock.now - start
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            best = min(best, seconds / Double(iterations))
        }
        return best
    }

    static func main() async throws {
        let iterations = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 20
        let directory = NSTemporaryDirectory() + "openhealthkit-bench-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/health.sqlite"
        let store = try HealthStore(path: path)
        let weekStart = Date(timeIntervalSince1970: 1_764_460_800)  // 2025-11-30T00:00:00Z
        try store.write(as: .owner) { transaction in
            for (source, steps) in [("bandkit.band", 60.0), ("com.example.watch", 50.0)] {
                let app = AppIdentity(id: source, version: "1")
                for minute in 0..<(7 * 1440) {
                    let start = weekStart.addingTimeInterval(Double(minute) * 60)
                    try transaction.save(QuantitySample(type: .stepCount, quantity: Quantity(steps, .count), start: start,
                                                        end: start.addingTimeInterval(60), device: DeviceInfo(name: source)),
                                         attributedTo: app)
                }
            }
        }
        let reader = AppIdentity(id: "com.example.app", version: "1")
        let healthStore = HKHealthStore(appIdentifier: reader.id, storePath: path)
        let steps = HKObjectType.quantityType(forIdentifier: .stepCount)!
        try await healthStore.requestAuthorization(toShare: [], read: [steps])
        let day = weekStart.addingTimeInterval(3 * 86_400)..<weekStart.addingTimeInterval(4 * 86_400)
        let predicate = HKQuery.predicateForSamples(withStart: day.lowerBound, end: day.upperBound, options: .strictStartDate)

        let utc = TimeZone(identifier: "UTC")!
        let directStatistics = try await best(5, iterations) {
            _ = try store.statistics(type: .stepCount, range: day, options: .sum, timeZone: utc, as: reader)
        }
        let apiStatistics = try await best(5, iterations) {
            _ = try await HKStatisticsQueryDescriptor(predicate: .quantitySample(type: steps, predicate: predicate), options: .cumulativeSum)
                .result(for: healthStore)
        }
        let directSamples = try await best(5, iterations) {
            _ = try store.samples(HealthQuery(type: .stepCount, range: day, predicate: .strictStart, sort: .startDescending), as: reader)
        }
        let apiSamples = try await best(5, iterations) {
            _ = try await HKSampleQueryDescriptor(predicates: [.quantitySample(type: steps, predicate: predicate)],
                                                  sortDescriptors: [SortDescriptor(\.startDate, order: .reverse)]).result(for: healthStore)
        }
        func row(_ name: String, _ direct: Double, _ api: Double) {
            print(String(format: "%@: HealthStore %.2f ms, OpenHealthKit %.2f ms, ratio %.2f", name, direct * 1000, api * 1000, api / direct))
        }
        row("one day's merged step total", directStatistics, apiStatistics)
        row("one day's 2,880 step samples, newest first", directSamples, apiSamples)
    }
}
