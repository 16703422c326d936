import BandReader
import FoundationEssentials
import HealthModel
import JSONOutput

/// What the gateway is doing, at one instant: what `band status` shows and the metrics export.
public struct GatewaySnapshot: Sendable, Equatable {
    public struct Device: Sendable, Equatable {
        public var address: String
        public var kind: BandKind
        public var person: String?
        public var connected = false
        /// When the device was last heard from (a link up, a reading, a history batch).
        public var lastSeen: Date?
        /// When history was last committed, and the cursor it left.
        public var lastSync: Date?
        public var historyCursor: HistoryCursor?
        /// Minutes this gateway committed for the device since local midnight (history and live).
        public var minutesToday = 0
        /// When ``minutesToday`` last counted, so a new day starts it over.
        public var minutesCountedAt: Date?
        public var battery: Int?
        public var lastError: String?
        /// Counters since the gateway started.
        public var readingsReceived = 0
        /// Live notifications dropped because the device sent them faster than the gateway
        /// admits (`LiveFloodGuard`): the price of a bounded memory per device, counted.
        public var readingsDropped = 0
        public var samplesCommitted = 0
        /// Links that came up, and those after the first.
        public var connections = 0
        public var reconnects = 0

        public init(address: String, kind: BandKind, person: String?) {
            self.address = address
            self.kind = kind
            self.person = person
        }

        /// Seconds between `now` and the end of the newest history minute in the store (nil:
        /// none synced yet, or not a device with history).
        public func historyLag(at now: Date) -> Double? {
            guard let last = historyCursor?.lastMinute else { return nil }
            return max(0, now.timeIntervalSince1970 - Double(last) - 60)
        }
    }

    public var devices: [Device] = []
    public var lastCommit: Date?
    /// Commit latencies: counts per ``GatewaySnapshot/latencyBuckets`` bound (cumulative is the
    /// exporter's job), the sum in seconds, and the count.
    public var commitLatencyCounts = [Int](repeating: 0, count: GatewaySnapshot.latencyBuckets.count + 1)
    public var commitLatencySum = 0.0
    public var startedAt = Date()

    /// Upper bounds (seconds) of the commit latency histogram; the last bucket is +Inf.
    public static let latencyBuckets: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    public init() {}

    public var devicesConnected: Int { devices.count(where: \.connected) }

    /// One line: "3/6 devices connected, last commit 12:01:07Z" (systemd's STATUS=).
    public var statusLine: String {
        let commit = lastCommit.map { "last commit " + TimeParsing.format($0, utcOffsetSeconds: 0) } ?? "nothing committed yet"
        return "\(devicesConnected)/\(devices.count) devices connected, \(commit)"
    }

    /// The snapshot as one JSON object (`band status --json`).
    public func json(at now: Date) -> String {
        var out = JSONWriter(sink: JSONBuffer(capacity: 256 + devices.count * 400))
        out.beginObject()
        out.key("devices_known"); out.value(devices.count)
        out.key("devices_connected"); out.value(devicesConnected)
        out.key("last_commit"); out.value(lastCommit.map { TimeParsing.format($0, utcOffsetSeconds: 0) })
        out.key("devices")
        out.beginArray()
        for device in devices {
            out.beginObject()
            out.key("address"); out.value(device.address)
            out.key("kind"); out.value(device.kind.rawValue)
            out.key("person"); out.value(device.person)
            out.key("connected"); out.value(device.connected)
            out.key("last_seen"); out.value(device.lastSeen.map { TimeParsing.format($0, utcOffsetSeconds: 0) })
            out.key("last_sync"); out.value(device.lastSync.map { TimeParsing.format($0, utcOffsetSeconds: 0) })
            out.key("history_cursor"); out.value(device.historyCursor?.stored)
            out.key("history_lag_s"); out.value(device.historyLag(at: now).map { Int($0) })
            out.key("minutes_today"); out.value(device.minutesToday)
            out.key("battery"); out.value(device.battery)
            out.key("last_error"); out.value(device.lastError)
            out.key("readings_received"); out.value(device.readingsReceived)
            out.key("readings_dropped"); out.value(device.readingsDropped)
            out.key("samples_committed"); out.value(device.samplesCommitted)
            out.key("reconnects"); out.value(device.reconnects)
            out.endObject()
        }
        out.endArray()
        out.endObject()
        return out.sink.text
    }
}
