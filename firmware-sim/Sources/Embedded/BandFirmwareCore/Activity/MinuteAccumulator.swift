import BandProtocol

/// Builds the minute record for the minute in progress from its seconds.
///
/// The minute's activity is the session activity most of its seconds had (a tie goes to none,
/// then walking); it starts a session (flag bit 4) when it is a walk or run and the minute
/// recorded before it (``previousActivity``, kept in RAM by ``BandCore``) had another activity.
package struct MinuteAccumulator {
    /// Band time of the minute's start, in seconds (a multiple of 60).
    package var minuteStart: Int64
    package var utcOffset: LocalTimeOffset
    package var partial: Bool
    package var clockSet: Bool
    /// The activity of the record before this minute; none after a boot (RAM is empty).
    package var previousActivity: MinuteActivity
    private var steps = 0
    private var distance = 0
    private var energy = 0
    private var worn = false
    private var heartRateSum = 0
    private var heartRateCount = 0
    private var heartRateMin = UInt8.max
    private var heartRateMax = UInt8.min
    private var walkingSeconds = 0
    private var runningSeconds = 0
    private var otherSeconds = 0

    package init(minuteStart: Int64, utcOffset: LocalTimeOffset, partial: Bool, clockSet: Bool,
         previousActivity: MinuteActivity = .none) {
        self.minuteStart = minuteStart
        self.utcOffset = utcOffset
        self.partial = partial
        self.clockSet = clockSet
        self.previousActivity = previousActivity
    }

    package mutating func add(_ second: SecondSample) {
        steps += second.steps
        distance += second.distanceDecimetres
        energy += second.energyDecikilocalories
        worn = worn || second.worn
        switch second.activity {
        case .walking: walkingSeconds += 1
        case .running: runningSeconds += 1
        default: otherSeconds += 1
        }
        // 0 bpm is no reading (a summary holds 0 < min ≤ avg ≤ max).
        if let hr = second.heartRate, hr > 0 {
            heartRateSum += Int(hr)
            heartRateCount += 1
            heartRateMin = min(heartRateMin, hr)
            heartRateMax = max(heartRateMax, hr)
        }
    }

    /// The session activity held for most of the minute's seconds.
    package var activity: MinuteActivity {
        if otherSeconds >= walkingSeconds && otherSeconds >= runningSeconds { return .none }
        return walkingSeconds >= runningSeconds ? .walking : .running
    }

    package var record: MinuteRecord {
        let activity = activity
        var flags: MinuteRecordFlags = []
        if activity.isSession && activity != previousActivity { flags.insert(.sessionStart) }
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
                            energyDecikilocalories: UInt16(clamping: energy), heartRate: summary, activity: activity)
    }
}
