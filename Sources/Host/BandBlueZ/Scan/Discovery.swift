import BandLink

/// Runs a scan until a matching device is found or the time is up.
public enum Discovery {
    /// Scans on `adapter` for up to `duration`; returns every device seen, in order of first
    /// sighting. With `until`, returns as soon as a device satisfies it (after merging the
    /// report that made it match).
    public static func scan(_ scanner: LEScanner, for duration: Duration,
                            until stop: ((DiscoveredDevice) -> Bool)? = nil) throws(LinkError) -> [DiscoveredDevice] {
        var devices: [DiscoveredDevice] = []
        let deadline = ContinuousClock.now.advanced(by: duration)
        if !scanner.isScanning { try scanner.start() }
        defer { scanner.stop() }
        while true {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero, let report = try scanner.nextReport(timeout: remaining) else { break }
            let index: Int
            if let found = devices.firstIndex(where: { $0.address == report.address }) {
                index = found
            } else {
                devices.append(DiscoveredDevice(address: report.address))
                index = devices.count - 1
            }
            devices[index].merge(report)
            if let stop, stop(devices[index]) { break }
        }
        return devices
    }
}
