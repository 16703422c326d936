import BandLink
import BandReader
import Foundation
import HealthModel
import HealthStore
import Testing

/// Any standard heart-rate strap works: no activity service means no pairing and no history,
/// and `band stream` stores heart rate (and RR as HRV) only.
@Suite struct HeartRateStrapTests {
    @Test func strapWithoutActivityServiceStreamsAndStoresHeartRateOnly() throws {
        let strap = try HeartRateStrap()
        defer { strap.stop() }
        let directory = NSTemporaryDirectory() + "bandkit-strap-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let storePath = directory + "/health.sqlite"
        var events: [ReaderEvent] = []
        let service = BandReaderService(address: try BandAddress(parsing: "C0:FF:EE:00:00:01"),
                                        keystore: Keystore(path: directory + "/keys.json"), storePath: storePath,
                                        stop: StopRequest(), openLink: { _ in strap.link }, report: { events.append($0) })
        let outcome = try service.stream(until: ContinuousClock.now.advanced(by: .milliseconds(800)))
        #expect(outcome.historyMinutes == 0)
        #expect(outcome.liveMinutes >= 1)
        #expect(outcome.device.manufacturer == "Strapworks")
        #expect(events.contains { if case .connected(_, .heartRateStrap) = $0 { true } else { false } })
        #expect(!events.contains { if case .authenticated = $0 { true } else { false } })

        let store = try HealthStore(path: storePath)
        let heartRates = try store.samples(HealthQuery(type: .heartRate), as: .owner).compactMap(\.quantitySample)
        #expect(!heartRates.isEmpty)
        #expect(heartRates.allSatisfy { $0.quantity.value == Double(HeartRateStrap.beatsPerMinute) && $0.source?.id == "bandkit.band" })
        #expect(heartRates.allSatisfy { $0.device?.manufacturer == "Strapworks" && $0.syncIdentifier?.hasPrefix("Strapworks/S-1|") == true })
        let hrv = try store.samples(HealthQuery(type: .heartRateVariabilitySDNN), as: .owner).compactMap(\.quantitySample)
        #expect(hrv.allSatisfy { $0.quantity.value == 0 && $0.metadata["bandkit.rr.ms"]?.hasPrefix("937.5,937.5") == true })
        #expect(try store.samples(HealthQuery(type: .stepCount), as: .owner).isEmpty)
        let readings = events.compactMap { event -> LiveReading? in if case .reading(let r) = event { r } else { nil } }
        #expect(readings.count >= 20)
        #expect(readings.allSatisfy { $0.heartRate == 64 && $0.rrMilliseconds == [937.5] })
    }

    @Test func syncingAStrapSaysItKeepsNoHistory() throws {
        let strap = try HeartRateStrap()
        defer { strap.stop() }
        let directory = NSTemporaryDirectory() + "bandkit-strap-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let service = BandReaderService(address: try BandAddress(parsing: "C0:FF:EE:00:00:01"),
                                        keystore: Keystore(path: directory + "/keys.json"), storePath: directory + "/health.sqlite",
                                        stop: StopRequest(), openLink: { _ in strap.link }, report: { _ in })
        do {
            _ = try service.sync()
            Issue.record("a strap synced history")
        } catch {
            guard case .notABand = error else { Issue.record("got \(error)"); return }
        }
    }
}
