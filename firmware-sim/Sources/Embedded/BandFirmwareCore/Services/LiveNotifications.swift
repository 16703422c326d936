import BandATT
import BandGATT
import BandProtocol
import BandWire

/// What the band notifies every second: heart rate, running speed and cadence, live activity,
/// battery. Values are encoded straight into the transmit buffer.
extension BandServices {
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
        if level <= 15, !force { host.report(.batteryLow(level: level)) }
        notify(.batteryLevel) { $0.writeUInt8(level) }
    }

    /// Heart Rate Measurement 0x2A37 (HRS 1.0 §3.1): contact detected, uint8 rate, Energy
    /// Expended in kJ every tenth notification, and as many of this second's RR intervals
    /// (1/1024 s) as fit the notification.
    func writeHeartRateMeasurement(_ heartRate: UInt8, sample: SecondSample, energyDecikilocalories: Int?, into output: inout ByteWriter) {
        // 0.1 kcal × 0.4184 = kJ; the field saturates at 0xFFFF (HRS §3.1.1.3).
        let energy = energyDecikilocalories.map { UInt16(min(65_535, (Double($0) * 0.4184).rounded())) }
        var measurement = HeartRateMeasurement(beatsPerMinute: UInt16(heartRate), sensorContact: .detected,
                                               energyExpended: energy, rrIntervals: nil)
        if sample.rrIntervalCount > 0 {
            var intervals = RRIntervals()
            for i in 0..<sample.rrIntervalCount where measurement.encodedCount + 2 * (intervals.count + 1) <= output.remainingCapacity {
                _ = intervals.append(RRInterval(rawValue: sample.rrInterval(i)))
            }
            if !intervals.isEmpty { measurement.rrIntervals = intervals }
        }
        measurement.encode(into: &output)
    }

    /// RSC Measurement 0x2A53 (RSCS 1.0 §3.1): speed 1/256 m/s, cadence 1/min, stride 1/100 m,
    /// total distance 1/10 m (today's, the same count as Live Activity).
    func writeRSCMeasurement(_ sample: SecondSample, totalDistanceDecimetres: UInt32, into output: inout ByteWriter) {
        RSCMeasurement(instantaneousSpeed: UInt16(min(65_535, (sample.speedMetresPerSecond * 256).rounded())),
                       instantaneousCadence: UInt8(min(255, sample.cadence.rounded())),
                       instantaneousStrideLength: UInt16(min(65_535, (sample.strideMetres * 100).rounded())),
                       totalDistance: totalDistanceDecimetres, isRunning: sample.running).encode(into: &output)
    }
}
