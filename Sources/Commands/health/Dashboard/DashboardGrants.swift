import Foundation
import HealthModel
import HealthStore

/// What the dashboard may not read yet, and the commands that allow it: a first run shows "not
/// allowed" on every row, and both the page and `health serve`'s start line say what to run.
enum DashboardGrants {
    /// Every type the dashboard shows, in the page's order.
    static let types: [SampleType] = [.quantity(.stepCount), .quantity(.distanceWalkingRunning), .quantity(.activeEnergyBurned),
                                      .quantity(.heartRate), .category(.sleepAnalysis), .workout]

    static func missing(_ store: HealthStore) throws -> [SampleType] {
        try types.filter { try !DashboardSummary.allowed(store, $0) }
    }

    /// `health grant bandkit.dashboard TYPE --read [--person NAME]`, one per type.
    static func commands(_ missing: [SampleType], person: String?) -> [String] {
        let suffix = person.map { " --person " + shellWord($0) } ?? ""
        return missing.map { "health grant \(DashboardSummary.app.id) \($0.identifier) --read\(suffix)" }
    }

    /// `name` as one shell word: as it is when plain, else in single quotes.
    static func shellWord(_ name: String) -> String {
        let plain = !name.isEmpty && name.unicodeScalars.allSatisfy { ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "._-".unicodeScalars.contains($0)) && $0.isASCII }
        return plain ? name : "'" + name.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}
