import BandKitSystem
import BandLink
@testable import BandReader
import Foundation
import Synchronization
import Testing

@Suite struct KeystoreTests {
    func temporaryDirectory() -> String {
        let path = NSTemporaryDirectory() + "bandkit-keystore-\(UUID().uuidString)"
        return path
    }

    func band(_ address: String, key: UInt8 = 0xA5) -> PairedBand {
        PairedBand(address: address, readerID: 0x0102_0304_0506_0708, key: [UInt8](repeating: key, count: 16),
                   device: BandDeviceInfo(name: "Band", manufacturer: "BandKit", model: "B1", serialNumber: "SN1"),
                   pairedAt: Date(timeIntervalSince1970: 1_796_032_800))
    }

    @Test func defaultPathFollowsXDGConfigHome() {
        #expect(Keystore.defaultPath(environment: ["XDG_CONFIG_HOME": "/x/cfg", "HOME": "/home/u"]) == "/x/cfg/bandkit/keys.json")
        #expect(Keystore.defaultPath(environment: ["HOME": "/home/u"]) == "/home/u/.config/bandkit/keys.json")
        #expect(Keystore.defaultPath(environment: ["XDG_CONFIG_HOME": "relative", "HOME": "/home/u"]) == "/home/u/.config/bandkit/keys.json")
    }

    @Test func savedBandRoundTripsAndTheFileIsMode0600() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = Keystore(path: directory + "/bandkit/keys.json")
        try store.save(band("AA:BB:CC:DD:EE:FF"))
        #expect(try store.load() == [band("AA:BB:CC:DD:EE:FF")])
        let attributes = try FileManager.default.attributesOfItem(atPath: store.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let directoryAttributes = try FileManager.default.attributesOfItem(atPath: directory + "/bandkit")
        #expect((directoryAttributes[.posixPermissions] as? Int) == 0o700)
    }

    /// An InfiniTime watch paired with its passkey has no BandKit key: its entry is a bond only.
    @Test func aBondOnlyEntryRoundTripsAndAnEmptyKeyForABandKitBandIsRefused() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = Keystore(path: directory + "/bandkit/keys.json")
        let watch = PairedBand(address: "AA:BB:CC:DD:EE:01/random", readerID: 0, key: [],
                               device: BandDeviceInfo(name: "InfiniTime", manufacturer: "PINE64", model: "PineTime", serialNumber: ""),
                               pairedAt: Date(timeIntervalSince1970: 1_796_032_800), kind: .infinitime)
        try store.save(watch)
        #expect(try store.load() == [watch])
        #expect(try store.band(watch.address)?.isBondOnly == true)
        #expect(!band("AA:BB:CC:DD:EE:FF").isBondOnly)
        let text = try String(contentsOfFile: store.path, encoding: .utf8)
        #expect(text.contains("\"infinitime\""))
        try text.replacingOccurrences(of: "\"infinitime\"", with: "\"bandkit\"").write(toFile: store.path, atomically: true, encoding: .utf8)
        #expect(throws: KeystoreError.self) { try store.load() }
    }

    @Test func savingAgainReplacesTheEntryForThatAddress() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = Keystore(path: directory + "/keys.json")
        try store.save(band("AA:BB:CC:DD:EE:FF", key: 1))
        try store.save(band("sim:/tmp/b.sock", key: 2))
        try store.save(band("AA:BB:CC:DD:EE:FF", key: 3))
        let bands = try store.load()
        #expect(bands.map(\.address) == ["AA:BB:CC:DD:EE:FF", "sim:/tmp/b.sock"])
        #expect(bands.first?.key.first == 3)
    }

    @Test func forgetRemovesOnlyThatBand() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = Keystore(path: directory + "/keys.json")
        try store.save(band("AA:BB:CC:DD:EE:FF"))
        try store.save(band("sim:/tmp/b.sock"))
        #expect(try store.remove("AA:BB:CC:DD:EE:FF"))
        #expect(try store.remove("AA:BB:CC:DD:EE:FF") == false)
        #expect(try store.load().map(\.address) == ["sim:/tmp/b.sock"])
    }

    @Test func missingFileIsAnEmptyKeystore() throws {
        #expect(try Keystore(path: temporaryDirectory() + "/keys.json").load() == [])
    }

    @Test func worldReadableKeystoreIsRefused() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = Keystore(path: directory + "/keys.json")
        try store.save(band("AA:BB:CC:DD:EE:FF"))
        chmod(store.path, 0o644)
        #expect(throws: KeystoreError.self) { try store.load() }
    }

    @Test func corruptKeystoreIsReportedNotOverwritten() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/keys.json"
        #expect(FileManager.default.createFile(atPath: path, contents: Data("{not json".utf8), attributes: [.posixPermissions: 0o600]))
        let store = Keystore(path: path)
        #expect(throws: KeystoreError.self) { try store.load() }
        #expect(throws: KeystoreError.self) { try store.save(band("AA:BB:CC:DD:EE:FF")) }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "{not json")
    }

    @Test func theFileHoldsHexKeysAndWholeSecondUTCTimesAndReadsThemBack() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = Keystore(path: directory + "/keys.json")
        #expect(store.directory == directory)
        var paired = band("AA:BB:CC:DD:EE:FF", key: 0x0F)
        paired.pairedAt = Date(timeIntervalSince1970: 1_796_032_800.75)
        try store.save(paired)
        let text = try String(contentsOfFile: store.path, encoding: .utf8)
        #expect(text.contains(#""paired_at" : "2026-11-30T10:00:00Z""#), "\(text)")
        #expect(text.contains(#""key" : "0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f""#), "\(text)")
        #expect(try store.load().first?.pairedAt == Date(timeIntervalSince1970: 1_796_032_800))
    }

    @Test func aKeystoreWrittenWithAnOffsetOrFractionStillLoads() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/keys.json"
        let file = #"{"version":1,"bands":[{"address":"sim:/b","reader_id":"1","key":"a5a5","paired_at":"2026-11-30T11:00:00.500+01:00","#
            + #""device":{}}]}"#
        #expect(FileManager.default.createFile(atPath: path, contents: Data(file.utf8), attributes: [.posixPermissions: 0o600]))
        #expect(try Keystore(path: path).load().first?.pairedAt == Date(timeIntervalSince1970: 1_796_032_800.5))
    }

    @Test func anEntryWithoutAKindIsABandKitBandAndAKindRoundTrips() throws {
        let written = #"{"version":1,"bands":[{"address":"AA:BB:CC:DD:EE:FF","reader_id":"1","key":"a5a5","device":{},"paired_at":"2026-11-30T10:00:00Z"}]}"#
        #expect(try Keystore.decode(Data(written.utf8), path: "keys.json").map(\.kind) == [.bandkit])
        var watch = band("C0:00:00:00:00:01")
        watch.kind = .infinitime
        let data = try Keystore.encode([watch], path: "keys.json")
        #expect(String(decoding: data, as: UTF8.self).contains(#""kind" : "infinitime""#))
        #expect(try Keystore.decode(data, path: "keys.json") == [watch])
        let unknown = written.replacingOccurrences(of: #""device":{}"#, with: #""device":{},"kind":"toaster""#)
        #expect(throws: KeystoreError.self) { try Keystore.decode(Data(unknown.utf8), path: "keys.json") }
    }
}

/// The keystore writes through the one atomic-write helper, so its rename is made durable by an
/// fsync of the directory (it was not: a power cut could lose a pairing reported as stored).
@Suite struct KeystoreDurabilityTests {
    @Test func savingFsyncsTheFileThenRenamesThenFsyncsTheDirectory() throws {
        let directory = NSTemporaryDirectory() + "bandkit-keystore-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        final class Log: Sendable { let entries = Mutex<[String]>([]) }
        let log = Log()
        var calls = SystemCalls.live
        let live = SystemCalls.live
        calls.fsync = { fd in
            var status = stat()
            _ = fstat(fd, &status)
            log.entries.withLock { $0.append(status.st_mode & S_IFMT == S_IFDIR ? "fsync directory" : "fsync file") }
            return live.fsync(fd)
        }
        calls.rename = { from, to in
            log.entries.withLock { $0.append("rename") }
            return live.rename(from, to)
        }
        let keystore = Keystore(path: directory + "/keys.json", system: calls)
        try keystore.save(PairedBand(address: "sim:/b", readerID: 1, key: [1, 2, 3, 4], device: BandDeviceInfo(name: "Band"),
                                     pairedAt: Date(timeIntervalSince1970: 1_796_032_800)))
        #expect(log.entries.withLock { $0 } == ["fsync file", "rename", "fsync directory"])
        #expect(try keystore.load().map(\.address) == ["sim:/b"])
    }
}

