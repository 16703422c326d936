import Foundation
import Testing

/// Concurrent `band pair` / `band forget` into one keystore: every change must survive. Without
/// the keystore's lock, 4 pairings at once kept 15 of 24 keys over 6 rounds (each
/// process loaded the old file, added its key and renamed over the others').
@Suite(.serialized, .enabled(if: Commands.available, "needs bandsim, band and health built (swift build)"))
struct KeystoreConcurrencyTests {
    static let bandStart = "2026-11-30T07:00:00Z"

    /// Addresses listed by `band devices --json`.
    func pairedAddresses(_ keystore: String) throws -> Set<String> {
        let (status, stdout, stderr) = try RunningCommand.run("band", ["devices", "--keystore", keystore, "--json"])
        guard status == 0 else { throw WorldError("band devices failed (\(status)): \(stderr)") }
        var out: Set<String> = []
        for line in stdout.split(separator: "\n") {
            if let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
               let address = object["address"] as? String { out.insert(address) }
        }
        return out
    }

    @Test func fourBandsPairedAtOnceAllKeepTheirKeys() throws {
        let world = try DemoWorld()
        var bands: [RunningCommand] = []
        defer { for band in bands { band.signal(SIGTERM); band.wait(timeout: .seconds(10)) } }
        var addresses: [String] = []
        for index in 0..<4 {
            let socket = world.directory + "/band\(index).sock"
            bands.append(try world.start("bandsim", ["serve", "--socket", socket, "--start", Self.bandStart, "--seed", "\(index + 1)",
                                                     "--deterministic-secrets"]))
            addresses.append("sim:" + socket)
        }
        let deadline = ContinuousClock.now.advanced(by: .seconds(60))
        while !addresses.allSatisfy({ FileManager.default.fileExists(atPath: String($0.dropFirst(4))) }), ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.02)
        }
        for round in 0..<3 {
            let keystore = world.directory + "/round\(round)/keys.json"
            let pairs = try addresses.map { try RunningCommand("band", ["pair", $0, "--keystore", keystore]) }
            for pair in pairs {
                #expect(pair.wait(timeout: .seconds(120)) == 0, "\(pair.arguments): \(pair.stderr)")
            }
            #expect(try pairedAddresses(keystore) == Set(addresses), "round \(round): every pairing that said stored is stored")
        }
    }

    @Test func twentyForgetsAtOnceRemoveEveryBand() throws {
        let world = try DemoWorld()
        let keystore = world.directory + "/config/keys.json"
        try FileManager.default.createDirectory(atPath: world.directory + "/config", withIntermediateDirectories: true)
        let addresses = (0..<20).map { String(format: "00:AA:01:00:00:%02X", $0) }
        for round in 0..<3 {
            let entries = addresses.map { address in
                """
                {"address":"\(address)","reader_id":"1","key":"00112233445566778899aabbccddeeff",\
                "device":{"name":"Band"},"paired_at":"2026-11-30T07:00:00Z"}
                """
            }
            try Data("{\"version\":1,\"bands\":[\(entries.joined(separator: ","))]}".utf8).write(to: URL(fileURLWithPath: keystore))
            chmod(keystore, 0o600)
            #expect(try pairedAddresses(keystore).count == addresses.count)
            let forgets = try addresses.map { try RunningCommand("band", ["forget", $0, "--keystore", keystore]) }
            for forget in forgets {
                #expect(forget.wait(timeout: .seconds(60)) == 0, "\(forget.arguments): \(forget.stderr)")
            }
            #expect(try pairedAddresses(keystore).sorted() == [], "round \(round): a forgotten band came back")
        }
    }
}
