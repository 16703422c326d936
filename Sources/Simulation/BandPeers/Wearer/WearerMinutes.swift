/// What the simulated wearer of a peer does in each minute: steps taken and heart rate (nil
/// when the device is off the wrist or has no reading). A pure function of the seed and the
/// minute, so any minute can be asked for in any order and the same seed gives the same day.
///
/// The day's shape follows the wearer's local clock (`utcOffsetSeconds`, fixed at start): asleep
/// 00:30–07:00 (no steps, 48–58 bpm; awake around midnight, so a midnight reset has steps on both sides), awake with walks of 60–125 steps a minute in about one minute
/// in four otherwise (65–110 bpm), and off the wrist 19:00–19:19 (a shower: no steps, no reading).
public struct WearerMinutes: Sendable {
    public struct Minute: Equatable, Sendable {
        public var steps: UInt32
        public var heartRate: UInt8?
        public var onWrist: Bool
    }

    public let seed: UInt64
    public let utcOffsetSeconds: Int

    public init(seed: UInt64, utcOffsetSeconds: Int) {
        self.seed = seed
        self.utcOffsetSeconds = utcOffsetSeconds
    }

    /// The minute starting at `minuteStart` (UTC ms, a whole minute).
    public func minute(at minuteStart: PeerMilliseconds) -> Minute {
        let index = PeerTime.floorDivide(minuteStart, PeerTime.minuteMs)
        var random = Self.mix(seed ^ UInt64(bitPattern: index) &* 0x9E37_79B9_7F4A_7C15)
        func next(_ range: ClosedRange<UInt64>) -> UInt64 {
            random = Self.mix(random)
            return range.lowerBound + random % (range.upperBound - range.lowerBound + 1)
        }
        let local = index + Int64(utcOffsetSeconds / 60)
        let minuteOfDay = local - PeerTime.floorDivide(local, 1440) * 1440
        if (19 * 60..<19 * 60 + 20).contains(minuteOfDay) {
            return Minute(steps: 0, heartRate: nil, onWrist: false)
        }
        if (30..<7 * 60).contains(minuteOfDay) {
            return Minute(steps: 0, heartRate: UInt8(next(48...58)), onWrist: true)
        }
        if next(0...3) == 0 {
            let steps = next(60...125)
            return Minute(steps: UInt32(steps), heartRate: UInt8(90 + steps / 6), onWrist: true)
        }
        return Minute(steps: UInt32(next(0...12)), heartRate: UInt8(next(65...85)), onWrist: true)
    }

    /// SplitMix64's finaliser.
    static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
