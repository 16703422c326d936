import ServiceSupport
import Testing

@Suite struct MetricsRegistryTests {
    func text(_ registry: MetricsRegistry) -> String { String(decoding: registry.exposition(), as: UTF8.self) }

    @Test func writesCountersGaugesAndHistogramsInTheTextFormat() {
        let registry = MetricsRegistry()
        let readings = registry.counter("bandkit_readings_received_total", help: "Readings received from devices.", labels: ["device", "kind"])
        let connected = registry.gauge("bandkit_devices_connected", help: "Devices connected now.")
        let latency = registry.histogram("bandkit_commit_seconds", help: "Store commit latency.", buckets: [0.01, 0.1, 1])
        let band = registry.series(readings, ["c0:ff:ee:00:00:01", "band"])
        registry.add(band)
        registry.add(band, 2)
        registry.add(registry.series(readings, ["c0:ff:ee:00:00:02", "strap"]), 5)
        registry.set(registry.series(connected, []), 2)
        let commits = registry.series(latency, [])
        for value in [0.005, 0.01, 0.05, 0.5, 3.0] { registry.observe(commits, value) }
        #expect(text(registry) == """
            # HELP bandkit_readings_received_total Readings received from devices.
            # TYPE bandkit_readings_received_total counter
            bandkit_readings_received_total{device="c0:ff:ee:00:00:01",kind="band"} 3
            bandkit_readings_received_total{device="c0:ff:ee:00:00:02",kind="strap"} 5
            # HELP bandkit_devices_connected Devices connected now.
            # TYPE bandkit_devices_connected gauge
            bandkit_devices_connected 2
            # HELP bandkit_commit_seconds Store commit latency.
            # TYPE bandkit_commit_seconds histogram
            bandkit_commit_seconds_bucket{le="0.01"} 2
            bandkit_commit_seconds_bucket{le="0.1"} 3
            bandkit_commit_seconds_bucket{le="1"} 4
            bandkit_commit_seconds_bucket{le="+Inf"} 5
            bandkit_commit_seconds_sum 3.565
            bandkit_commit_seconds_count 5

            """)
    }

    @Test func escapesLabelValuesAndHelpAsTheFormatSays() {
        let registry = MetricsRegistry()
        let family = registry.gauge("x", help: "a \\ b\nc \"quoted\"", labels: ["person"])
        registry.set(registry.series(family, ["Ann \"A\" \\ B\nC"]), 1)
        #expect(text(registry) == """
            # HELP x a \\\\ b\\nc "quoted"
            # TYPE x gauge
            x{person="Ann \\"A\\" \\\\ B\\nC"} 1

            """)
    }

    @Test func labelledHistogramsPutLeLast() {
        let registry = MetricsRegistry()
        let family = registry.histogram("lag_seconds", help: "Lag.", labels: ["device"], buckets: [1])
        registry.observe(registry.series(family, ["a"]), 2)
        #expect(text(registry).contains("lag_seconds_bucket{device=\"a\",le=\"1\"} 0\nlag_seconds_bucket{device=\"a\",le=\"+Inf\"} 1\nlag_seconds_sum{device=\"a\"} 2\nlag_seconds_count{device=\"a\"} 1\n"))
    }

    @Test func aRemovedSeriesLeavesTheOutputAndComesBackAtZero() {
        let registry = MetricsRegistry()
        let family = registry.counter("r_total", help: "R.", labels: ["device"])
        let kept = registry.series(family, ["a"])
        let forgotten = registry.series(family, ["b"])
        registry.add(kept, 1)
        registry.add(forgotten, 7)
        registry.remove(family, ["b"])
        registry.add(forgotten, 1)  // a stale handle: ignored
        #expect(!text(registry).contains("\"b\""))
        #expect(registry.value(forgotten) == nil)
        let again = registry.series(family, ["b"])
        #expect(registry.value(again) == 0)
        #expect(text(registry).contains("r_total{device=\"b\"} 0\n"))
    }

    @Test func aHistogramMirrorsTotalsCountedElsewhereAndNeverFalls() {
        let registry = MetricsRegistry()
        let latency = registry.series(registry.histogram("h_seconds", help: "H.", buckets: [0.1, 1]), [])
        registry.setHistogram(latency, cumulativeCounts: [2, 5, 6], sum: 4.25)
        #expect(text(registry).hasSuffix("""
            h_seconds_bucket{le="0.1"} 2
            h_seconds_bucket{le="1"} 5
            h_seconds_bucket{le="+Inf"} 6
            h_seconds_sum 4.25
            h_seconds_count 6

            """))
        registry.setHistogram(latency, cumulativeCounts: [1, 5, 7], sum: 5)
        #expect(text(registry).contains("h_seconds_count 6\n"), "a bucket that would fall leaves the whole histogram as it was")
        registry.setHistogram(latency, cumulativeCounts: [3, 6, 8], sum: 6.5)
        #expect(text(registry).contains("h_seconds_bucket{le=\"0.1\"} 3\nh_seconds_bucket{le=\"1\"} 6\nh_seconds_bucket{le=\"+Inf\"} 8\nh_seconds_sum 6.5\nh_seconds_count 8\n"))
        registry.observe(latency, 0.5)
        #expect(text(registry).contains("h_seconds_bucket{le=\"1\"} 7\n"), "observations go on from the mirrored totals")
    }

    @Test func countersNeverFall() {
        let registry = MetricsRegistry()
        let series = registry.series(registry.counter("c_total", help: "C."), [])
        registry.set(series, 10)
        registry.set(series, 4)
        registry.add(series, -3)
        registry.add(series, .nan)
        #expect(registry.value(series) == 10)
        let gauge = registry.series(registry.gauge("g", help: "G."), [])
        registry.add(gauge, -3)
        #expect(registry.value(gauge) == -3)
    }

    @Test func numbersAreSpelledAsPrometheusReadsThem() {
        let registry = MetricsRegistry()
        let family = registry.gauge("v", help: "V.", labels: ["k"])
        for (key, value) in [("inf", Double.infinity), ("minf", -Double.infinity), ("nan", Double.nan), ("big", 1e20), ("small", 0.000125), ("neg", -2.0)] {
            registry.set(registry.series(family, [key]), value)
        }
        let lines = text(registry).split(separator: "\n").dropFirst(2).map(String.init)
        #expect(lines == ["v{k=\"inf\"} +Inf", "v{k=\"minf\"} -Inf", "v{k=\"nan\"} NaN", "v{k=\"big\"} 1e+20", "v{k=\"small\"} 0.000125", "v{k=\"neg\"} -2"])
    }

    @Test func aFamilyWithoutSeriesStillHasHelpAndType() {
        let registry = MetricsRegistry()
        _ = registry.counter("none_total", help: "Nothing yet.", labels: ["device"])
        #expect(text(registry) == "# HELP none_total Nothing yet.\n# TYPE none_total counter\n")
    }
}
