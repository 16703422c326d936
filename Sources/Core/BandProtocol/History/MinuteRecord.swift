import BandWire

/// One minute of history, as stored in the band's flash ring and sent in ``HistoryDataPacket``s.
///
/// Fixed 16 bytes so a record is addressable by sequence number alone and one fits a default-MTU
/// notification next to the packet header. The minute is identified by its UTC start plus the
/// offset that was in force, so a reader never guesses the day from its own time zone (GB's
/// `sameDay()` uses the host's; itd truncates half-hour zones — peers.md).
///
/// | offset | bytes | field | unit |
/// |---|---|---|---|
/// | 0 | 4 | minute start | uint32 LE, s since 1970-01-01 UTC, multiple of 60 |
/// | 4 | 1 | UTC offset in force | ``LocalTimeOffset``, sint8 ×15 min |
/// | 5 | 1 | flags | ``MinuteRecordFlags`` |
/// | 6 | 2 | steps | uint16 LE |
/// | 8 | 2 | distance | uint16 LE, decimetres |
/// | 10 | 2 | active energy | uint16 LE, 0.1 kcal |
/// | 12 | 1 | heart rate average | uint8 bpm, 0 when flag bit 1 clear |
/// | 13 | 1 | heart rate minimum | uint8 bpm, 0 when flag bit 1 clear |
/// | 14 | 1 | heart rate maximum | uint8 bpm, 0 when flag bit 1 clear |
/// | 15 | 1 | activity | ``MinuteActivity``: 0 none, 1 walking, 2 running (open) |
///
/// Byte 15 was "reserved, 0" before the activity sessions; an old band's record therefore
/// decodes as before, with activity none and no session. The history CRC covers all 16 bytes,
/// so it covers the activity and the session-start bit as well.
///
/// Errors: a start that is not on a minute boundary, heart-rate bytes that contradict
/// flag bit 1 or are not `0 < min ≤ avg ≤ max`, or a session start (flag bit 4) on a minute
/// whose activity is none, are ``ParseError/Kind/invalidValue``.
public struct MinuteRecord: Hashable, Sendable, WireCodable {
    public static let size = 16
    /// The last minute a record can name: the largest multiple of 60 a uint32 holds
    /// (2106-02-07 06:28 UTC). A band's clock beyond it records no history (``canHold(minuteStart:)``).
    public static let latestMinuteStart: Int64 = 4_294_967_280

    /// Whether a minute starting at `minuteStart` (s since 1970 UTC, a multiple of 60) fits a record.
    public static func canHold(minuteStart: Int64) -> Bool { (0...latestMinuteStart).contains(minuteStart) }

    public var minuteStart: UInt32
    public var utcOffset: LocalTimeOffset
    /// Flags as sent; ``MinuteRecordFlags/heartRatePresent`` always agrees with ``heartRate``.
    public var flags: MinuteRecordFlags
    public var steps: UInt16
    public var distanceDecimetres: UInt16
    public var energyDecikilocalories: UInt16
    public var heartRate: HeartRateSummary?
    /// The walk or run session this minute belongs to, if any; with
    /// ``MinuteRecordFlags/sessionStart`` in ``flags`` it is the session's first minute.
    public var activity: MinuteActivity

    /// A session start flag on a minute without an activity is dropped (it could not be sent).
    public init(minuteStart: UInt32, utcOffset: LocalTimeOffset, flags: MinuteRecordFlags, steps: UInt16,
                distanceDecimetres: UInt16, energyDecikilocalories: UInt16, heartRate: HeartRateSummary?,
                activity: MinuteActivity = .none) {
        precondition(minuteStart % 60 == 0, "minute start must be on a minute boundary")
        precondition(heartRate?.isConsistent ?? true, "heart rate summary must satisfy 0 < min <= avg <= max")
        self.minuteStart = minuteStart
        self.utcOffset = utcOffset
        var flags = flags
        if heartRate == nil { flags.remove(.heartRatePresent) } else { flags.insert(.heartRatePresent) }
        if !activity.isSession { flags.remove(.sessionStart) }
        self.flags = flags
        self.activity = activity
        self.steps = steps
        self.distanceDecimetres = distanceDecimetres
        self.energyDecikilocalories = energyDecikilocalories
        self.heartRate = heartRate
    }

    public var worn: Bool { flags.contains(.worn) }
    /// True when this minute opens a new walk or run session.
    public var startsSession: Bool { flags.contains(.sessionStart) }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        let startOffset = input.offset
        let flagsOffset = startOffset + 5
        minuteStart = try input.readUInt32LE("minute start")
        utcOffset = try LocalTimeOffset(parsing: &input)
        flags = MinuteRecordFlags(rawValue: try input.readUInt8("minute flags"))
        steps = try input.readUInt16LE("minute steps")
        distanceDecimetres = try input.readUInt16LE("minute distance")
        energyDecikilocalories = try input.readUInt16LE("minute active energy")
        let hrOffset = input.offset
        let average = try input.readUInt8("heart rate average")
        let minimum = try input.readUInt8("heart rate minimum")
        let maximum = try input.readUInt8("heart rate maximum")
        activity = try MinuteActivity(parsing: &input)
        guard minuteStart % 60 == 0 else {
            throw ParseError(.invalidValue, at: startOffset, field: "minute start (not on a minute boundary)")
        }
        guard activity.isSession || !flags.contains(.sessionStart) else {
            throw ParseError(.invalidValue, at: flagsOffset, field: "minute flags (session start without an activity in byte 15)")
        }
        if flags.contains(.heartRatePresent) {
            let summary = HeartRateSummary(average: average, minimum: minimum, maximum: maximum)
            guard summary.isConsistent else {
                throw ParseError(.invalidValue, at: hrOffset, field: "heart rate summary (needs 0 < min <= avg <= max)")
            }
            heartRate = summary
        } else {
            guard average == 0, minimum == 0, maximum == 0 else {
                throw ParseError(.invalidValue, at: hrOffset, field: "heart rate bytes (must be 0 when not measured)")
            }
            heartRate = nil
        }
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt32LE(minuteStart)
        utcOffset.encode(into: &output)
        output.writeUInt8(flags.rawValue)
        output.writeUInt16LE(steps)
        output.writeUInt16LE(distanceDecimetres)
        output.writeUInt16LE(energyDecikilocalories)
        output.writeUInt8(heartRate?.average ?? 0)
        output.writeUInt8(heartRate?.minimum ?? 0)
        output.writeUInt8(heartRate?.maximum ?? 0)
        activity.encode(into: &output)
    }
}
