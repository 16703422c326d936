import BandWire

/// One thing a gateway kept in its spool while the store was unreachable: a live minute, a
/// step gap (a running total's growth while away), or the band's battery level. Replayed into
/// the store through ``SampleWriter/writeLive(_:batteryPercent:batteryTime:stepGaps:)``, the
/// write path they would have taken (``LiveSpool``).
///
/// The payload of one spool record (``SpoolFile``), little-endian, by kind:
///
/// **1 — live minute** (``LiveMinute``; 70 bytes + 2 per RR interval):
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 4 | minute start, Unix seconds, a multiple of 60 |
/// | 4 | 1 | 1 when a UTC offset follows in force, else 0 |
/// | 5 | 4 | UTC offset, seconds (signed, within ±18 h; 0 when absent) |
/// | 9 | 4 | steps |
/// | 13 | 4 | distance, decimetres |
/// | 17 | 4 | energy, decikilocalories |
/// | 21 | 4 | heart-rate readings |
/// | 25 | 4 | their sum, bpm |
/// | 29 | 1 | minimum bpm (0 when no reading) |
/// | 30 | 1 | maximum bpm |
/// | 31 | 4 | readings without skin contact |
/// | 35 | 4 | energy expended, kJ |
/// | 39 | 8 | part (the stream's first reading, ms since 1970; signed) |
/// | 47 | 4 | counted steps (a running total's per-minute growth) |
/// | 51 | 1 | 1 when a running step total follows, else 0 |
/// | 52 | 4 | running total |
/// | 56 | 4 | its time, Unix seconds |
/// | 60 | 8 | its local day, days since 1970 (signed) |
/// | 68 | 2 | RR intervals *n* (≤ ``maximumRRIntervals``) |
/// | 70 | 2·*n* | RR intervals, 1/1024 s |
///
/// **2 — step gap** (``StepGap``; 37 bytes): steps u32, from u32, to u32 (≥ from), reason u8
/// (0 first sight, 1 away, 2 reboot, 3 midnight), UTC offset i32, then the total as in kind 1
/// (total u32, time u32, local day i64) and 4 reserved zero bytes.
///
/// **3 — battery** (5 bytes): percent u8 (0…100), time u32 (Unix seconds).
public enum SpoolEntry: Equatable, Sendable {
    case minute(LiveMinute)
    case stepGap(StepGap)
    case battery(percent: Int, time: UInt32)

    /// Kind byte of each case, in the record header.
    public enum Kind: UInt8, Sendable {
        case minute = 1
        case stepGap = 2
        case battery = 3
    }

    /// More RR intervals than a minute can hold at 300 bpm is damage, not data.
    public static let maximumRRIntervals = 600
    /// The largest payload any kind has.
    public static let maximumPayloadSize = 70 + 2 * maximumRRIntervals

    public var kind: Kind {
        switch self {
        case .minute: .minute
        case .stepGap: .stepGap
        case .battery: .battery
        }
    }

    /// Decodes a payload of `kind`, which must fill `input` exactly.
    public init(kind: UInt8, parsing input: inout ByteCursor) throws(ParseError) {
        switch Kind(rawValue: kind) {
        case .minute?: self = .minute(try Self.parseMinute(&input))
        case .stepGap?: self = .stepGap(try Self.parseGap(&input))
        case .battery?:
            let percent = try input.readUInt8("battery percent")
            guard percent <= 100 else { throw ParseError(.invalidValue, at: input.offset - 1, field: "battery percent") }
            self = .battery(percent: Int(percent), time: try input.readUInt32LE("battery time"))
        case nil:
            throw ParseError(.unsupported, at: input.offset, field: "spool entry kind")
        }
        try input.expectEnd("spool entry")
    }

    public func encode(into output: inout ByteWriter) {
        switch self {
        case .minute(let minute):
            output.writeUInt32LE(minute.start)
            output.writeUInt8(minute.utcOffsetSeconds == nil ? 0 : 1)
            output.writeInt32LE(Int32(clamping: minute.utcOffsetSeconds ?? 0))
            output.writeUInt32LE(minute.activity.steps)
            output.writeUInt32LE(minute.activity.distanceDecimetres)
            output.writeUInt32LE(minute.activity.energyDecikilocalories)
            let heart = minute.heartRate
            output.writeUInt32LE(UInt32(clamping: heart.count))
            output.writeUInt32LE(UInt32(clamping: heart.sum))
            output.writeUInt8(heart.count == 0 ? 0 : UInt8(clamping: heart.minimum))
            output.writeUInt8(heart.count == 0 ? 0 : UInt8(clamping: heart.maximum))
            output.writeUInt32LE(UInt32(clamping: heart.withoutContact))
            output.writeUInt32LE(UInt32(clamping: minute.energyKilojoules))
            output.writeUInt64LE(UInt64(bitPattern: minute.part))
            output.writeUInt32LE(minute.countedSteps)
            output.writeUInt8(minute.stepCountEnd == nil ? 0 : 1)
            Self.encode(minute.stepCountEnd ?? StepCountState(total: 0, time: 0, localDay: 0), into: &output)
            let intervals = minute.rrIntervals.prefix(Self.maximumRRIntervals)
            output.writeUInt16LE(UInt16(intervals.count))
            for interval in intervals { output.writeUInt16LE(interval) }
        case .stepGap(let gap):
            output.writeUInt32LE(gap.steps)
            output.writeUInt32LE(gap.from)
            output.writeUInt32LE(gap.to)
            output.writeUInt8(Self.reasonCodes.firstIndex(of: gap.reason).map(UInt8.init) ?? 0)
            output.writeInt32LE(Int32(clamping: gap.utcOffsetSeconds))
            Self.encode(gap.total, into: &output)
            output.writeUInt32LE(0)
        case .battery(let percent, let time):
            output.writeUInt8(UInt8(clamping: percent))
            output.writeUInt32LE(time)
        }
    }

    // MARK: Parts

    private static let reasonCodes: [StepCountTracker.GapReason] = [.firstSight, .away, .rebootWhileAway, .midnightWhileAway]
    /// Zones run from UTC−12 to UTC+14; ±18 h is ISO 8601's bound.
    private static let offsetBound: Int32 = 18 * 3600

    private static func parseOffset(_ input: inout ByteCursor) throws(ParseError) -> Int32 {
        let at = input.offset
        let offset = try input.readInt32LE("UTC offset")
        guard abs(offset) <= offsetBound else { throw ParseError(.invalidValue, at: at, field: "UTC offset") }
        return offset
    }

    private static func parseMinute(_ input: inout ByteCursor) throws(ParseError) -> LiveMinute {
        let startAt = input.offset
        let start = try input.readUInt32LE("minute start")
        guard start % 60 == 0 else { throw ParseError(.invalidValue, at: startAt, field: "minute start") }
        let hasOffset = try flag(&input, "UTC offset present")
        let offset = try parseOffset(&input)
        var minute = LiveMinute(start: start, utcOffsetSeconds: hasOffset ? Int(offset) : nil)
        minute.activity = CounterDelta(steps: try input.readUInt32LE("steps"), distanceDecimetres: try input.readUInt32LE("distance"),
                                       energyDecikilocalories: try input.readUInt32LE("energy"))
        let heartAt = input.offset
        let count = Int(try input.readUInt32LE("heart-rate readings"))
        let sum = Int(try input.readUInt32LE("heart-rate sum"))
        let minimum = Int(try input.readUInt8("heart-rate minimum"))
        let maximum = Int(try input.readUInt8("heart-rate maximum"))
        let withoutContact = Int(try input.readUInt32LE("readings without contact"))
        guard let heart = HeartRateAccumulator(count: count, sum: sum, minimum: count == 0 ? .max : minimum,
                                               maximum: count == 0 ? 0 : maximum, withoutContact: withoutContact) else {
            throw ParseError(.invalidValue, at: heartAt, field: "heart-rate readings")
        }
        minute.heartRate = heart
        minute.energyKilojoules = Int(try input.readUInt32LE("energy expended"))
        minute.part = Int64(bitPattern: try input.readUInt64LE("part"))
        minute.countedSteps = try input.readUInt32LE("counted steps")
        let hasTotal = try flag(&input, "running total present")
        let total = try parseTotal(&input)
        minute.stepCountEnd = hasTotal ? total : nil
        let rrAt = input.offset
        let intervals = Int(try input.readUInt16LE("RR interval count"))
        guard intervals <= maximumRRIntervals else { throw ParseError(.invalidValue, at: rrAt, field: "RR interval count") }
        minute.rrIntervals.reserveCapacity(intervals)
        for _ in 0..<intervals { minute.rrIntervals.append(try input.readUInt16LE("RR interval")) }
        return minute
    }

    private static func parseGap(_ input: inout ByteCursor) throws(ParseError) -> StepGap {
        let steps = try input.readUInt32LE("gap steps")
        let from = try input.readUInt32LE("gap start")
        let toAt = input.offset
        let to = try input.readUInt32LE("gap end")
        guard to >= from else { throw ParseError(.invalidValue, at: toAt, field: "gap end") }
        let reasonAt = input.offset
        let code = Int(try input.readUInt8("gap reason"))
        guard code < reasonCodes.count else { throw ParseError(.invalidValue, at: reasonAt, field: "gap reason") }
        let offset = try parseOffset(&input)
        let total = try parseTotal(&input)
        let reservedAt = input.offset
        guard try input.readUInt32LE("reserved") == 0 else { throw ParseError(.invalidValue, at: reservedAt, field: "reserved") }
        return StepGap(steps: steps, from: from, to: to, reason: reasonCodes[code], utcOffsetSeconds: Int(offset), total: total)
    }

    private static func parseTotal(_ input: inout ByteCursor) throws(ParseError) -> StepCountState {
        StepCountState(total: try input.readUInt32LE("running total"), time: try input.readUInt32LE("running total time"),
                       localDay: Int64(bitPattern: try input.readUInt64LE("running total day")))
    }

    private static func encode(_ total: StepCountState, into output: inout ByteWriter) {
        output.writeUInt32LE(total.total)
        output.writeUInt32LE(total.time)
        output.writeUInt64LE(UInt64(bitPattern: total.localDay))
    }

    private static func flag(_ input: inout ByteCursor, _ field: StaticString) throws(ParseError) -> Bool {
        let at = input.offset
        switch try input.readUInt8(field) {
        case 0: return false
        case 1: return true
        default: throw ParseError(.invalidValue, at: at, field: field)
        }
    }
}
