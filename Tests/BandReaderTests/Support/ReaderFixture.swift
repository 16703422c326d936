import BandFirmware
import BandLink
import BandReader
import Foundation
import HealthModel
import HealthStore
import Synchronization

/// A reader wired to a ``SimulatedBandHarness``: temporary keystore and store, the harness's
/// clock, and every event kept for the test to inspect.
final class ReaderFixture: @unchecked Sendable {
    let harness: SimulatedBandHarness
    let directory: String
    let keystore: Keystore
    let storePath: String
    private let lock = NSLock()
    private var eventList: [ReaderEvent] = []

    init(_ configuration: BandConfiguration, tickPeriod: Duration = .microseconds(500)) throws {
        harness = try SimulatedBandHarness(configuration, tickPeriod: tickPeriod)
        directory = NSTemporaryDirectory() + "bandkit-e2e-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        keystore = Keystore(path: directory + "/config/bandkit/keys.json")
        storePath = directory + "/health.sqlite"
        harness.start()
    }

    deinit {
        harness.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// A fresh service, as one run of the `band` command. `observe` sees each event as the
    /// session reports it, on the session's thread (a test can act at that exact step).
    func service(stop: StopRequest = StopRequest(), timeZone: TimeZone = TimeZone(identifier: "UTC")!,
                 observe: ((ReaderEvent) -> Void)? = nil) -> BandReaderService {
        let harness = self.harness
        let service = BandReaderService(address: .simulator(path: "/harness"), keystore: keystore, storePath: storePath, stop: stop,
                                        openLink: { _ in try harness.openLink() },
                                        report: { [unowned self] event in
                                            lock.lock()
                                            eventList.append(event)
                                            lock.unlock()
                                            observe?(event)
                                        })
        service.now = { harness.now }
        service.timeZone = timeZone
        service.backoff = ReconnectBackoff(initial: .milliseconds(5), maximum: .milliseconds(40), jitter: 0.5)
        service.transactionTimeout = .seconds(5)
        // The band runs 2000× real time: a loaded machine's 5 ms between the reader reading the
        // band's clock and its write arriving is 10 band seconds, which the 2 s tolerance would
        // "correct" by setting the band's clock back, so the band would record the same minutes
        // again (stored whole, docs/protocol.md "A minute recorded twice", but noise in tests about
        // other things). Tests of clock setting use a zone change or a drift far beyond this tolerance.
        service.clockTolerance = .seconds(60)
        return service
    }

    var events: [ReaderEvent] {
        lock.lock()
        defer { lock.unlock() }
        return eventList
    }

    func openStore() throws -> HealthStore { try HealthStore(path: storePath) }
}

extension ReaderFixture {
    /// Lets the band run until it has recorded every minute the reader stored provisionally (the
    /// reader stamps heart rate with an extrapolated band clock, which under a loaded test
    /// machine may run a little ahead of the simulation), plus two more, then stops the band's
    /// clock and syncs, so the store can be compared with a truth that covers everything.
    func settleAndSync() throws {
        let store = try openStore()
        var latest = harness.now
        for type in [QuantityType.stepCount, .heartRate] {
            for sample in try store.samples(HealthQuery(type: type), as: .owner).compactMap(\.quantitySample)
            where sample.metadata["bandkit.origin"] == "live" && sample.end > latest {
                latest = sample.end
            }
        }
        let target = latest.addingTimeInterval(120)
        _ = harness.waitUntil(timeout: .seconds(60)) { band in Double(band.trueTime.seconds) >= target.timeIntervalSince1970 }
        harness.pause()
        _ = try service().sync(attempts: 50)
    }
}
