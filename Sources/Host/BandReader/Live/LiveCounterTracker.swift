/// Turns the band's cumulative counters into per-reading deltas without ever producing a
/// negative or inflated value.
///
/// The rules, each with a named test (LiveCounterTrackerTests):
///
/// | situation | delta |
/// |---|---|
/// | first reading of a connection | none: it only sets the baseline (history covers the time before) |
/// | same boot, same day, counter grew | the difference |
/// | same boot, same day, counter wrapped (uint32 steps, uint24 distance and energy) | the modular difference, if plausible |
/// | same boot, next local day (midnight reset) | the new value: everything counted since midnight happened after the previous reading |
/// | new boot epoch (the band rebooted) | the new value: everything counted since boot happened after the previous reading |
/// | clock or day going backwards, fields contradicting each other, a counter shrinking without a reset, or more activity than a body can produce in the elapsed time | none: the reading is rejected and becomes the new baseline |
///
/// "Plausible" bounds each delta by a maximum rate times the band-clock time elapsed since the
/// previous reading (at least one second), which is what catches a corrupted notification: one
/// flipped bit in the high byte of a counter would otherwise add millions of steps (the IT #928
/// and GB #448 class of bug in peers.md). Live values are provisional in any case; the band's
/// minute history replaces them.
public struct LiveCounterTracker: Sendable {
    /// Upper bounds on what a person can do per second.
    public struct Limits: Sendable {
        public var stepsPerSecond: UInt32 = 6
        public var decimetresPerSecond: UInt32 = 120
        public var decikilocaloriesPerSecond: UInt32 = 10
        public init() {}
    }

    public enum Outcome: Hashable, Sendable {
        case baseline
        case increase
        case wrapped
        case midnightReset
        case reboot
        case rejected(String)
    }

    public var limits: Limits
    public private(set) var last: CounterReading?

    public init(limits: Limits = Limits()) { self.limits = limits }

    /// Forget the baseline (a new connection starts from scratch).
    public mutating func reset() { last = nil }

    /// The activity since the previous reading, and how it was derived.
    public mutating func update(with reading: CounterReading) -> (CounterDelta, Outcome) {
        guard reading.isSelfConsistent else {
            return (.zero, .rejected("local day \(reading.localDay) does not match timestamp \(reading.timestamp)"))
        }
        guard let previous = last else {
            last = reading
            return (.zero, .baseline)
        }
        last = reading
        guard reading.timestamp >= previous.timestamp else {
            return (.zero, .rejected("band clock went back from \(previous.timestamp) to \(reading.timestamp)"))
        }
        let elapsed = max(1, reading.timestamp - previous.timestamp)
        let outcome: Outcome
        var delta = CounterDelta()
        if reading.bootEpoch != previous.bootEpoch {
            outcome = .reboot
            delta = CounterDelta(steps: reading.steps, distanceDecimetres: reading.distanceDecimetres,
                                 energyDecikilocalories: reading.energyDecikilocalories)
        } else if reading.localDay != previous.localDay {
            guard reading.localDay > previous.localDay else {
                return (.zero, .rejected("local day went back from \(previous.localDay) to \(reading.localDay)"))
            }
            outcome = .midnightReset
            delta = CounterDelta(steps: reading.steps, distanceDecimetres: reading.distanceDecimetres,
                                 energyDecikilocalories: reading.energyDecikilocalories)
        } else {
            var wrapped = false
            guard let steps = Self.difference(previous.steps, reading.steps, width: 32, wrapped: &wrapped),
                  let distance = Self.difference(previous.distanceDecimetres, reading.distanceDecimetres, width: 24, wrapped: &wrapped),
                  let energy = Self.difference(previous.energyDecikilocalories, reading.energyDecikilocalories, width: 24, wrapped: &wrapped)
            else {
                return (.zero, .rejected("a counter shrank within one boot and day"))
            }
            delta = CounterDelta(steps: steps, distanceDecimetres: distance, energyDecikilocalories: energy)
            outcome = wrapped ? .wrapped : .increase
        }
        if let excess = implausible(delta, elapsed: elapsed) {
            return (.zero, .rejected(excess))
        }
        return (delta, outcome)
    }

    /// `new − old` for a counter of `width` bits. A smaller `new` is a wrap only when the counter
    /// was in the top quarter of its range and is now in the bottom quarter; anything else that
    /// shrinks is not a wrap and returns nil.
    static func difference(_ old: UInt32, _ new: UInt32, width: UInt32, wrapped: inout Bool) -> UInt32? {
        if new >= old { return new - old }
        let modulus = UInt64(1) << UInt64(width)
        let quarter = modulus / 4
        guard UInt64(old) >= modulus - quarter, UInt64(new) < quarter else { return nil }
        wrapped = true
        return UInt32(UInt64(new) + modulus - UInt64(old))
    }

    private func implausible(_ delta: CounterDelta, elapsed: UInt32) -> String? {
        let seconds = UInt64(elapsed)
        if UInt64(delta.steps) > UInt64(limits.stepsPerSecond) * seconds {
            return "\(delta.steps) steps in \(elapsed) s is more than a person can walk"
        }
        if UInt64(delta.distanceDecimetres) > UInt64(limits.decimetresPerSecond) * seconds {
            return "\(delta.distanceDecimetres) dm in \(elapsed) s is faster than a person can run"
        }
        if UInt64(delta.energyDecikilocalories) > UInt64(limits.decikilocaloriesPerSecond) * seconds {
            return "\(delta.energyDecikilocalories) × 0.1 kcal in \(elapsed) s is more than a person can burn"
        }
        return nil
    }
}
