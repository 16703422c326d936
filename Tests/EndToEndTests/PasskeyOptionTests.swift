import Foundation
import Testing

/// `band pair --passkey` as a user runs it: the option's contract,
/// and that a BandKit band (no link security on the socket link) still pairs with it given. The
/// passkey conversation is in SocketPasskeyPairingTests (the socket link's SMP) and
/// BandBlueZTests' PasskeyPairingTests (the kernel's, scripted).
@Suite(.serialized, .enabled(if: Commands.available, "needs bandsim, band and health built (swift build)"))
struct PasskeyOptionTests {
    @Test(arguments: ["12345", "1234567", "12a456", "-12345", "123 456"])
    func aPasskeyThatIsNotSixDigitsIsAUsageErrorNamingTheOption(_ text: String) throws {
        let world = try DemoWorld()
        let pair = try world.band(["pair", world.address, "--passkey", text])
        #expect(pair.status == 64)
        #expect(pair.stderr.contains("--passkey must be the six digits the device shows"), "\(pair.stderr)")
    }

    @Test func aBandKitBandStillPairsWithAPasskeyGivenAndLeadingZerosAreDigits() throws {
        let world = try DemoWorld()
        try world.startBand(["--start", "2026-11-30T07:20:00Z", "--speed", "600", "--history-days", "0", "--seed", "3"])
        let pair = try world.band(["pair", world.address, "--passkey", "012345"])
        world.stopBand()
        #expect(pair.status == 0, "\(pair.stderr)")
        #expect(pair.stdout.contains("paired"))
    }
}

/// `band pair` against a device that is not a BandKit band: a bond-only keystore entry, reused
/// by the next stream (such a device has no BandKit key, only a link bond).
@Suite(.serialized, .enabled(if: Commands.available, "needs bandsim, band and health built (swift build)"))
struct BondOnlyPairingTests {
    @Test func anInfiniTimeWatchPairsBondOnlyAndTheNextStreamUsesTheEntry() throws {
        let world = try DemoWorld()
        try world.startPeer("infinitime", ["--seed", "5", "--passkey", "135790"])
        let pair = try world.band(["pair", world.address, "--json", "--passkey", "135790"])
        #expect(pair.status == 0, "\(pair.stderr)")
        let line = try #require(pair.stdout.split(separator: "\n").last.map(String.init))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["event"] as? String == "paired_band")
        #expect(object["kind"] as? String == "infinitime")
        #expect(object["bond_only"] as? Bool == true)
        #expect(!pair.stdout.contains("\"event\":\"paired\""), "no BandKit key exchange ran")
        let devices = try world.band(["devices", "--json"])
        #expect(devices.status == 0, "\(devices.stderr)")
        #expect(devices.stdout.contains(world.address))
        let stream = try world.band(["stream", world.address, "--for", "3s", "--json", "--store", world.store])
        #expect(stream.status == 0, "\(stream.stderr)")
        #expect(!stream.stdout.contains("\"event\":\"authenticated\""))
        #expect(stream.stdout.contains("\"kind\":\"hr\""))
        world.stopBand()
    }
}
