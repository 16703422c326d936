import Foundation
import SeededRandom

/// A wearer's day as a band would record it, minute by minute, from a plan of what they did:
/// the scorer's input with a known truth, without the band's firmware.
///
/// One second at a time, as a wrist sensor sees it: the pulse approaches a target set by the
/// activity (sleep 0.87 × resting, desk 1.1 × resting, walking and running rise with cadence),
/// faster on the way up (τ = 25 s) than down (τ = 60 s), with a slow random drift and beat noise;
/// steps come from the cadence (walk 110, run 165 per minute; at a desk an occasional short
/// stroll at 95), none asleep or off the wrist. A minute's record is its step count and the mean
/// pulse of its worn seconds; a minute off the wrist has neither. Seeded, so a failure repeats.
struct NightFixture {
    enum Activity: Equatable {
        case sleep, desk, walk, run
        /// The band lies on a table: no steps, no pulse.
        case notWorn

        var isWorn: Bool { self != .notWorn }
    }

    /// What the wearer does from `startMinute` (minutes after midnight) until the next entry.
    struct Segment {
        var startMinute: Int
        var activity: Activity
    }

    let plan: [Segment]
    var restingHeartRate = 60.0
    var maximumHeartRate = 190.0

    /// The activity at `minuteOfDay` (the plan repeats every day; it starts at minute 0).
    func activity(atMinute minuteOfDay: Int) -> Activity {
        plan.last { $0.startMinute <= minuteOfDay % 1440 }?.activity ?? plan[0].activity
    }

    struct Minute {
        var minuteOfDay: Int
        var activity: Activity
        var steps: Int
        /// Mean pulse of the worn seconds, nil off the wrist.
        var heartRate: Double?
    }

    /// `count` minutes from `startMinute` (of the day), the pulse starting at rest.
    func minutes(from startMinute: Int, count: Int, seed: UInt64) -> [Minute] {
        var random = SplitMix64(seed: seed)
        var rate = restingHeartRate
        var drift = 0.0
        var stepCarry = 0.0
        var strollSecondsLeft = 0
        var result: [Minute] = []
        result.reserveCapacity(count)
        for offset in 0..<count {
            let minuteOfDay = (startMinute + offset) % 1440
            let activity = activity(atMinute: minuteOfDay)
            var steps = 0
            var pulseSum = 0.0
            for _ in 0..<60 {
                var cadence = 0.0
                switch activity {
                case .walk: cadence = 110 * (1 + 0.05 * random.gaussian())
                case .run: cadence = 165 * (1 + 0.02 * random.gaussian())
                case .desk:
                    if strollSecondsLeft == 0, random.unit() < 1.0 / 900 { strollSecondsLeft = 15 + Int(random.unit() * 60) }
                    if strollSecondsLeft > 0 { strollSecondsLeft -= 1; cadence = 95 }
                case .sleep, .notWorn: strollSecondsLeft = 0
                }
                stepCarry += cadence / 60
                steps += Int(stepCarry)
                stepCarry -= Double(Int(stepCarry))

                var target: Double
                switch activity {
                case .sleep: target = 0.87 * restingHeartRate
                case .desk: target = 1.1 * restingHeartRate + (cadence > 0 ? 15 : 0)
                case .walk: target = restingHeartRate + 20 + max(0, cadence - 90) * 0.6
                case .run: target = restingHeartRate + 75 + max(0, cadence - 150) * 0.8
                case .notWorn: target = 1.05 * restingHeartRate
                }
                target = min(target, maximumHeartRate)
                rate += (target - rate) * (1 - exp(-1 / (target > rate ? 25.0 : 60.0)))
                drift = drift * 0.995 + 0.15 * random.gaussian()
                // A sensor's reading: the mean of the last few beats, each ±1.5 %.
                pulseSum += min(maximumHeartRate, max(35, rate + drift)) * (1 + 0.0075 * random.gaussian())
            }
            result.append(Minute(minuteOfDay: minuteOfDay, activity: activity, steps: activity.isWorn ? steps : 0,
                                 heartRate: activity.isWorn ? (pulseSum / 60).rounded() : nil))
        }
        return result
    }
}
