import BandReader
import Foundation
import Testing
@testable import BandGateway

/// `/metrics` mirrors the status: per-device counters, the latency histogram, forgotten devices gone.
struct GatewayMetricsTests {
    let band = GatewayDevice(address: "sim:/run/band.sock", kind: .bandkit, person: nil, paired: true)
    let strap = GatewayDevice(address: "sim:/run/strap \"x\".sock", kind: .heartRateStrap, person: nil, paired: true)
    let noon = Date(timeIntervalSince1970: 1_796_040_000)

    func text(_ metrics: GatewayMetrics, _ status: GatewayStatus) -> String {
        String(decoding: metrics.exposition(of: status, at: noon), as: UTF8.self)
    }

    @Test func countersGaugesAndTheHistogramFollowTheStatus() {
        let status = GatewayStatus(dayStart: { $0 })
        let metrics = GatewayMetrics()
        status.setDevices([band, strap])
        status.record(.connected(mtu: 247, kind: .bandkit), from: band.address, at: noon)
        status.record(.historyCommitted(minutes: 10, cursor: HistoryCursor(historyID: 1, nextSequence: 10, lastMinute: 1_796_039_700), acknowledged: true),
                      from: band.address, at: noon)
        status.record(.storeWrite(StoreWriteTiming(batch: .history, rows: 40, duration: .milliseconds(20))), from: band.address, at: noon)
        status.record(.storeWrite(StoreWriteTiming(batch: .live, rows: 2, duration: .seconds(3))), from: strap.address, at: noon)
        status.record(.reading(LiveReading(time: noon, kind: "hr", heartRate: 80)), from: strap.address, at: noon)
        let first = text(metrics, status)
        #expect(first.contains("bandkit_gateway_devices_known 2\n"))
        #expect(first.contains("bandkit_gateway_devices_connected 1\n"))
        #expect(first.contains("bandkit_gateway_samples_committed_total{device=\"sim:/run/band.sock\"} 40\n"))
        #expect(first.contains("bandkit_gateway_readings_received_total{device=\"sim:/run/strap \\\"x\\\".sock\"} 1\n"), "label values escaped")
        #expect(first.contains("bandkit_gateway_history_lag_seconds{device=\"sim:/run/band.sock\"} 240\n"))
        #expect(first.contains("bandkit_gateway_commit_latency_seconds_bucket{le=\"0.025\"} 1\n"))
        #expect(first.contains("bandkit_gateway_commit_latency_seconds_bucket{le=\"+Inf\"} 2\n"))
        #expect(first.contains("bandkit_gateway_commit_latency_seconds_count 2\n"))
        // A second scrape counts nothing twice.
        let second = text(metrics, status)
        #expect(second.contains("bandkit_gateway_commit_latency_seconds_count 2\n"))
        status.setDevices([band])
        let third = text(metrics, status)
        #expect(!third.contains("strap"), "a forgotten device leaves the exposition")
        #expect(third.contains("bandkit_gateway_devices_known 1\n"))
    }

    @Test func everyCommitBetweenRareScrapesIsInTheHistogram() {
        let status = GatewayStatus(dayStart: { $0 })
        let metrics = GatewayMetrics()
        status.setDevices([band])
        _ = text(metrics, status)
        let writes = 10_000
        for index in 0..<writes {
            let duration = Duration.milliseconds(index % 2 == 0 ? 3 : 700)
            status.record(.storeWrite(StoreWriteTiming(batch: .live, rows: 1, duration: duration)), from: band.address, at: noon)
        }
        let snapshot = status.snapshot()
        let exposition = text(metrics, status)
        #expect(snapshot.commitLatencyCounts.reduce(0, +) == writes)
        #expect(exposition.contains("bandkit_gateway_commit_latency_seconds_count \(writes)\n"))
        #expect(exposition.contains("bandkit_gateway_commit_latency_seconds_bucket{le=\"0.005\"} \(writes / 2)\n"))
        #expect(exposition.contains("bandkit_gateway_commit_latency_seconds_bucket{le=\"0.5\"} \(writes / 2)\n"))
        #expect(exposition.contains("bandkit_gateway_commit_latency_seconds_bucket{le=\"1\"} \(writes)\n"))
        let sum = exposition.split(separator: "\n").first { $0.hasPrefix("bandkit_gateway_commit_latency_seconds_sum ") }
        #expect(sum.flatMap { Double($0.split(separator: " ")[1]) } == snapshot.commitLatencySum)
    }
}
