/// Heart rate that follows activity, beat by beat.
///
/// The target rate depends on the activity (sleep 0.87 × resting, desk 1.1 × resting, walking
/// and running rise with cadence) and the actual rate approaches it exponentially — faster on
/// the way up (τ = 25 s) than down (τ = 60 s), as after real exercise — with a slow random walk
/// on top. Beats are then generated one by one: each RR interval is 60/HR seconds modulated by
/// respiratory sinus arrhythmia (±4 % at a 4.5 s breathing period) and ±1.5 % beat noise, so
/// consecutive RR intervals differ the way a chest strap's do. The reported heart rate is the
/// mean over the last 4 beats, as a sensor averages.
package struct HeartModel {
    private var rate: Double
    private var drift = 0.0
    /// Milliseconds into the next second at which the next beat falls.
    private var nextBeatOffset = 0.0
    private var recent = RecentBeats()
    private var breathingPhase = 0.0

    package init(wearer: Wearer) { rate = wearer.restingHeartRate }

    package struct Second {
        /// Reported rate in bpm, nil while not worn or before a beat was seen.
        var heartRate: UInt8?
        /// RR intervals that ended in this second, in 1/1024 s, oldest first (at most 4: 240 bpm).
        var rrIntervals: RRList
    }

    package mutating func tick(kind: ActivityKind, cadence: Double, wearer: Wearer, random: inout Xoshiro256StarStar) -> Second {
        let resting = wearer.restingHeartRate
        var target: Double
        switch kind {
        case .sleep: target = 0.87 * resting
        case .desk: target = 1.1 * resting + (cadence > 0 ? 15 : 0)
        case .walk: target = resting + 20 + max(0, cadence - 90) * 0.6
        case .run: target = resting + 75 + max(0, cadence - 150) * 0.8
        case .notWorn: target = 1.05 * resting
        }
        target = min(target, wearer.maximumHeartRate)
        let tau = target > rate ? 25.0 : 60.0
        rate += (target - rate) * (1 - _exp(-1 / tau))
        drift = drift * 0.995 + 0.15 * random.gaussian()
        let instantaneous = min(wearer.maximumHeartRate, max(35, rate + drift))

        var rr = RRList()
        // The heart beats whether or not the band can see it; beats are generated either way
        // so putting the band back on does not restart the rhythm.
        while nextBeatOffset < 1000 {
            breathingPhase += 60 / instantaneous / 4.5
            let modulation = 1 + 0.04 * _sin(2 * .pi * breathingPhase) + 0.015 * random.gaussian()
            let interval = 60_000 / instantaneous * modulation
            nextBeatOffset += interval
            let units = UInt16(min(65_535, max(1, (interval * 1.024).rounded())))
            if kind.isWorn { rr.append(units) }
            recent.append(units)
        }
        nextBeatOffset -= 1000
        guard kind.isWorn, let mean = recent.meanInterval else {
            return Second(heartRate: nil, rrIntervals: RRList())
        }
        let bpm = (60 * 1024 / mean).rounded()
        return Second(heartRate: UInt8(min(255, max(1, bpm))), rrIntervals: rr)
    }
}

/// Up to 4 RR intervals (1/1024 s) in inline storage.
package struct RRList: Sendable {
    private(set) var count = 0
    private var storage: InlineArray<4, UInt16> = InlineArray(repeating: 0)

    package mutating func append(_ value: UInt16) {
        guard count < 4 else { return }
        storage[count] = value
        count += 1
    }

    subscript(index: Int) -> UInt16 { storage[index] }
}

/// The last 4 beat intervals, for the reported rate.
private struct RecentBeats {
    private var values: InlineArray<4, UInt16> = InlineArray(repeating: 0)
    private var count = 0
    private var next = 0

    package mutating func append(_ value: UInt16) {
        values[next] = value
        next = (next + 1) % 4
        count = min(4, count + 1)
    }

    package var meanInterval: Double? {
        guard count > 0 else { return nil }
        var sum = 0.0
        for i in 0..<count { sum += Double(values[i]) }
        return sum / Double(count)
    }
}
