import BandWire

/// Live Activity (`b5c00002-…`, read + notify): today's cumulative counters.
///
/// Counters are cumulative since the band's *local* midnight within one boot, tagged with the
/// boot epoch and the local day they belong to. A reader turns them into deltas only between two
/// values with the same `(bootEpoch, localDay)`; a change of either is a reset, never data loss
/// or negative steps (peers.md: GB #91, IT #1270, IT #1478). The band's minute history is the
/// authority; live values are provisional.
///
/// Fixed 20 bytes, so one value fits a notification at the default ATT_MTU of 23.
///
/// | offset | bytes | field | unit |
/// |---|---|---|---|
/// | 0 | 4 | timestamp: the band's clock when the counters were read | uint32 LE, s since 1970-01-01 UTC |
/// | 4 | 1 | UTC offset in force (zone + DST) | ``LocalTimeOffset``, sint8 ×15 min |
/// | 5 | 2 | boot epoch: +1 at every boot, kept in flash | uint16 LE, wraps |
/// | 7 | 2 | local day the counters belong to | uint16 LE, days since 1970-01-01 on the band's calendar |
/// | 9 | 1 | flags | ``LiveActivityFlags`` |
/// | 10 | 4 | steps | uint32 LE |
/// | 14 | 3 | distance | uint24 LE, decimetres |
/// | 17 | 3 | active energy | uint24 LE, 0.1 kcal |
public struct LiveActivity: Hashable, Sendable, WireCodable {
    public static let size = 20

    public var timestamp: UInt32
    public var utcOffset: LocalTimeOffset
    public var bootEpoch: UInt16
    public var localDay: UInt16
    public var flags: LiveActivityFlags
    public var steps: UInt32
    /// Distance in decimetres (0.1 m); at most 0xFFFFFF.
    public var distanceDecimetres: UInt32
    /// Active energy in 0.1 kcal; at most 0xFFFFFF.
    public var energyDecikilocalories: UInt32

    public init(timestamp: UInt32, utcOffset: LocalTimeOffset, bootEpoch: UInt16, localDay: UInt16,
                flags: LiveActivityFlags, steps: UInt32, distanceDecimetres: UInt32, energyDecikilocalories: UInt32) {
        precondition(distanceDecimetres <= 0xFF_FFFF && energyDecikilocalories <= 0xFF_FFFF, "uint24 field out of range")
        self.timestamp = timestamp
        self.utcOffset = utcOffset
        self.bootEpoch = bootEpoch
        self.localDay = localDay
        self.flags = flags
        self.steps = steps
        self.distanceDecimetres = distanceDecimetres
        self.energyDecikilocalories = energyDecikilocalories
    }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        timestamp = try input.readUInt32LE("live timestamp")
        utcOffset = try LocalTimeOffset(parsing: &input)
        bootEpoch = try input.readUInt16LE("boot epoch")
        localDay = try input.readUInt16LE("local day")
        flags = LiveActivityFlags(rawValue: try input.readUInt8("live flags"))
        steps = try input.readUInt32LE("steps")
        distanceDecimetres = try input.readUInt24LE("distance")
        energyDecikilocalories = try input.readUInt24LE("active energy")
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt32LE(timestamp)
        utcOffset.encode(into: &output)
        output.writeUInt16LE(bootEpoch)
        output.writeUInt16LE(localDay)
        output.writeUInt8(flags.rawValue)
        output.writeUInt32LE(steps)
        output.writeUInt24LE(distanceDecimetres)
        output.writeUInt24LE(energyDecikilocalories)
    }
}
