import Foundation
import HealthModel
import Testing
@testable import HealthStore

/// A program that never linked the PostgreSQL engine (module HealthStorePostgreSQL) still reads
/// `postgresql://` as a database, not as a file of that name, and opening it says what is missing
/// without showing the password. Opened here with no engine given, whatever the process registered.
@Suite struct NoPostgreSQLEngineTests {
    static let url = "postgresql://ann:s3cret@db.example/health?password=t0psecret"

    @Test func aPostgreSQLURLIsStillADatabaseNotAFileName() throws {
        #expect(try StoreLocation.parse(Self.url, connectionInfoProblem: nil) == .postgresql(url: Self.url))
        #expect(try StoreLocation.parse("/var/lib/health.sqlite", connectionInfoProblem: nil) == .file("/var/lib/health.sqlite"))
    }

    @Test(arguments: [false, true])
    func openingOneSaysTheBuildHasNoPostgreSQLEngine(readOnly: Bool) throws {
        let directory = FileManager.default.currentDirectoryPath
        let error = try #require(throws: HealthStoreError.self) {
            try HealthStore(path: Self.url, cacheKiB: HealthStore.defaultCacheKiB, readOnly: readOnly, person: nil, postgreSQL: nil)
        }
        guard case .file(let path, let reason) = error else { Issue.record("\(error)"); return }
        #expect(path == "postgresql://ann:***@db.example/health?password=***")
        #expect(reason.hasPrefix("this build has no PostgreSQL engine: "), "\(reason)")
        #expect(reason.contains("HealthStore.enablePostgreSQL()"), "\(reason)")
        #expect(!error.description.contains("s3cret") && !error.description.contains("t0psecret"), "\(error)")
        // Nothing was created in the working directory under the URL's name.
        #expect(!FileManager.default.fileExists(atPath: directory + "/postgresql:"))
    }
}
