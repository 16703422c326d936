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
        let status = GatewayStatus(keepsLatencies: true, dayStart: { $0 })
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
        // A second scrape adds only what is new: the latencies are taken once.
        let second = text(metrics, status)
        #expect(second.contains("bandkit_gateway_commit_latency_seconds_count 2\n"))
        status.setDevices([band])
        let third = text(metrics, status)
        #expect(!third.contains("strap"), "a forgotten device leaves the exposition")
        #expect(third.contains("bandkit_gateway_devices_known 1\n"))
    }
}
