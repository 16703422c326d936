import BandFirmware
import BandLink
import BandReader
import BandReplay
import BandTrace
import Foundation
import HealthModel
import HealthStore
import Testing

/// Everything a store says about the minutes, in a form two stores can be compared by.
private func minuteSamples(_ store: HealthStore) throws -> [String] {
    var lines: [String] = []
    for type in SampleWriter.writtenTypes {
        for sample in try store.samples(HealthQuery(type: type), as: .owner).compactMap(\.quantitySample) {
            let metadata = sample.metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
            lines.append([sample.syncIdentifier ?? "-", "v\(sample.syncVersion)", "\(sample.quantity.value)",
                          "\(sample.start.timeIntervalSince1970)", "\(sample.end.timeIntervalSince1970)",
                          "\(sample.timeZone?.secondsFromGMT() ?? -1)", sample.device?.hardwareIdentifier ?? "-",
                          sample.device?.name ?? "-", sample.source?.id ?? "-", metadata].joined(separator: " "))
        }
    }
    return lines.sorted()
}

@Suite(.serialized) struct RoundTripTests {
    @Test func aSessionRecordedByTheReaderReplaysIntoAnEmptyStoreAsExactlyTheMinutesTheLiveRunWrote() throws {
        var configuration = BandConfiguration(start: BandInstant(seconds: 1_796_023_200))  // Monday 07:20 UTC, before the walk
        configuration.seed = 5
        configuration.historyDays = 1
        configuration.deterministicSecrets = true
        // 40 band seconds per host second: a few minutes of live streaming in a few seconds.
        let band = try InProcessBand(configuration, tickPeriod: .milliseconds(25))
        band.start()
        defer { band.stop() }

        let directory = ReplayFixtures.temporaryPath("roundtrip")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let keystore = Keystore(path: directory + "/keys.json")
        let liveStorePath = directory + "/live.sqlite"
        let tracePath = directory + "/session.log"
        let utc = TimeZone(identifier: "UTC")!

        // Pairing is its own, unrecorded, run of the reader.
        let pairing = BandReaderService(address: .simulator(path: "/band"), keystore: keystore, storePath: liveStorePath,
                                        stop: StopRequest(), openLink: { _ in try band.openLink() }, report: { _ in })
        pairing.now = { band.now }
        pairing.timeZone = utc
        _ = try #require(try pairing.pair())

        // The recorded run: history, live stream, history again, on one connection.
        var clock: ArrivalClock?
        var connections = 0
        let stream = BandReaderService(
            address: .simulator(path: "/band"), keystore: keystore, storePath: liveStorePath, stop: StopRequest(),
            openLink: { _ in
                connections += 1
                let arrival = ArrivalClock(try band.openLink(), source: { band.now })
                clock = arrival
                return try TraceRecorder(recording: arrival, to: tracePath, role: .central,
                                         peer: LEPeer(addressType: .randomDevice, address: BluetoothDeviceAddress(0xC0_11_22_33_44_55)),
                                         clock: { arrival.microseconds })
            },
            report: { _ in })
        stream.now = { clock?.now ?? band.now }
        stream.timeZone = utc
        stream.setsClock = false
        let outcome = try stream.stream(until: ContinuousClock.now.advanced(by: .seconds(4)))
        #expect(connections == 1, "one connection, one trace")
        #expect(outcome.historyMinutes >= 1440)
        #expect(outcome.liveMinutes > 0)

        let live = try minuteSamples(try HealthStore(path: liveStorePath))
        #expect(live.contains { $0.contains(" v1 ") }, "live-only samples (heart-rate variability) are part of the comparison")

        var options = TraceStoreReplay.Options()
        options.timeZone = utc
        let replayStore = try HealthStore(path: directory + "/replay.sqlite")
        let summary = try TraceStoreReplay(path: tracePath, options: options).run(into: replayStore)
        #expect(summary.trace.skippedCount == 0)
        #expect(summary.total.historyMinutes == outcome.historyMinutes)
        let replayed = try minuteSamples(replayStore)
        #expect(replayed.count == live.count)
        #expect(replayed == live)
        if replayed != live {
            let missing = Set(live).subtracting(replayed).sorted().prefix(5)
            let extra = Set(replayed).subtracting(live).sorted().prefix(5)
            Issue.record("live only: \(Array(missing))\nreplay only: \(Array(extra))")
        }
        // The history cursor moved the same way.
        let device = try #require(summary.connections.first?.deviceIdentifier)
        #expect(try replayStore.appState(app: SampleWriter.app.id, key: HistoryCursor.key(device: device))
                == (try HealthStore(path: liveStorePath).appState(app: SampleWriter.app.id, key: HistoryCursor.key(device: device))))
    }
}
