import Foundation
import HealthModel
import HealthStore
import HealthStorePostgreSQL

/// A fresh store for one test, removed when the test ends: a file in a fresh temporary
/// directory, or, when `BANDKIT_TEST_POSTGRES_URL` names a PostgreSQL database
/// (Tests/checks/postgres.sh sets it), a fresh schema in that database (`path` is then the URL
/// selecting that schema). The directory exists either way, for the files a test writes.
public final class TemporaryStore {
    public let directory: String
    public let path: String
    public let store: HealthStore
    private let schema: String?

    /// The PostgreSQL database the store tests run against, or nil for SQLite files.
    /// Reading it first registers the PostgreSQL engine, so that the store suites open URLs.
    public static let postgresURL: String? = {
        guard let url = ProcessInfo.processInfo.environment["BANDKIT_TEST_POSTGRES_URL"], !url.isEmpty else { return nil }
        HealthStore.enablePostgreSQL()
        return url
    }()

    /// Whether the tests run on PostgreSQL: tests of SQLite's files and internals skip then.
    public static var usesPostgreSQL: Bool { postgresURL != nil }

    public init() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("healthstore-test-\(UUID().uuidString)").path
        if let url = Self.postgresURL {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let name = "test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
            try Self.psql(url, "CREATE SCHEMA \(name)")
            schema = name
            path = Self.url(url, schema: name)
        } else {
            schema = nil
            path = directory + "/health.sqlite"
        }
        store = try HealthStore(path: path)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: directory)
        if let schema, let url = Self.postgresURL { try? Self.psql(url, "DROP SCHEMA \(schema) CASCADE") }
    }

    /// `url` with its sessions' search path set to `schema` (libpq's `options` parameter).
    public static func url(_ url: String, schema: String) -> String {
        url + (url.contains("?") ? "&" : "?") + "options=-csearch_path%3D" + schema
    }

    /// Runs one SQL command with `psql` (schemas are made outside the code under test).
    public static func psql(_ url: String, _ command: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["psql", "--no-psqlrc", "--quiet", "--set=ON_ERROR_STOP=1", "--dbname=" + url, "--command=" + command]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "psql \(command) failed (\(process.terminationStatus))"])
        }
    }
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
