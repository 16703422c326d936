/// One reading of the band's cumulative activity counters, as the Live Activity characteristic
/// carries it (docs/protocol.md, "Band activity service"): totals since the band's local midnight
/// within one boot, tagged with the boot epoch and the local day they belong to.
public struct CounterReading: Hashable, Sendable {
    /// The band's clock, seconds since 1970-01-01 UTC.
    public var timestamp: UInt32
    /// Zone plus DST in force on the band, seconds east of UTC; nil when the band does not know.
    public var utcOffsetSeconds: Int?
    public var bootEpoch: UInt16
    /// Days since 1970-01-01 on the band's local calendar.
    public var localDay: UInt16
    public var steps: UInt32
    public var distanceDecimetres: UInt32
    public var energyDecikilocalories: UInt32

    public init(timestamp: UInt32, utcOffsetSeconds: Int?, bootEpoch: UInt16, localDay: UInt16,
                steps: UInt32, distanceDecimetres: UInt32, energyDecikilocalories: UInt32) {
        self.timestamp = timestamp
        self.utcOffsetSeconds = utcOffsetSeconds
        self.bootEpoch = bootEpoch
        self.localDay = localDay
        self.steps = steps
        self.distanceDecimetres = distanceDecimetres
        self.energyDecikilocalories = energyDecikilocalories
    }

    /// Whether `localDay` is the day `timestamp` falls on at `utcOffsetSeconds`. A reading whose
    /// fields contradict each other was damaged on the way and is not used.
    public var isSelfConsistent: Bool {
        guard let utcOffsetSeconds else { return true }
        let local = Int64(timestamp) + Int64(utcOffsetSeconds)
        return local >= 0 && local / 86_400 == Int64(localDay)
    }
}

/// Activity between two counter readings.
public struct CounterDelta: Hashable, Sendable {
    public var steps: UInt32
    public var distanceDecimetres: UInt32
    public var energyDecikilocalories: UInt32

    public init(steps: UInt32 = 0, distanceDecimetres: UInt32 = 0, energyDecikilocalories: UInt32 = 0) {
        self.steps = steps
        self.distanceDecimetres = distanceDecimetres
        self.energyDecikilocalories = energyDecikilocalories
    }

    public static let zero = CounterDelta()
    public var isZero: Bool { steps == 0 && distanceDecimetres == 0 && energyDecikilocalories == 0 }
}
