import Foundation
import HealthModel
import HealthStore

/// Writes one morning's steps from two sources that overlap — a watch that records with a device
/// and a phone app that does not — and prints the store's merged statistics, which count every
/// instant once, from the better source:
///
///     raw SUM-OF-SAMPLES
///     merged SUM
///     hour START SUM          (one line per hour, UTC)
///     source ID SUM           (each source on its own, best first)
enum MergedStatistics {
    static let watch = AppIdentity(id: "com.example.watch", version: "2")
    static let phone = AppIdentity(id: "com.example.phone", version: "1")

    static func run(store storePath: String) throws {
        let store = try HealthStore(path: storePath)
        let morning = try Date("2026-01-05T08:00:00Z", strategy: .iso8601)
        func hours(_ from: Double, _ to: Double) -> (Date, Date) {
            (morning.addingTimeInterval(from * 3600), morning.addingTimeInterval(to * 3600))
        }
        let wrist = DeviceInfo(name: "Example Watch", manufacturer: "Example", model: "W1")
        let samples: [(QuantitySample, AppIdentity)] = [
            (steps(6000, hours(0, 2), device: wrist), watch),   // 08:00–10:00
            (steps(3000, hours(1, 2)), phone),                  // 09:00–10:00: the watch has this hour
            (steps(1200, hours(2, 3)), phone),                  // 10:00–11:00: only the phone
        ]
        try store.write(as: .owner) { transaction in
            for (sample, source) in samples { _ = try transaction.save(sample, attributedTo: source) }
        }
        print("raw \(Int(samples.map { $0.0.quantity.value }.reduce(0, +)))")

        let range = hours(0, 3).0..<hours(0, 3).1
        let utc = TimeZone(identifier: "UTC")!
        let total = try store.statistics(type: .stepCount, range: range, options: .sum, timeZone: utc, bySource: true, as: .owner)
        print("merged \(text(total.first?.values.value(for: .sum)))")
        for hour in try store.statistics(type: .stepCount, range: range, options: .sum, bucket: .hour, timeZone: utc, as: .owner) {
            print("hour \(hour.start.formatted(.iso8601)) \(text(hour.values.value(for: .sum)))")
        }
        for source in total.first?.bySource ?? [] {
            print("source \(source.source.escapingControlCharacters) \(text(source.values.value(for: .sum)))")
        }
    }

    static func steps(_ count: Double, _ interval: (Date, Date), device: DeviceInfo? = nil) -> QuantitySample {
        QuantitySample(type: .stepCount, quantity: Quantity(count, .count), start: interval.0, end: interval.1, device: device)
    }

    static func text(_ value: Double?) -> String {
        value.map { $0 == $0.rounded() ? String(Int($0)) : String($0) } ?? "-"
    }
}
