import BandProtocol

/// Builds the minute record for the minute in progress from its seconds.
package struct MinuteAccumulator {
    /// Band time of the minute's start, in seconds (a multiple of 60).
    package var minuteStart: Int64
    package var utcOffset: LocalTimeOffset
    package var partial: Bool
    package var clockSet: Bool
    private var steps = 0
    private var distance = 0
    private var energy = 0
    private var worn = false
    private var heartRateSum = 0
    private var heartRateCount = 0
    private var heartRateMin = UInt8.max
    private var heartRateMax = UInt8.min

    package init(minuteStart: Int64, utcOffset: LocalTimeOffset, partial: Bool, clockSet: Bool) {
        self.minuteStart = minuteStart
        self.utcOffset = utcOffset
        self.partial = partial
        self.clockSet = clockSet
    }

    package mutating func add(_ second: SecondSample) {
        steps += second.steps
        distance += second.distanceDecimetres
        energy += second.energyDecikilocalories
        worn = worn || second.worn
        if let hr = second.heartRate {
            heartRateSum += Int(hr)
            heartRateCount += 1
            heartRateMin = min(heartRateMin, hr)
            heartRateMax = max(heartRateMax, hr)
        }
    }

    package var record: MinuteRecord {
        var flags: MinuteRecordFlags = []
        if worn { flags.insert(.worn) }
        if clockSet { flags.insert(.clockSet) }
        if partial { flags.insert(.partial) }
        var summary: HeartRateSummary?
        if heartRateCount > 0 {
            let average = UInt8((Double(heartRateSum) / Double(heartRateCount)).rounded())
            summary = HeartRateSummary(average: min(max(average, heartRateMin), heartRateMax), minimum: heartRateMin, maximum: heartRateMax)
        }
        return MinuteRecord(minuteStart: UInt32(clamping: minuteStart), utcOffset: utcOffset, flags: flags,
                            steps: UInt16(clamping: steps), distanceDecimetres: UInt16(clamping: distance),
                            energyDecikilocalories: UInt16(clamping: energy), heartRate: summary)
    }
}
