import Foundation
import HealthModel
import HealthStore

/// A store in a fresh temporary directory, removed when the test ends.
public final class TemporaryStore {
    public let directory: String
    public let path: String
    public let store: HealthStore

    public init() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("healthstore-test-\(UUID().uuidString)").path
        path = directory + "/health.sqlite"
        store = try HealthStore(path: path)
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }
}

/// An instant written as ISO 8601 with an offset: `at("2026-03-29T01:30:00+01:00")`.
public func at(_ text: String) -> Date {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime]
    guard let date = formatter.date(from: text) else { fatalError("bad test date \(text)") }
    return date
}

public func zone(_ identifier: String) -> TimeZone { TimeZone(identifier: identifier)! }

public let band = AppIdentity(id: "bandkit.band", version: "0.1")
public let watch = AppIdentity(id: "com.example.watch", version: "2.0")
public let phoneA = AppIdentity(id: "com.example.phone-a", version: "1.0")
public let phoneB = AppIdentity(id: "com.example.phone-b", version: "1.0")

public func steps(_ count: Double, _ from: String, _ to: String, syncID: String? = nil, version: Int64 = 0,
           device: DeviceInfo? = nil) -> QuantitySample {
    QuantitySample(type: .stepCount, quantity: Quantity(count, .count), start: at(from), end: at(to),
                   device: device, syncIdentifier: syncID, syncVersion: version)
}

extension HealthStore {
    /// Grants `app` read and write for `types`, as `health grant` would.
    public func allow(_ app: AppIdentity, _ types: [SampleType], read: Bool = true) throws {
        for type in types {
            try setAuthorization(app: app.id, type: type.identifier, access: .write, granted: true)
            if read { try setAuthorization(app: app.id, type: type.identifier, access: .read, granted: true) }
        }
    }
}
