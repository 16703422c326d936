import BandProtocol

/// What the band's sensors produced in one second: the event that feeds the minute record,
/// the daily counters and the live notifications.
public struct SecondSample: Sendable {
    public var worn: Bool
    public var steps: Int
    public var distanceDecimetres: Int
    public var energyDecikilocalories: Int
    public var heartRate: UInt8?
    /// RR intervals that ended in this second (1/1024 s), oldest first.
    package var rrIntervals: RRList
    public var cadence: Double
    public var strideMetres: Double
    public var speedMetresPerSecond: Double
    public var running: Bool
    /// The walk or run session this second belongs to (``ActivityKind/sessionActivity``), none
    /// when the band is not worn.
    public var activity: MinuteActivity

    public var rrIntervalCount: Int { rrIntervals.count }
    public func rrInterval(_ index: Int) -> UInt16 { rrIntervals[index] }
}
