import Foundation
import Testing

/// A strap paired (bonded) once, then read across a reader that disconnects and a strap that
/// restarts: every connection after the first encrypts with the bond, none pairs again, and every
/// reading the reader received is in the store (readings of one minute from several connections
/// all end up in it).
@Suite(.serialized, .enabled(if: Commands.available, "needs bandsim, band and health built (swift build)"))
struct StrapBondedReconnectTests {
    @Test func aBondedStrapReconnectsWithItsBondAndNoReadingIsLost() throws {
        let world = try DemoWorld()
        // Real time: a strap has no clock, so the reader files readings by the host's minute.
        try world.startPeer("hr-strap", ["--seed", "7", "--speed", "1", "--reboot-at", "22s"])
        let pair = try world.band(["pair", world.address])
        #expect(pair.status == 0, "\(pair.stderr)")
        #expect(pair.stdout.contains("bond only"), "\(pair.stdout)")

        // The reader disconnects (the first stream ends), then a second stream spans the strap's restart.
        let first = try world.band(["stream", world.address, "--for", "6s", "--json", "--store", world.store])
        let second = try world.band(["stream", world.address, "--for", "30s", "--json", "--store", world.store])
        let strap = try #require(world.band)
        world.stopBand()
        #expect(first.status == 0, "\(first.stderr)")
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout.contains("\"event\":\"reconnecting\""), "the strap's restart dropped the link: \(second.stdout)")

        let log = strap.stderr
        #expect(log.contains("connection ended (the device rebooted)"), "\(log)")
        #expect(log.components(separatedBy: "pairing: bonded").count == 2, "paired exactly once: \(log)")
        #expect(log.components(separatedBy: "link encrypted with a stored bond").count - 1 >= 3,
                "the first stream, the second and its reconnect all used the bond: \(log)")
        #expect(!log.contains("link security failed"), "\(log)")

        // Every reading received is stored: with contact in bandkit.hr.count, without in bandkit.hr.nocontact.
        var withContact = 0, withoutContact = 0
        for line in (first.stdout + second.stdout).split(separator: "\n") {
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  object["event"] as? String == "reading", object["kind"] as? String == "hr",
                  let bpm = (object["heart_rate"] as? NSNumber)?.intValue, bpm > 0 else { continue }
            if object["sensor_contact"] as? Bool == false { withoutContact += 1 } else { withContact += 1 }
        }
        let rates = try world.storedSamples().filter { $0.type == "heart-rate" }
        let storedWith = rates.compactMap { $0.metadata["bandkit.hr.count"].flatMap(Int.init) }.reduce(0, +)
        let storedWithout = rates.compactMap { $0.metadata["bandkit.hr.nocontact"].flatMap(Int.init) }.reduce(0, +)
        #expect(withContact >= 20, "readings on both sides of the restart: \(withContact)")
        #expect(storedWith == withContact, "received \(withContact) readings with contact, stored \(storedWith): \(rates.map(\.metadata))")
        #expect(storedWithout == withoutContact, "received \(withoutContact) without contact, counted \(storedWithout)")
    }
}
