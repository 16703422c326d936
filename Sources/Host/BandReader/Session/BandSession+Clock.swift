import BandGATT
import BandProtocol
import FoundationEssentials

/// The band's clock: set (or checked) at connect, read again while streaming.
extension BandSession {
    /// Brings the band's clock and zone to the host's: reads Current Time and Local Time
    /// Information, writes the zone (standard offset and DST separately) when it differs and the
    /// time when it is off by more than ``clockTolerance``. With ``setsClock`` false (a simulator
    /// running faster than real time) it only reads. Returns a (band time, host time) pair for
    /// stamping live readings.
    func synchronizeClock() throws(SessionError) -> (bandTime: Double, hostTime: Date)? {
        let profile = connection.profile
        guard let currentTime = profile.currentTime else { return nil }
        let hostNow = now()
        let setting: BandClockSetting
        do { setting = try BandClockSetting(date: hostNow, timeZone: timeZone) } catch {
            report(.anomaly("clock not set: \(error)"))
            return nil
        }
        // The decisions are ClockObservation's (shared with replay); this performs the reads and writes.
        var clock = ClockObservation(hasCurrentTime: true)
        clock.readSent(at: hostNow)
        if let local = profile.localTimeInformation, local.properties.contains(.read) {
            let bytes = try connection.read(local, during: .clock)
            bytes.withUnsafeBytes { clock.zoneRead($0) }
        }
        if currentTime.properties.contains(.read) {
            let bytes = try connection.read(currentTime, during: .clock)
            bytes.withUnsafeBytes { clock.timeRead($0) }
        }
        guard setsClock else {
            report(.clockChecked(bandOffsetFromHost: clock.bandOffset(fromHost: hostNow)))
            return clock.observation(fallback: hostNow)
        }
        var changed = false
        if let local = profile.localTimeInformation, local.properties.contains(.write), clock.zoneNeedsWriting(setting) {
            try connection.write(setting.localTimeInformation.encodedBytes(capacity: 2), to: local, during: .clock)
            changed = true
        }
        if clock.timeNeedsWriting(zoneChanged: changed, host: hostNow, tolerance: clockTolerance), currentTime.properties.contains(.write) {
            // Recompute: the reads above took time.
            let fresh: BandClockSetting
            let written = now()
            do { fresh = try BandClockSetting(date: written, timeZone: timeZone) } catch { return nil }
            try connection.write(fresh.currentTime.encodedBytes(capacity: 10), to: currentTime, during: .clock)
            clock.timeWritten(at: written)
            report(.clockSet(fresh))
            return clock.observation(fallback: hostNow)
        }
        report(.clockChecked(bandOffsetFromHost: clock.bandOffset(fromHost: hostNow)))
        return clock.observation(fallback: hostNow)
    }

    /// Reads the device's zone and Current Time again while streaming and hands the reading to
    /// the live stream, which trusts it over its extrapolation (``LiveStream/observeDeviceClock(_:at:)``).
    func rereadClock() throws(SessionError) {
        let profile = connection.profile
        guard let live, let currentTime = profile.currentTime, currentTime.properties.contains(.read) else { return }
        var clock = ClockObservation(hasCurrentTime: true)
        let sent = now()
        clock.readSent(at: sent)
        if let local = profile.localTimeInformation, local.properties.contains(.read) {
            let bytes = try connection.read(local, during: .streaming)
            bytes.withUnsafeBytes { clock.zoneRead($0) }
        }
        let bytes = try connection.read(currentTime, during: .streaming)
        bytes.withUnsafeBytes { clock.timeRead($0) }
        if let observation = clock.observation(fallback: sent) {
            live.observeDeviceClock(observation.bandTime, at: observation.hostTime, utcOffsetSeconds: clock.bandZone?.utcOffsetSeconds)
        }
    }

}
