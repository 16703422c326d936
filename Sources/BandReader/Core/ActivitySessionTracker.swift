import BandProtocol

/// A walk or run session of the band, open or closed, with its totals summed from its minute
/// records (docs/protocol.md, "Activity sessions").
///
/// Kept in the store's app state while open (``stored``), so a session that a sync or a
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
    /// False when the first record the reader has continues a session (no start flag): the band
    /// erased or overwrote the session's beginning before this reader fetched it.
    public var startSeen: Bool
    public var minutes: UInt32 = 0
    public var steps: UInt64 = 0
    public var distanceDecimetres: UInt64 = 0
    public var energyDecikilocalories: UInt64 = 0
    /// Minutes with a heart-rate summary, the sum of their averages and the highest minimum-to-maximum reading.
    public var heartRateMinutes: UInt32 = 0
    public var heartRateSum: UInt64 = 0
    public var heartRateMaximum: UInt8 = 0

    init(first record: MinuteRecord) {
        activity = record.activity
        start = record.minuteStart
        lastMinute = record.minuteStart
        utcOffset = record.utcOffset
        startSeen = record.startsSession
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
    func stored(after position: HistoryCursor) -> String {
        let hex = String(position.historyID, radix: 16)
        let fields: [String] = [
            "v1", String(repeating: "0", count: 8 - hex.count) + hex, String(position.nextSequence),
            String(activity.rawValue), String(start), String(lastMinute), String(utcOffset.rawValue), startSeen ? "1" : "0",
            String(minutes), String(steps), String(distanceDecimetres), String(energyDecikilocalories),
            String(heartRateMinutes), String(heartRateSum), String(heartRateMaximum),
        ]
        return fields.joined(separator: " ")
    }

    /// Reads ``stored(after:)`` back; nil for anything damaged or of another version.
    static func parse(stored text: String) -> (session: ActivitySession, position: HistoryCursor)? {
        let fields = text.split(separator: " ")
        guard fields.count == 15, fields[0] == "v1", fields[1].count == 8, let id = UInt32(fields[1], radix: 16),
              let next = UInt32(fields[2]), let activity = UInt8(fields[3]), activity != 0,
              let start = UInt32(fields[4]), let last = UInt32(fields[5]), last >= start, start % 60 == 0, last % 60 == 0,
              let offset = Int8(fields[6]), fields[7] == "0" || fields[7] == "1",
              let minutes = UInt32(fields[8]), minutes > 0, let steps = UInt64(fields[9]), let distance = UInt64(fields[10]),
              let energy = UInt64(fields[11]), let hrMinutes = UInt32(fields[12]), hrMinutes <= minutes,
              let hrSum = UInt64(fields[13]), let hrMax = UInt8(fields[14]) else { return nil }
        var session = ActivitySession(first: MinuteRecord(minuteStart: start, utcOffset: LocalTimeOffset(rawValue: offset), flags: [],
                                                          steps: 0, distanceDecimetres: 0, energyDecikilocalories: 0, heartRate: nil,
                                                          activity: MinuteActivity(rawValue: activity)))
        session.lastMinute = last
        session.startSeen = fields[7] == "1"
        session.minutes = minutes
        session.steps = steps
        session.distanceDecimetres = distance
        session.energyDecikilocalories = energy
        session.heartRateMinutes = hrMinutes
        session.heartRateSum = hrSum
        session.heartRateMaximum = hrMax
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
///   from a new one and the reader closes it at the last minute it has.
/// A record that continues a session the reader never saw start (its beginning was erased
/// before this reader fetched it) opens one from that record, marked ``ActivitySession/startSeen`` false.
public struct ActivitySessionTracker: Sendable {
    /// The band records every minute while it runs, and a reboot starts a new session, so one
    /// session's records are consecutive; 10 minutes leaves room for clock corrections.
    public static let maximumGapSeconds: UInt32 = 600

    public private(set) var open: ActivitySession?

    public init(open: ActivitySession? = nil) { self.open = open }

    /// Takes the next record; returns the session it closed, if any.
    public mutating func add(_ record: MinuteRecord) -> ActivitySession? {
        var closed: ActivitySession?
        if let session = open {
            let continues = record.activity == session.activity && !record.startsSession
                && record.minuteStart <= session.lastMinute &+ Self.maximumGapSeconds
            if continues {
                open!.add(record)
                return nil
            }
            closed = session
            open = nil
        }
        if record.activity.isSession { open = ActivitySession(first: record) }
        return closed
    }
}
