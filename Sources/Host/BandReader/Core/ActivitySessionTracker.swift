import BandProtocol

/// A walk or run session of the band, open or closed, with its totals summed from its minute
/// records (docs/protocol.md, "Activity sessions").
///
/// Kept in the store's app state while open (`stored`), so a session that a sync or a
/// reconnect splits is summed across the batches and becomes one workout.
/// Text form: `v1 <history ID hex> <next sequence> <activity> <start> <last minute> <offset>
/// <start seen 0|1> <minutes> <steps> <dm> <0.1 kcal> <HR minutes> <HR sum> <HR max>`.
public struct ActivitySession: Hashable, Sendable {
    public var activity: MinuteActivity
    /// Start of the session's first minute (Unix s): the record with the session-start flag,
    /// or the first record the reader has when the band erased the earlier ones.
    public var start: UInt32
    /// Start of the session's newest minute.
    public var lastMinute: UInt32
    public var utcOffset: LocalTimeOffset
    /// Where the session's first minute came from.
    public var origin: Origin

    /// How a session began, as far as the reader can tell.
    public enum Origin: UInt8, Sendable {
        /// The band's record with the session-start flag.
        case band = 1
        /// A record that continues a session whose start the reader never got: the band erased or
        /// overwrote the beginning before this reader fetched it.
        case firstSyncedMinute = 0
        /// The band's session went on past ``ActivitySessionTracker/maximumSeconds``; the reader
        /// closed it there and goes on with this one (a store keeps workouts of at most a week,
        /// and a day of walking is no one workout).
        case afterMaximumLength = 2

        /// The text of the `bandkit.session.start` metadata.
        public var name: String {
            switch self {
            case .band: "band"
            case .firstSyncedMinute: "first-synced-minute"
            case .afterMaximumLength: "after-24-hours"
            }
        }
    }
    public var minutes: UInt32 = 0
    public var steps: UInt64 = 0
    public var distanceDecimetres: UInt64 = 0
    public var energyDecikilocalories: UInt64 = 0
    /// Minutes with a heart-rate summary, the sum of their averages and the highest minimum-to-maximum reading.
    public var heartRateMinutes: UInt32 = 0
    public var heartRateSum: UInt64 = 0
    public var heartRateMaximum: UInt8 = 0

    private init(activity: MinuteActivity, start: UInt32, lastMinute: UInt32, utcOffset: LocalTimeOffset, origin: Origin,
                 minutes: UInt32, steps: UInt64, distanceDecimetres: UInt64, energyDecikilocalories: UInt64,
                 heartRateMinutes: UInt32, heartRateSum: UInt64, heartRateMaximum: UInt8) {
        self.activity = activity
        self.start = start
        self.lastMinute = lastMinute
        self.utcOffset = utcOffset
        self.origin = origin
        self.minutes = minutes
        self.steps = steps
        self.distanceDecimetres = distanceDecimetres
        self.energyDecikilocalories = energyDecikilocalories
        self.heartRateMinutes = heartRateMinutes
        self.heartRateSum = heartRateSum
        self.heartRateMaximum = heartRateMaximum
    }

    init(first record: MinuteRecord) {
        activity = record.activity
        start = record.minuteStart
        lastMinute = record.minuteStart
        utcOffset = record.utcOffset
        origin = record.startsSession ? .band : .firstSyncedMinute
        add(record)
    }

    mutating func add(_ record: MinuteRecord) {
        lastMinute = max(lastMinute, record.minuteStart)
        minutes += 1
        steps += UInt64(record.steps)
        distanceDecimetres += UInt64(record.distanceDecimetres)
        energyDecikilocalories += UInt64(record.energyDecikilocalories)
        if let heartRate = record.heartRate {
            heartRateMinutes += 1
            heartRateSum += UInt64(heartRate.average)
            heartRateMaximum = max(heartRateMaximum, heartRate.maximum)
        }
    }

    /// End of the session's last minute (Unix s).
    public var end: UInt32 { lastMinute &+ 60 }

    /// Mean of the minutes' averages, nil without heart rate.
    public var heartRateAverage: Double? {
        heartRateMinutes == 0 ? nil : Double(heartRateSum) / Double(heartRateMinutes)
    }

    /// The app-state text of an open session, tied to the history position right after the
    /// records it has summed: a later batch continues it only from exactly there.
    public func stored(after position: HistoryCursor) -> String {
        let hex = String(position.historyID, radix: 16)
        let fields: [String] = [
            "v1", String(repeating: "0", count: 8 - hex.count) + hex, String(position.nextSequence),
            String(activity.rawValue), String(start), String(lastMinute), String(utcOffset.rawValue), String(origin.rawValue),
            String(minutes), String(steps), String(distanceDecimetres), String(energyDecikilocalories),
            String(heartRateMinutes), String(heartRateSum), String(heartRateMaximum),
        ]
        return fields.joined(separator: " ")
    }

    /// Reads ``stored(after:)`` back; nil for anything damaged or of another version.
    public static func parse(stored text: String) -> (session: ActivitySession, position: HistoryCursor)? {
        let fields = text.split(separator: " ")
        guard fields.count == 15, fields[0] == "v1", fields[1].count == 8, let id = UInt32(fields[1], radix: 16),
              let next = UInt32(fields[2]), let activity = UInt8(fields[3]), activity != 0,
              let start = UInt32(fields[4]), let last = UInt32(fields[5]), last >= start, start % 60 == 0, last % 60 == 0,
              let offset = Int8(fields[6]), let origin = UInt8(fields[7]).flatMap(Origin.init(rawValue:)),
              let minutes = UInt32(fields[8]), minutes > 0, let steps = UInt64(fields[9]), let distance = UInt64(fields[10]),
              let energy = UInt64(fields[11]), let hrMinutes = UInt32(fields[12]), hrMinutes <= minutes,
              let hrSum = UInt64(fields[13]), let hrMax = UInt8(fields[14]),
              // What `minutes` records can add up to: anything more is damage, and would let later sums overflow.
              minutes <= ActivitySessionTracker.maximumSeconds / 60 + 1, steps <= UInt64(minutes) * 65_535,
              distance <= UInt64(minutes) * 65_535, energy <= UInt64(minutes) * 65_535,
              hrSum <= UInt64(hrMinutes) * 255 else { return nil }
        let session = ActivitySession(activity: MinuteActivity(rawValue: activity), start: start, lastMinute: last,
                                      utcOffset: LocalTimeOffset(rawValue: offset), origin: origin, minutes: minutes,
                                      steps: steps, distanceDecimetres: distance, energyDecikilocalories: energy,
                                      heartRateMinutes: hrMinutes, heartRateSum: hrSum, heartRateMaximum: hrMax)
        return (session, HistoryCursor(historyID: id, nextSequence: next))
    }
}

/// Follows the band's sessions through its minute records, in order, and says when one closes.
///
/// No I/O: ``SampleWriter`` feeds it each committed batch, stores the sessions it closes as
/// workouts and keeps ``open`` in the store in the same transaction.
///
/// A session closes at the first record that does not continue it:
/// - a record with another activity (none included), or with the session-start flag;
/// - a record more than ``maximumGapSeconds`` after the session's last minute: records between
///   them were lost (overwritten before a fetch), so the band's session cannot be told apart
///   from a new one and the reader closes it at the last minute it has;
/// - a record that would make it longer than ``maximumSeconds``: the reader closes it and opens
///   the next one at that record (``ActivitySession/Origin/afterMaximumLength``), so an
///   all-day walk never becomes a workout the store refuses (a week at most), which would stop
///   every sync.
/// A record that continues a session the reader never saw start (its beginning was erased
/// before this reader fetched it) opens one from that record (``ActivitySession/Origin/firstSyncedMinute``).
public struct ActivitySessionTracker: Sendable {
    /// The band records every minute while it runs, and a reboot starts a new session, so one
    /// session's records are consecutive; 10 minutes leaves room for clock corrections.
    public static let maximumGapSeconds: UInt32 = 600
    /// 24 hours: the longest workout the reader writes from one session.
    public static let maximumSeconds: UInt32 = 86_400

    public private(set) var open: ActivitySession?

    public init(open: ActivitySession? = nil) { self.open = open }

    /// Takes the next record; returns the session it closed, if any.
    public mutating func add(_ record: MinuteRecord) -> ActivitySession? {
        var closed: ActivitySession?
        if let session = open {
            let same = record.activity == session.activity && !record.startsSession
                && record.minuteStart <= session.lastMinute &+ Self.maximumGapSeconds
            let tooLong = UInt64(record.minuteStart) + 60 > UInt64(session.start) + UInt64(Self.maximumSeconds)
            if same && !tooLong {
                open!.add(record)
                return nil
            }
            closed = session
            open = nil
            if same && tooLong {
                open = ActivitySession(first: record)
                open!.origin = .afterMaximumLength
                return closed
            }
        }
        if record.activity.isSession { open = ActivitySession(first: record) }
        return closed
    }
}
