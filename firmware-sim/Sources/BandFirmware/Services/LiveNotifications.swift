import BandATT
import BandProtocol
import BandWire

/// What the band notifies every second: heart rate, running speed and cadence, live activity,
/// battery. Values are encoded straight into the transmit buffer.
extension SimulatedBand {
    func secondElapsed(_ events: BandCore.TickEvents) {
        guard connection != nil else { return }
        let sample = events.sample
        if let heartRate = sample.heartRate {
            heartRateNotificationCount += 1
            let withEnergy = heartRateNotificationCount % 10 == 0
            let energy = core.energySinceReset
            guard notify(.heartRateMeasurement, { writeHeartRateMeasurement(heartRate, sample: sample, energyDecikilocalories: withEnergy ? energy : nil, into: &$0) }) else { return }
        }
        if sample.worn {
            let distance = core.counters.distanceDecimetres
            guard notify(.rscMeasurement, { writeRSCMeasurement(sample, totalDistanceDecimetres: distance, into: &$0) }) else { return }
        }
        guard notifyLiveActivity(force: false) else { return }
        if events.batteryChanged { notifyBattery(force: false) }
    }

    /// Notifies Live Activity when it changed since the last notification (or `force`).
    @discardableResult
    func notifyLiveActivity(force: Bool) -> Bool {
        guard let current = connection, current.authenticated, current.notifying(.liveActivity) else { return true }
        let live = core.liveActivity(at: trueTime)
        var comparable = live
        comparable.timestamp = current.lastLiveNotified?.timestamp ?? 0
        guard force || comparable != current.lastLiveNotified else { return true }
        current.lastLiveNotified = live
        return notify(.liveActivity) { live.encode(into: &$0) }
    }

    func notifyBattery(force: Bool) {
        guard let current = connection, current.notifying(.batteryLevel) else { return }
        let level = core.batteryLevel
        guard force || level != current.lastBatteryNotified else { return }
        current.lastBatteryNotified = level
        if level <= 15, !force { log("battery low: \(level) %") }
        notify(.batteryLevel) { $0.writeUInt8(level) }
    }

    /// Heart Rate Measurement 0x2A37 (HRS 1.0 §3.1): flags, uint8 rate, Energy Expended in kJ
    /// every tenth notification, and as many RR intervals (1/1024 s) as fit the MTU.
    func writeHeartRateMeasurement(_ heartRate: UInt8, sample: SecondSample, energyDecikilocalories: Int?, into output: inout ByteWriter) {
        var flags: UInt8 = 0x06 // sensor contact supported and detected
        if energyDecikilocalories != nil { flags |= 0x08 }
        if sample.rrIntervalCount > 0 { flags |= 0x10 }
        output.writeUInt8(flags)
        output.writeUInt8(heartRate)
        if let energy = energyDecikilocalories {
            // 0.1 kcal × 0.4184 = kJ; the field saturates at 0xFFFF (HRS §3.1.1.3).
            output.writeUInt16LE(UInt16(min(65_535, (Double(energy) * 0.4184).rounded())))
        }
        for i in 0..<sample.rrIntervalCount where output.remainingCapacity >= 2 {
            output.writeUInt16LE(sample.rrInterval(i))
        }
    }

    /// RSC Measurement 0x2A53 (RSCS 1.0 §3.1): speed 1/256 m/s, cadence 1/min, stride 1/100 m,
    /// total distance 1/10 m (today's, the same count as Live Activity).
    func writeRSCMeasurement(_ sample: SecondSample, totalDistanceDecimetres: UInt32, into output: inout ByteWriter) {
        output.writeUInt8(0x03 | (sample.running ? 0x04 : 0))
        output.writeUInt16LE(UInt16(min(65_535, (sample.speedMetresPerSecond * 256).rounded())))
        output.writeUInt8(UInt8(min(255, sample.cadence.rounded())))
        output.writeUInt16LE(UInt16(min(65_535, (sample.strideMetres * 100).rounded())))
        output.writeUInt32LE(totalDistanceDecimetres)
    }
}
