import Foundation
import HealthModel
import HealthTestSupport
import Testing
@testable import HealthStore

/// Health data is as private as keys: the store file is created 0600 whatever the path is,
/// and an existing store others may read is refused with the fix in the message.
@Suite struct StoreFileModeTests {
    final class Directory {
        let path: String
        init() throws {
            path = FileManager.default.temporaryDirectory.appendingPathComponent("storemode-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    func mode(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int ?? -1) & 0o777
    }

    func write(_ store: HealthStore) throws {
        try store.write(as: .owner) { try $0.save(steps(5, "2026-11-30T08:00:00Z", "2026-11-30T08:01:00Z"), attributedTo: phoneA) }
    }

    @Test func aStoreCreatedThroughADanglingSymlinkIsPrivate() throws {
        let directory = try Directory()
        let real = directory.path + "/real.sqlite"
        try FileManager.default.createSymbolicLink(atPath: directory.path + "/s.sqlite", withDestinationPath: real)
        let store = try HealthStore(path: directory.path + "/s.sqlite")
        try write(store)
        #expect(try mode(real) == 0o600, "the link's target was created world-readable (the review: 0644)")
        #expect(try mode(real + "-wal") == 0o600)
        #expect(try store.samples(HealthQuery(type: .stepCount), as: .owner).count == 1)
    }

    @Test func aChainOfRelativeLinksIntoAMissingDirectoryEndsAtAPrivateFile() throws {
        let directory = try Directory()
        try FileManager.default.createSymbolicLink(atPath: directory.path + "/a.sqlite", withDestinationPath: "b.sqlite")
        try FileManager.default.createSymbolicLink(atPath: directory.path + "/b.sqlite", withDestinationPath: "data/store.sqlite")
        let store = try HealthStore(path: directory.path + "/a.sqlite")
        try write(store)
        #expect(try mode(directory.path + "/data/store.sqlite") == 0o600)
        #expect(try mode(directory.path + "/data") == 0o700)
    }

    @Test func anExistingStoreOthersMayReadIsRefusedNamingTheFix() throws {
        let directory = try Directory()
        let path = directory.path + "/health.sqlite"
        _ = try HealthStore(path: path)
        for loose in [0o644, 0o640, 0o604, 0o660] {
            try FileManager.default.setAttributes([.posixPermissions: loose], ofItemAtPath: path)
            do {
                _ = try HealthStore(path: path)
                Issue.record("mode \(String(loose, radix: 8)) was accepted")
            } catch let error as HealthStoreError {
                #expect(error.description == "\(path): is accessible by group or others (mode \(String(loose, radix: 8))); health data is private: run chmod 600 \(path)")
            }
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        _ = try HealthStore(path: path)
    }

    @Test func aLinkToAnExistingLooseStoreNamesTheLinkedFile() throws {
        let directory = try Directory()
        let real = directory.path + "/real.sqlite"
        _ = try HealthStore(path: real)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: real)
        try FileManager.default.createSymbolicLink(atPath: directory.path + "/s.sqlite", withDestinationPath: real)
        #expect {
            _ = try HealthStore(path: directory.path + "/s.sqlite")
        } throws: { error in
            "\(error)".contains("run chmod 600 \(real) (the file \(directory.path)/s.sqlite links to)")
        }
    }

    @Test func aLooseWriteAheadLogIsRefusedToo() throws {
        let directory = try Directory()
        let path = directory.path + "/health.sqlite"
        let store = try HealthStore(path: path)
        try write(store)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path + "-wal")
        #expect { _ = try HealthStore(path: path) } throws: { "\($0)".contains("\(path)-wal: is accessible by group or others") }
    }
}
