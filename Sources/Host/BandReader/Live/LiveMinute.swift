/// Everything the live stream said about one minute of the band's clock: the provisional
/// counterpart of the band's own minute history record.
public struct LiveMinute: Equatable, Sendable {
    /// The minute's start, seconds since 1970-01-01 UTC, a multiple of 60.
    public var start: UInt32
    /// Zone plus DST in force, seconds east of UTC (nil when the band did not say).
    public var utcOffsetSeconds: Int?
    public var activity = CounterDelta()
    public var heartRate = HeartRateAccumulator()
    /// RR intervals in 1/1024 s, in arrival order (Heart Rate Measurement, HRS 1.0 §3.1.1.5).
    public var rrIntervals: [UInt16] = []
    /// Energy Expended growth in kJ (Heart Rate Measurement, HRS 1.0 §3.1.1.3) filed under this
    /// minute: a strap's active energy, when the device has no activity counters.
    public var energyKilojoules = 0
    /// Which stream's contribution this is: the reader's time, in milliseconds since 1970, of the
    /// first reading filed under the minute (see `LiveMinuteParts`). Another stream filing
    /// readings under the same minute (after a reconnect, or a reader restart) has another part;
    /// a replay of the same recording has the same one.
    public var part: Int64 = 0
    /// Steps from a device whose only step figure is a daily running total (InfiniTime's Motion
    /// step count): a step count with no distance or energy, which such a device does not measure.
    public var countedSteps: UInt32 = 0
    /// The running total after the last reading filed here (``StepCountTracker``): stored with
    /// the minute, so a restarted reader continues from what was committed.
    public var stepCountEnd: StepCountState?

    public init(start: UInt32, utcOffsetSeconds: Int?) {
        self.start = start
        self.utcOffsetSeconds = utcOffsetSeconds
    }

    public var isEmpty: Bool {
        activity.isZero && heartRate.count == 0 && rrIntervals.isEmpty && energyKilojoules == 0 && countedSteps == 0
    }
}

/// Average, minimum and maximum of heart-rate readings, kept as a running sum (no list).
public struct HeartRateAccumulator: Equatable, Sendable {
    public private(set) var count: Int = 0
    public private(set) var sum: Int = 0
    public private(set) var minimum: Int = .max
    public private(set) var maximum: Int = 0
    /// Readings the sensor sent while it said it had no skin contact (flags bits 1–2 = 0b10):
    /// left out of the average, minimum and maximum, and counted here.
    public private(set) var withoutContact: Int = 0

    public init() {}

    /// A stored accumulator (the spool, ``SpoolEntry``): nil when the figures contradict each
    /// other (minimum above maximum, a sum outside count × plausible range).
    init?(count: Int, sum: Int, minimum: Int, maximum: Int, withoutContact: Int) {
        guard count >= 0, withoutContact >= 0 else { return nil }
        if count == 0 {
            guard sum == 0 else { return nil }
        } else {
            guard minimum >= 0, minimum <= maximum, maximum <= 255, sum >= count * minimum, sum <= count * maximum else { return nil }
            self.minimum = minimum
            self.maximum = maximum
        }
        self.count = count
        self.sum = sum
        self.withoutContact = withoutContact
    }

    public mutating func addWithoutContact() { withoutContact += 1 }

    public mutating func add(_ bpm: Int) {
        count += 1
        sum += bpm
        minimum = Swift.min(minimum, bpm)
        maximum = Swift.max(maximum, bpm)
    }

    /// Rounded half up, as the band rounds its minute averages.
    public var average: Int? { count == 0 ? nil : (sum * 2 + count) / (count * 2) }

    /// The readings of both: counts and sums added, the lower minimum, the higher maximum. An
    /// accumulator without readings contributes only its readings without contact, so whatever
    /// minimum and maximum it carries never reach the result.
    func merged(with other: Self) -> Self {
        var result = count == 0 ? other : self
        if count != 0 && other.count != 0 {
            result.count = count + other.count
            result.sum = sum + other.sum
            result.minimum = Swift.min(minimum, other.minimum)
            result.maximum = Swift.max(maximum, other.maximum)
        }
        result.withoutContact = withoutContact + other.withoutContact
        return result
    }
}

extension HeartRateAccumulator {
    /// How many integers a stored live part holds for heart rate (``LiveMinuteParts``).
    static let storedFieldCount = 5

    /// The accumulator a stored live part describes: `count,sum,minimum,maximum,withoutContact`,
    /// taken as stored (missing trailing fields are 0), since a stored sample is kept, never
    /// second-guessed.
    init(storedFields fields: [Int]) {
        func field(_ index: Int) -> Int { fields.indices.contains(index) ? fields[index] : 0 }
        count = field(0)
        sum = field(1)
        minimum = field(2)
        maximum = field(3)
        withoutContact = field(4)
    }

    /// The integers stored for this accumulator in a live part, in ``init(storedFields:)``'s order.
    var storedFields: [Int] { [count, sum, minimum, maximum, withoutContact] }
}
