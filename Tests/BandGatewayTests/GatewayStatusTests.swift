import BandReader
import Foundation
import Testing
@testable import BandGateway

/// What `band status` and the metrics show, kept from the sessions' events.
struct GatewayStatusTests {
    let band = GatewayDevice(address: "sim:/run/band.sock", kind: .bandkit, person: "alice", paired: true)
    let strap = GatewayDevice(address: "sim:/run/strap.sock", kind: .heartRateStrap, person: nil, paired: false)
    /// Days start at midnight UTC here.
    let status = GatewayStatus(dayStart: { Date(timeIntervalSince1970: ($0.timeIntervalSince1970 / 86_400).rounded(.down) * 86_400) })
    let noon = Date(timeIntervalSince1970: 1_796_040_000)  // 2026-11-30T12:00:00Z

    @Test func eventsFillTheSnapshotAndTheCounters() throws {
        status.setDevices([band, strap])
        status.record(.connected(mtu: 247, kind: .bandkit), from: band.address, at: noon)
        status.record(.device(BandDeviceInfo(), batteryPercent: 81), from: band.address, at: noon)
        let cursor = HistoryCursor(historyID: 0xABCD, nextSequence: 1440, lastMinute: 1_796_039_880)
        status.record(.historyCommitted(minutes: 1440, cursor: cursor, acknowledged: true), from: band.address, at: noon)
        status.record(.storeWrite(StoreWriteTiming(batch: .history, rows: 4000, duration: .milliseconds(30))), from: band.address, at: noon)
        status.record(.storeWrite(StoreWriteTiming(batch: .live, rows: 3, duration: .seconds(12))), from: band.address, at: noon)
        status.record(.reading(LiveReading(time: noon, kind: "hr", heartRate: 70)), from: strap.address, at: noon)
        status.record(.liveMinutesStored(count: 2), from: strap.address, at: noon.addingTimeInterval(60))
        status.record(.disconnected("link lost"), from: band.address, at: noon.addingTimeInterval(90))
        status.record(.connected(mtu: 247, kind: .bandkit), from: band.address, at: noon.addingTimeInterval(95))
        let snapshot = status.snapshot()
        let bandEntry = try #require(snapshot.devices.first { $0.address == band.address })
        #expect(bandEntry.connected && bandEntry.battery == 81 && bandEntry.historyCursor == cursor)
        #expect(bandEntry.minutesToday == 1440 && bandEntry.samplesCommitted == 4003 && bandEntry.reconnects == 1)
        #expect(bandEntry.lastError == "link lost" && bandEntry.person == "alice")
        #expect(bandEntry.historyLag(at: noon) == 60)
        let strapEntry = try #require(snapshot.devices.first { $0.address == strap.address })
        #expect(strapEntry.readingsReceived == 1 && strapEntry.minutesToday == 2 && !strapEntry.connected)
        #expect(snapshot.commitLatencyCounts[GatewaySnapshot.latencyBuckets.firstIndex(of: 0.05)!] == 1)
        #expect(snapshot.commitLatencyCounts.last == 1, "12 s is past the last bound")
        #expect(snapshot.lastCommit == noon.addingTimeInterval(60))
        #expect(snapshot.statusLine == "1/2 devices connected, last commit 2026-11-30T12:01:00Z")
    }

    @Test func everyCommitLatencyIsCountedInTheSnapshot() {
        status.setDevices([band])
        let writes = 5000
        for milliseconds in 1...writes {
            status.record(.storeWrite(StoreWriteTiming(batch: .live, rows: 1, duration: .milliseconds(milliseconds))), from: band.address, at: noon)
        }
        #expect(status.snapshot().commitLatencyCounts.reduce(0, +) == writes)
    }

    @Test func minutesTodayStartOverAtTheDaysStart() throws {
        status.setDevices([strap])
        status.record(.liveMinutesStored(count: 5), from: strap.address, at: noon)
        status.record(.liveMinutesStored(count: 1), from: strap.address, at: noon.addingTimeInterval(12 * 3600 + 1))
        #expect(status.snapshot().devices[0].minutesToday == 1)
    }

    @Test func aDeviceDroppedFromTheSetLeavesTheSnapshotAndKeptOnesKeepTheirFigures() {
        status.setDevices([band, strap])
        status.record(.liveMinutesStored(count: 3), from: band.address, at: noon)
        status.setDevices([band])
        #expect(status.snapshot().devices.map(\.address) == [band.address])
        #expect(status.snapshot().devices[0].minutesToday == 3)
        status.record(.liveMinutesStored(count: 3), from: strap.address, at: noon)
        #expect(status.snapshot().devices.count == 1, "events of a forgotten device are dropped")
    }

    @Test func theJSONParsesAndEscapesWhatADeviceSent() throws {
        status.setDevices([band])
        status.record(.disconnected("bad \u{1B}[2J \"name\"\n"), from: band.address, at: noon)
        let text = status.snapshot().json(at: noon)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(object["devices_known"] as? Int == 1)
        let devices = try #require(object["devices"] as? [[String: Any]])
        #expect(devices[0]["last_error"] as? String == "bad \u{1B}[2J \"name\"\n")
        #expect(devices[0]["kind"] as? String == "bandkit" && devices[0]["person"] as? String == "alice")
        #expect(!text.contains("\n") && !text.contains("\u{1B}"))
    }
}

struct GatewaySelectionTests {
    func paired(_ address: String, person: String? = nil, kind: BandKind = .bandkit) -> PairedBand {
        PairedBand(address: address, readerID: 1, key: kind == .bandkit ? [1] : [], device: BandDeviceInfo(), pairedAt: Date(), kind: kind, person: person)
    }

    @Test func everyEntryByDefaultOnePersonsOrTheNamedOnes() {
        let bands = [paired("sim:/a", person: "alice"), paired("sim:/b"), paired("sim:/c", person: "alice", kind: .infinitime)]
        #expect(GatewaySelection().devices(from: bands, forgotten: []).map(\.address) == ["sim:/a", "sim:/b", "sim:/c"])
        #expect(GatewaySelection(person: "alice").devices(from: bands, forgotten: []).map(\.address) == ["sim:/a", "sim:/c"])
        let named = GatewaySelection(addresses: ["sim:/b", "sim:/strap"]).devices(from: bands, forgotten: [])
        #expect(named == [GatewayDevice(address: "sim:/b", kind: .bandkit, person: nil, paired: true),
                          GatewayDevice(address: "sim:/strap", kind: .other, person: nil, paired: false)])
        #expect(GatewaySelection(addresses: ["sim:/b"]).devices(from: bands, forgotten: ["sim:/b"]).map(\.address) == ["sim:/b"],
                "a paired entry is served whatever was forgotten before")
        #expect(GatewaySelection(addresses: ["sim:/x"]).devices(from: bands, forgotten: ["sim:/x"]).isEmpty,
                "a named device that was paired and then forgotten stays dropped")
    }
}
