import Foundation
import Testing

/// `band pair --passkey` (issue 13 "What to build" 3) as a user runs it. The socket link has no
/// SMP, so these check the option's contract and that a BandKit band still pairs with it given;
/// the passkey conversation itself is in BandBlueZTests' PasskeyPairingTests.
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
