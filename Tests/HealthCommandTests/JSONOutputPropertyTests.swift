import Foundation
import HealthModel
import HealthStore
import HealthTestSupport
import SeededRandom
import Testing

/// Every JSON document `health` writes parses, whatever the store holds: random stores with
/// extreme values (1.7e308, 1e-200, 5e-324, -0.0) written through the store's API (which, unlike
/// import, takes any finite value, as a store written before the plausible ranges may hold),
/// every JSON output read back with JSONSerialization. A non-finite result is refused with exit
/// 65 and a message, never written as `inf`. Text never prints `0.` or `-0.`.
@Suite struct JSONOutputPropertyTests {
    static let values: [Double] = [0, -0.0, 1, 0.1, 1e-200, .leastNonzeroMagnitude, 1.7e308, .greatestFiniteMagnitude, -1.5, 123.456_789,
                                   72.5, 1.8, 0.000_01, 1e15 + 0.5, 9_007_199_254_740_992, -2.5e-7]
    static let names = ["com.example.app", "bandkit.band", "ünï.çødé", "tab\there", "quote\"back\\slash", "esc\u{1B}[2J", "line\nbreak", "🚲"]
    static let types: [QuantityType] = [.stepCount, .heartRate, .height, .bodyMass, .distanceWalkingRunning]

    func randomStore(seed: UInt64) throws -> TemporaryStore {
        var random = SplitMix64(seed: seed)
        let temp = try TemporaryStore()
        let origin = at("2026-11-30T00:00:00Z")
        try temp.store.write(as: .owner) { transaction in
            for index in 0..<(4 + random.below(12)) {
                let type = random.pick(Self.types)
                let start = origin.addingTimeInterval(Double(random.below(48)) * 1800)
                let end = start.addingTimeInterval(type.aggregation == .cumulative ? Double(random.below(4)) * 900 : 0)
                let source = AppIdentity(id: random.pick(Self.names), version: random.below(2) == 0 ? "" : random.pick(Self.names))
                var metadata: [String: String] = [:]
                if random.below(3) == 0 { metadata[random.pick(Self.names)] = random.pick(Self.names) }
                let sample = QuantitySample(type: type, quantity: Quantity(random.pick(Self.values), type.canonicalUnit), start: start, end: end,
                                            device: random.below(2) == 0 ? DeviceInfo(name: random.pick(Self.names)) : nil,
                                            syncIdentifier: random.below(2) == 0 ? "s\(index)-" + random.pick(Self.names) : nil,
                                            syncVersion: Int64(random.below(3)), metadata: metadata)
                try transaction.save(sample, attributedTo: source)
            }
        }
        return temp
    }

    func parses(_ text: String) -> Bool {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])) != nil
    }

    @Test(arguments: 1...12) func everyJSONOutputOfARandomStoreParses(seed: Int) throws {
        let temp = try randomStore(seed: UInt64(seed))
        let health = HealthCommand(store: temp.path)
        let range = ["--from", "2026-11-29T00:00:00Z", "--to", "2026-12-02T00:00:00Z", "--tz", "UTC"]
        var documents: [[String]] = [["export"], ["changes", "--since", "0", "--json"], ["bmi", "--json"]]
        for type in Self.types {
            documents.append(["query", type.identifier, "--json"] + range)
            let statistics = type.aggregation == .cumulative ? ["--sum"] : ["--avg", "--min", "--max", "--latest"]
            for statistic in statistics {
                documents.append(["stats", type.identifier, statistic, "--json"] + range)
                documents.append(["stats", type.identifier, statistic, "--json", "--by", "hour", "--by-source"] + range)
            }
        }
        for arguments in documents {
            let result = try health.run(arguments)
            let what = "seed \(seed): health \(arguments.joined(separator: " "))"
            if result.code == 65 {
                // Refused, not written: a result that is not a finite number, or a BMI from an
                // implausible height or mass.
                #expect(result.error.contains("not a finite number") || arguments.first == "bmi" && result.error.hasPrefix("health bmi: "),
                        "\(what): \(result.error)")
                #expect(result.output.isEmpty, "\(what) wrote part of a document: \(result.output)")
                continue
            }
            if arguments.first == "bmi", result.code == 1 { continue }  // no height or body mass in this store
            #expect(result.code == 0, "\(what): \(result.error)")
            let lines = arguments.first == "export" ? result.output.split(separator: "\n").map(String.init) : [result.output]
            for line in lines { #expect(parses(line), "\(what) wrote invalid JSON: \(line)") }
            #expect(!result.output.contains("inf") && !result.output.contains("nan"), "\(what): \(result.output)")
        }
        // Text: never `0.` or `-0.` or a number ending in a point.
        for type in Self.types {
            for arguments in [["query", type.identifier] + range, ["stats", type.identifier, "--by", "hour"] + range] {
                let result = try health.run(arguments)
                guard result.code == 0 else { continue }
                let dangling = result.output.split(whereSeparator: { $0 == " " || $0 == "\n" }).filter {
                    $0.last == "." && $0.dropLast().allSatisfy { $0.isNumber || $0 == "-" } && $0.count > 1
                }
                #expect(dangling.isEmpty, "seed \(seed): health \(arguments.joined(separator: " ")): \(dangling)")
            }
        }
    }

    @Test func theReviewsOverflowingSumIsRefusedNotPrintedAsInf() throws {
        let temp = try TemporaryStore()
        try temp.store.write(as: .owner) { transaction in
            for minute in 0..<2 {
                try transaction.save(steps(1.7e308, "2026-11-30T08:0\(minute):00Z", "2026-11-30T08:0\(minute + 1):00Z"), attributedTo: phoneA)
            }
        }
        let result = try HealthCommand(store: temp.path).run("stats", "step-count", "--day", "2026-11-30", "--tz", "UTC", "--json")
        #expect(result.code == 65, "\(result.output)")
        #expect(result.error.contains("health stats: the sum of step-count from 2026-11-30T00:00:00Z to 2026-12-01T00:00:00Z is inf, not a finite number"),
                "\(result.error)")
        #expect(result.output.isEmpty)
    }

    @Test func aHeightOf1eMinus200IsRefusedByBMINotPrintedAsInf() throws {
        let temp = try TemporaryStore()
        try temp.store.write(as: .owner) { transaction in
            try transaction.save(QuantitySample(type: .height, quantity: Quantity(1e-200, .meter), start: at("2026-11-30T08:00:00Z"),
                                                end: at("2026-11-30T08:00:00Z")))
            try transaction.save(QuantitySample(type: .bodyMass, quantity: Quantity(70, .kilogram), start: at("2026-11-30T08:00:00Z"),
                                                end: at("2026-11-30T08:00:00Z")))
        }
        let result = try HealthCommand(store: temp.path).run("bmi", "--json")
        #expect(result.code == 65, "\(result.output)")
        #expect(result.output.isEmpty)
        #expect(result.error.contains("BMI"), "\(result.error)")
        // Its text shows the tiny height as a number, not as `0.`.
        let query = try HealthCommand(store: temp.path).run("query", "height")
        #expect(query.output.contains("  1e-200 m  "), "\(query.output)")
    }
}
