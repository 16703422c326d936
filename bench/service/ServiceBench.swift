// What a gateway's metrics cost it: an update through a series handle (per reading), against a
// plain Double array increment in the same run (the floor), and a whole scrape's text for 50
// devices (the gateway), as the share of one core at Prometheus' default 15 s interval.
import ServiceSupport

#if canImport(Glibc)
import Glibc
#endif

@inline(never) func blackHole<T>(_ value: T) { withExtendedLifetime(value) {} }

func seconds(_ body: () -> Void) -> Double {
    let start = ContinuousClock.now
    body()
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

func best(_ rounds: Int, _ body: () -> Void) -> Double { (0..<rounds).map { _ in seconds(body) }.min()! }

let iterations = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 10_000_000
let devices = 50

// A gateway's families: five per device and one commit-latency histogram.
let registry = MetricsRegistry()
let readings = registry.counter("bandkit_readings_received_total", help: "Readings received.", labels: ["device", "kind", "person"])
let samples = registry.counter("bandkit_samples_committed_total", help: "Samples committed.", labels: ["device", "kind", "person"])
let reconnects = registry.counter("bandkit_reconnects_total", help: "Reconnects.", labels: ["device", "kind", "person"])
let connected = registry.gauge("bandkit_device_connected", help: "1 when connected.", labels: ["device", "kind", "person"])
let lag = registry.gauge("bandkit_history_lag_seconds", help: "History lag.", labels: ["device", "kind", "person"])
let latency = registry.histogram("bandkit_commit_seconds", help: "Commit latency.")
var handles: [MetricSeries] = []
for index in 0..<devices {
    let labels = [format2(index), index % 3 == 0 ? "strap" : "band", "person-\(index % 7)"]
    handles.append(registry.series(readings, labels))
    for family in [samples, reconnects, connected, lag] { registry.set(registry.series(family, labels), Double(index * 17)) }
}
let commits = registry.series(latency, [])
for index in 0..<10_000 { registry.observe(commits, Double(index % 997) / 1000) }

func format2(_ index: Int) -> String {
    let hex = String(index, radix: 16)
    return "c0:ff:ee:00:00:" + (hex.count < 2 ? "0" + hex : hex)
}

var floor = [Double](repeating: 0, count: devices)
let plain = best(5) {
    for index in 0..<iterations { floor[index % devices] += 1 }
    blackHole(floor)
}
let update = best(5) {
    for index in 0..<iterations { registry.add(handles[index % devices]) }
}
let observe = best(5) {
    for index in 0..<iterations / 10 { registry.observe(commits, Double(index & 1023) / 1000) }
}
var size = 0
let renders = 200
let render = best(5) {
    for _ in 0..<renders {
        let text = registry.exposition()
        size = text.count
        blackHole(text)
    }
}
let perRender = render / Double(renders)
func nanoseconds(_ total: Double, _ count: Int) -> String { String(Int((total / Double(count) * 1e10).rounded()) / 10) + "." + String(Int((total / Double(count) * 1e10).rounded()) % 10) }
print("metrics update (counter add through a series handle): \(nanoseconds(update, iterations)) ns; plain Double array += in the same run: \(nanoseconds(plain, iterations)) ns; ratio \(Int((update / plain * 10).rounded()) / 10).\(Int((update / plain * 10).rounded()) % 10)×")
print("histogram observe (12 buckets): \(nanoseconds(observe, iterations / 10)) ns")
print("scrape text for \(devices) devices (\(registry.exposition().split(separator: 0x0A).count) lines, \(size) bytes): \(Int((perRender * 1e6).rounded())) µs; every 15 s that is \(String(Double(Int(perRender / 15 * 1e6)) / 1e4))% of one core")
