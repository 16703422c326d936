import BandLink
import BandReader
import Foundation
import HealthModel
import HealthStore
import Synchronization
import Testing

/// Over a link: a strap's readings survive a reconnect and a reader restart
/// within one minute (store = everything received), and a vanished adapter is said as such and
/// ends the run without its link.
@Suite struct StrapReconnectTests {
    /// The reader's clock: 10 s into a minute, moving with real time, so every run of the test
    /// stays inside that one minute.
    static func minuteClock() -> () -> Date {
        let origin = ContinuousClock.now
        let start = Date(timeIntervalSince1970: 1_796_032_810)
        return {
            let elapsed = ContinuousClock.now - origin
            return start.addingTimeInterval(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        }
    }

    final class Events: @unchecked Sendable {
        private let lock = NSLock()
        private var list: [ReaderEvent] = []
        func append(_ event: ReaderEvent) { lock.withLock { list.append(event) } }
        var all: [ReaderEvent] { lock.withLock { list } }
        /// Heart-rate readings the reader received and used (a rate, with or without contact).
        var heartRateReadings: Int {
            all.filter { if case .reading(let r) = $0, r.kind == "hr", r.heartRate != nil { true } else { false } }.count
        }
    }

    func service(_ directory: String, events: Events, now: @escaping () -> Date, openLink: @escaping BandReaderService.LinkOpener) throws -> BandReaderService {
        let service = BandReaderService(address: try BandAddress(parsing: "C0:FF:EE:00:00:01"),
                                        keystore: Keystore(path: directory + "/keys.json"), storePath: directory + "/health.sqlite",
                                        stop: StopRequest(), openLink: openLink, report: events.append)
        service.now = now
        service.backoff = ReconnectBackoff(initial: .milliseconds(20), maximum: .milliseconds(40), jitter: 0)
        return service
    }

    func storedHeartRateReadings(_ directory: String) throws -> (readings: Int, samples: Int) {
        let store = try HealthStore(path: directory + "/health.sqlite")
        let samples = try store.samples(HealthQuery(type: .heartRate), as: .owner).compactMap(\.quantitySample)
        return (samples.reduce(0) { $0 + (Int($1.metadata["bandkit.hr.count"] ?? "") ?? 0) }, samples.count)
    }

    @Test func aLinkDropWithinTheMinuteLosesNoReading() throws {
        let directory = TemporaryStoreDirectory()
        let first = try HeartRateStrap()
        let second = try HeartRateStrap()
        defer {
            first.stop()
            second.stop()
        }
        let opened = Atomic<Int>(0)
        let events = Events()
        let service = try service(directory.path, events: events, now: Self.minuteClock()) { _ in
            // The first link is lost after 60 PDUs (discovery, then notifications); the reader
            // reconnects to the strap.
            if opened.add(1, ordering: .relaxed).oldValue == 0 { return CuttingBearer(first.link, after: 60) }
            return second.link
        }
        let outcome = try service.stream(until: ContinuousClock.now.advanced(by: .milliseconds(900)))
        #expect(outcome.connections == 2)
        #expect(events.all.contains { if case .disconnected = $0 { true } else { false } })
        let received = events.heartRateReadings
        let stored = try storedHeartRateReadings(directory.path)
        #expect(received > 60)
        #expect(stored.samples == 1, "one minute, one sample")
        #expect(stored.readings == received, "every reading received is in its minute")
    }

    @Test func aReaderRestartWithinTheMinuteLosesNoReading() throws {
        let directory = TemporaryStoreDirectory()
        let now = Self.minuteClock()
        let events = Events()
        for _ in 0..<2 {
            let strap = try HeartRateStrap()
            defer { strap.stop() }
            let service = try service(directory.path, events: events, now: now) { _ in strap.link }
            _ = try service.stream(until: ContinuousClock.now.advanced(by: .milliseconds(400)))
        }
        let received = events.heartRateReadings
        let stored = try storedHeartRateReadings(directory.path)
        #expect(received > 20)
        #expect(stored.samples == 1)
        #expect(stored.readings == received)
    }

    /// The adapter is gone (ENODEV from the management socket); the reader says
    /// so and that it waits, and a deadline reached while waiting ends the run without its link.
    @Test func aVanishedAdapterIsSaidAndTheRunEndsWithoutItsLink() throws {
        let directory = TemporaryStoreDirectory()
        let events = Events()
        let service = try service(directory.path, events: events, now: Date.init) { _ in
            throw LinkError.system("mgmt Read Controller Information on hci0 (adapter gone: Invalid Index)", .noSuchDevice)
        }
        let outcome = try service.stream(until: ContinuousClock.now.advanced(by: .milliseconds(150)))
        #expect(outcome.connections == 0)
        let why = try #require(outcome.endedWithoutLink)
        #expect(why.contains("adapter gone"))
        let disconnects = events.all.compactMap { event -> String? in if case .disconnected(let why) = event { why } else { nil } }
        #expect(!disconnects.isEmpty)
        #expect(disconnects.allSatisfy { $0.contains("adapter gone") && $0.hasSuffix("waiting for the adapter to come back") })
    }
}
