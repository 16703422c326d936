import BandFirmware
import BandLink
@testable import BandReader
import Foundation
import HealthModel
import HealthStore
import Testing

/// `band pair --person NAME`: the keystore entry names the person, and sync writes as them.
@Suite(.serialized) struct BandPersonTests {
    @Test func aBandPairedForAPersonSyncsItsHistoryAsThatPerson() throws {
        let fixture = try ReaderFixture(ReaderAgainstSimulatedBandTests.configuration())
        let household = try fixture.openStore()
        try household.addPerson(named: "ana")
        let pairing = fixture.service()
        pairing.person = "ana"
        let paired = try #require(try pairing.pair())
        #expect(paired.person == "ana")
        #expect(try fixture.keystore.band("sim:/harness")?.person == "ana")
        // The band's clock stands still from here, so its truth is exactly what one sync can
        // fetch (under load, a running band closes more minutes after the sync's last read).
        fixture.harness.pause()

        let synced = try fixture.service().sync()
        #expect(synced.historyMinutes >= 1440)
        let ana = try HealthStore(path: fixture.storePath, person: "ana")
        let check = try TruthCheck(truth: fixture.harness.truth, store: ana)
        #expect(check.problems == [])
        #expect(check.minutesCompared > 0)
        // The default person got nothing of it.
        for type in [QuantityType.stepCount, .heartRate] {
            #expect(try household.samples(HealthQuery(type: type, limit: 1), as: .owner).isEmpty, "\(type)")
        }
    }

    @Test func aBandPairedForAPersonTheStoreLacksFailsToSyncNamingThem() throws {
        let fixture = try ReaderFixture(ReaderAgainstSimulatedBandTests.configuration())
        let pairing = fixture.service()
        pairing.person = "nobody"
        _ = try #require(try pairing.pair())
        #expect {
            _ = try fixture.service().sync(attempts: 1)
        } throws: { error in
            "\(error)".contains("nobody")
        }
    }

    func entry(person: String?) -> PairedBand {
        PairedBand(address: "AA:BB:CC:DD:EE:FF", readerID: 1, key: [UInt8](repeating: 0xA5, count: 16),
                   device: BandDeviceInfo(name: "Band", manufacturer: "BandKit", model: "B1", serialNumber: "SN1"),
                   pairedAt: Date(timeIntervalSince1970: 1_796_032_800), person: person)
    }

    @Test func theKeystoreHoldsThePersonOnlyWhenOneWasNamed() throws {
        let withoutPerson = String(decoding: try Keystore.encode([entry(person: nil)], path: "k"), as: UTF8.self)
        #expect(!withoutPerson.contains("person"), "an entry for the default person is written as before people existed")
        #expect(try Keystore.decode(Data(withoutPerson.utf8), path: "k").first?.person == nil)
        let withPerson = try Keystore.encode([entry(person: "Ana María")], path: "k")
        #expect(try Keystore.decode(withPerson, path: "k") == [entry(person: "Ana María")])
        // A name no person can have is a damaged keystore, not a name passed on to terminals.
        let hostile = String(decoding: withPerson, as: UTF8.self).replacingOccurrences(of: "Ana María", with: "x\\u001b[2J")
        #expect(throws: KeystoreError.self) { try Keystore.decode(Data(hostile.utf8), path: "k") }
    }
}
