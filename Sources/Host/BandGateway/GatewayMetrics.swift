import FoundationEssentials
import ServiceSupport

/// The gateway's Prometheus metrics, mirrored from ``GatewayStatus`` when scraped: readings
/// received and dropped, samples committed, reconnects and history lag per device, devices known and
/// connected, and the store's commit latency as a histogram. Owned by the loop (the registry has
/// one owner); the session threads only ever touch ``GatewayStatus``.
public final class GatewayMetrics {
    public let registry = MetricsRegistry()
    private let known: MetricSeries
    private let connected: MetricSeries
    private let readings: MetricFamily
    private let dropped: MetricFamily
    private let samples: MetricFamily
    private let reconnects: MetricFamily
    private let lag: MetricFamily
    private let deviceConnected: MetricFamily
    private let minutesToday: MetricFamily
    private let latency: MetricSeries
    private var devices: Set<String> = []

    public init() {
        known = registry.series(registry.gauge("bandkit_gateway_devices_known", help: "Devices the gateway serves."), [])
        connected = registry.series(registry.gauge("bandkit_gateway_devices_connected", help: "Devices connected now."), [])
        readings = registry.counter("bandkit_gateway_readings_received_total", help: "Live readings received.", labels: ["device"])
        dropped = registry.counter("bandkit_gateway_readings_dropped_total",
                                   help: "Live readings dropped: the device notified faster than the gateway admits.", labels: ["device"])
        samples = registry.counter("bandkit_gateway_samples_committed_total", help: "Samples committed to the store.", labels: ["device"])
        reconnects = registry.counter("bandkit_gateway_reconnects_total", help: "Links that came up again after the first.", labels: ["device"])
        lag = registry.gauge("bandkit_gateway_history_lag_seconds", help: "Seconds from the end of the newest history minute stored to now.",
                             labels: ["device"])
        deviceConnected = registry.gauge("bandkit_gateway_device_connected", help: "1 while the device's link is up.", labels: ["device"])
        minutesToday = registry.gauge("bandkit_gateway_minutes_stored_today", help: "Minutes committed today (history and live).",
                                      labels: ["device"])
        latency = registry.series(registry.histogram("bandkit_gateway_commit_latency_seconds",
                                                     help: "Store commit latency: a batch's first statement to COMMIT's return.",
                                                     buckets: GatewaySnapshot.latencyBuckets), [])
    }

    /// Brings the registry up to `status`'s snapshot and renders it. The latency histogram is the
    /// snapshot's own, counted as each commit is recorded, so no commit is missed however rare
    /// the scrapes.
    public func exposition(of status: GatewayStatus, at now: Date) -> [UInt8] {
        let snapshot = status.snapshot()
        var cumulative: [UInt64] = []
        cumulative.reserveCapacity(snapshot.commitLatencyCounts.count)
        for count in snapshot.commitLatencyCounts { cumulative.append((cumulative.last ?? 0) + UInt64(count)) }
        registry.setHistogram(latency, cumulativeCounts: cumulative, sum: snapshot.commitLatencySum)
        registry.set(known, Double(snapshot.devices.count))
        registry.set(connected, Double(snapshot.devicesConnected))
        var present: Set<String> = []
        for device in snapshot.devices {
            let labels = [device.address]
            present.insert(device.address)
            registry.set(registry.series(readings, labels), Double(device.readingsReceived))
            registry.set(registry.series(dropped, labels), Double(device.readingsDropped))
            registry.set(registry.series(samples, labels), Double(device.samplesCommitted))
            registry.set(registry.series(reconnects, labels), Double(device.reconnects))
            registry.set(registry.series(deviceConnected, labels), device.connected ? 1 : 0)
            registry.set(registry.series(minutesToday, labels), Double(device.minutesToday))
            if let seconds = device.historyLag(at: now) { registry.set(registry.series(lag, labels), seconds) }
        }
        // A forgotten device leaves the exposition (paired again, it starts from zero).
        for gone in devices.subtracting(present) {
            for family in [readings, dropped, samples, reconnects, lag, deviceConnected, minutesToday] { registry.remove(family, [gone]) }
        }
        devices = present
        return registry.exposition()
    }
}
