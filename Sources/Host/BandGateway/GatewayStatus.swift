import BandReader
import FoundationEssentials
import Synchronization

/// The gateway's snapshot and counters, kept as events happen: written by each device's session
/// thread, read by the loop (`band status`, metrics, systemd's STATUS=). One lock, held for a
/// few field updates; nothing is allocated per reading.
public final class GatewayStatus: Sendable {
    private let state = Mutex(GatewaySnapshot())
    private let dayStart: @Sendable (Date) -> Date

    /// `dayStart` gives the start of the local day holding an instant ("minutes stored today").
    public init(dayStart: @escaping @Sendable (Date) -> Date) {
        self.dayStart = dayStart
    }

    public func snapshot() -> GatewaySnapshot { state.withLock { $0 } }

    /// The devices the machine knows now; kept devices keep their figures.
    public func setDevices(_ devices: [GatewayDevice]) {
        state.withLock { snapshot in
            let old = Dictionary(snapshot.devices.map { ($0.address, $0) }, uniquingKeysWith: { first, _ in first })
            snapshot.devices = devices.map { device in
                var entry = old[device.address] ?? GatewaySnapshot.Device(address: device.address, kind: device.kind, person: device.person)
                entry.person = device.person
                if device.paired { entry.kind = device.kind }
                return entry
            }
        }
    }

    /// What one device's session reported.
    public func record(_ event: ReaderEvent, from address: String, at now: Date) {
        state.withLock { snapshot in
            guard let index = snapshot.devices.firstIndex(where: { $0.address == address }) else { return }
            var device = snapshot.devices[index]
            switch event {
            case .connected(_, let kind):
                if device.connections > 0 { device.reconnects += 1 }
                device.connections += 1
                device.connected = true
                device.kind = kind
                device.lastSeen = now
            case .device(_, let battery):
                if let battery { device.battery = battery }
            case .reading(let reading):
                device.readingsReceived += 1
                device.lastSeen = now
                if let battery = reading.batteryPercent { device.battery = battery }
            case .readingsDropped(let count):
                device.readingsDropped += count
            case .historyCommitted(let minutes, let cursor, _):
                device.lastSync = now
                device.lastSeen = now
                device.historyCursor = cursor
                Self.countMinutes(minutes, into: &device, at: now, dayStart: dayStart)
                snapshot.lastCommit = now
            case .historyComplete:
                device.lastSync = now
            case .liveMinutesStored(let count):
                Self.countMinutes(count, into: &device, at: now, dayStart: dayStart)
                snapshot.lastCommit = now
            case .storeWrite(let timing):
                device.samplesCommitted += timing.rows
                let seconds = Double(timing.duration.components.seconds) + Double(timing.duration.components.attoseconds) / 1e18
                let bucket = GatewaySnapshot.latencyBuckets.firstIndex { seconds <= $0 } ?? GatewaySnapshot.latencyBuckets.count
                snapshot.commitLatencyCounts[bucket] += 1
                snapshot.commitLatencySum += seconds
            case .storeUnavailable(let outage):
                device.lastError = "store unreachable: \(outage.reason)"
            case .disconnected(let why):
                device.connected = false
                device.lastError = why
            default:
                break
            }
            snapshot.devices[index] = device
        }
    }

    /// The device's session ended, with `error` unless it ended as asked.
    public func sessionEnded(_ address: String, error: String?) {
        state.withLock { snapshot in
            guard let index = snapshot.devices.firstIndex(where: { $0.address == address }) else { return }
            snapshot.devices[index].connected = false
            if let error { snapshot.devices[index].lastError = error }
        }
    }

    /// "Minutes today" starts over at local midnight; the day is the one of the last count.
    private static func countMinutes(_ count: Int, into device: inout GatewaySnapshot.Device, at now: Date,
                                     dayStart: (Date) -> Date) {
        let today = dayStart(now)
        if let last = device.minutesCountedAt, dayStart(last) != today { device.minutesToday = 0 }
        device.minutesToday += count
        device.minutesCountedAt = now
    }
}
