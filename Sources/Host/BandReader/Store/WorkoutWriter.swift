import BandProtocol
import FoundationEssentials
import HealthModel
import HealthStore

/// The band's walk and run sessions as workouts of `bandkit.band` (HealthKit `HKWorkout`):
/// activity type walking or running, start and end from the session's minutes, total distance
/// and active energy summed from its records. Heart rate needs no copy: `health workouts`
/// computes it from the heart-rate samples inside the workout, which are the same minutes;
/// the band's own figures (mean of the minute averages, highest minute maximum) are kept in
/// metadata beside the step count.
///
/// Idempotent: a workout's id is a stable hash of its sync identifier
/// `<device>|workout|<session start, Unix s>` (also in `HKMetadataKeySyncIdentifier`), and the
/// store leaves a workout whose id it holds alone, so re-syncing the same records never adds
/// one twice. A session still open at the end of a batch is not written; it is kept in the
/// app state under ``key(device:)`` in the batch's transaction and continued by the next batch
/// (``ActivitySessionTracker``), so a session split by a sync or a reconnect is one workout.
public enum WorkoutWriter {
    public enum MetadataKey {
        public static let syncIdentifier = "HKMetadataKeySyncIdentifier"
        public static let steps = "bandkit.steps"
        public static let heartRateAverage = "bandkit.hr.avg"
        public static let heartRateMaximum = "bandkit.hr.max"
        /// `band` when the band's session-start record was synced; `first-synced-minute` when the
        /// band had erased the session's beginning and the workout starts at the first minute the
        /// reader got; `after-24-hours` when it continues a session the reader cut at 24 hours.
        public static let start = "bandkit.session.start"
        /// A total left out because it is beyond what the store accepts for a workout (a band sending
        /// absurd minutes): which, and its value. The workout is still written, so the sync goes on.
        public static let implausibleTotal = "bandkit.session.implausible"
        /// The band's activity byte, for a value this reader has no activity type for (stored as `other`).
        public static let bandActivity = "bandkit.session.activity"
    }

    /// The store's bounds on a workout's totals (`WriteTransaction.save(_:)` refuses more).
    static let maximumEnergyKilocalories = 100_000.0
    static let maximumDistanceMetres = 6_000_000.0

    /// App-state key of a band's open session.
    public static func key(device: String) -> String { "activity-session " + device }

    public static func syncIdentifier(device: String, start: UInt32) -> String { "\(device)|workout|\(start)" }

    /// The workout type of a band activity; other for a value this reader does not know.
    public static func activityType(_ activity: MinuteActivity) -> WorkoutActivityType {
        switch activity {
        case .walking: .walking
        case .running: .running
        default: .other
        }
    }

    /// The workout a closed session becomes.
    public static func workout(_ session: ActivitySession, device: String, info: DeviceInfo) -> Workout {
        let syncIdentifier = syncIdentifier(device: device, start: session.start)
        var hash = StableHash()
        hash.combine(syncIdentifier)
        var metadata = [
            MetadataKey.syncIdentifier: syncIdentifier,
            MetadataKey.steps: String(session.steps),
            MetadataKey.start: session.origin.name,
            SampleWriter.MetadataKey.origin: "history",
        ]
        if let average = session.heartRateAverage {
            metadata[MetadataKey.heartRateAverage] = String((average * 10).rounded() / 10)
            metadata[MetadataKey.heartRateMaximum] = String(session.heartRateMaximum)
        }
        let activity = activityType(session.activity)
        if activity == .other { metadata[MetadataKey.bandActivity] = String(session.activity.rawValue) }
        let energy = Double(session.energyDecikilocalories) / 10, distance = Double(session.distanceDecimetres) / 10
        var implausible: [String] = []
        if energy > maximumEnergyKilocalories { implausible.append("energy \(energy) kcal") }
        if distance > maximumDistanceMetres { implausible.append("distance \(distance) m") }
        if !implausible.isEmpty { metadata[MetadataKey.implausibleTotal] = implausible.joined(separator: ", ") }
        return Workout(id: UUID(stableHash: hash), activity: activity,
                       start: Date(timeIntervalSince1970: TimeInterval(session.start)),
                       end: Date(timeIntervalSince1970: TimeInterval(session.end)),
                       totalEnergyBurned: energy > maximumEnergyKilocalories ? nil : Quantity(energy, .kilocalorie),
                       totalDistance: distance > maximumDistanceMetres ? nil : Quantity(distance, .meter),
                       device: info, metadata: metadata)
    }

    /// Within a history commit: continues the stored open session with `records` (when it was
    /// stored at exactly `previous`, the position they follow), saves the sessions they close
    /// and stores the one left open at `cursor`. Returns the workouts saved.
    static func commit(_ records: [MinuteRecord], cursor: HistoryCursor, previous: HistoryCursor?,
                       device: String, info: DeviceInfo, in transaction: WriteTransaction) throws -> Int {
        var tracker = ActivitySessionTracker()
        if let text = try transaction.appState(key(device: device)), let (session, position) = ActivitySession.parse(stored: text),
           let previous, previous.historyID == position.historyID, previous.nextSequence == position.nextSequence {
            tracker = ActivitySessionTracker(open: session)
        }
        var saved = 0
        for record in records {
            guard let closed = tracker.add(record) else { continue }
            if case .inserted = try transaction.save(workout(closed, device: device, info: info)) { saved += 1 }
        }
        try transaction.setAppState(key(device: device), tracker.open?.stored(after: cursor))
        return saved
    }
}
