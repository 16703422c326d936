import FoundationEssentials
import HealthModel

/// The change feed (HealthKit `HKAnchoredObjectQuery`).
///
/// Every insert, replacement and deletion takes the next anchor inside its write transaction; a
/// sample's anchor is its rowid and a deletion's is its tombstone's, so "what changed after N" is
/// two rowid range scans up to the person's horizon (`person_anchor`, written by the same commit).
/// Tombstones are kept for good (this store never expires anchors).
///
/// Anchors are numbered store-wide (one sequence for every person), so a person's feed sees gaps
/// where another person's changes took numbers; the feed itself only ever returns the changes of
/// the store's ``HealthStore/person``, and its horizon is that person's: writers of other people
/// may commit lower anchors later (``WriteTransaction`` argues why this person's never do).
extension HealthStore {
    /// The anchor of the store's person's latest committed change (or a greater one): every change
    /// of this person up to it is committed, every later one will have a greater anchor.
    public func currentAnchor() throws -> Anchor {
        try withConnection { connection in
            Anchor(rawValue: try horizon(connection))
        }
    }

    /// The person's horizon: their newest committed anchor (0 for a person who never wrote).
    func horizon(_ connection: Connection) throws(HealthStoreError) -> Int64 {
        try connection.scalar("SELECT anchor FROM person_anchor WHERE person_id = ?") { $0.bind(1, personID) }.get() ?? 0
    }

    /// Samples added or replaced and samples deleted after `anchor`, of the types given (all when
    /// nil), that `app` may see: everything of a type it may read, else only its own samples.
    /// Workouts (type `SampleType/workout`) come in `ChangeSet/workouts`, deleted ones in
    /// `ChangeSet/deleted`. Apply `ChangeSet/deleted` before `ChangeSet/samples`. With a
    /// `limit`, at most that many samples and workouts together come back and
    /// `ChangeSet/newAnchor` stops where they stop; call again until `ChangeSet/newAnchor`
    /// stops moving.
    public func changes(since anchor: Anchor, types: Set<SampleType>? = nil, limit: Int? = nil,
                        as app: AppIdentity) throws -> ChangeSet {
        try read { connection in
            var end = try horizon(connection)
            let wanted = (types.map(Array.init) ?? SampleType.all).filter { $0 != .workout }
            let wantsWorkouts = types == nil || types?.contains(.workout) == true
            // Types the app may read in full, and its own row (it always sees what it wrote).
            var readable: [Int64] = []
            var ownID: Int64 = -1
            var readsAllWorkouts = app.isOwner
            if app.isOwner {
                readable = wanted.map(typeID)
            } else {
                ownID = try existingAppID(app.id, connection) ?? -1
                for type in wanted where try visibilityFilter(for: app, type: type, connection) == nil {
                    readable.append(typeID(type))
                }
                readsAllWorkouts = try visibilityFilter(for: app, type: .workout, connection) == nil
            }
            let wantedIDs = MetadataCoding.array(wanted.map { String(typeID($0)) })
            let readableIDs = MetadataCoding.array(readable.map(String.init))
            let visibility = """
                s.person_id = ?7 AND s.type_id IN (SELECT CAST(value AS INTEGER) FROM json_each(?3)) AND \
                (s.app_id = ?4 OR s.type_id IN (SELECT CAST(value AS INTEGER) FROM json_each(?5)))
                """
            let select = try connection.cached("""
                SELECT \(Self.sampleColumns) WHERE s.anchor > ?1 AND s.anchor <= ?2 AND \(visibility)
                ORDER BY s.anchor LIMIT ?6
                """).get()
            defer { select.reset() }
            select.bind(1, anchor.rawValue)
            select.bind(2, end)
            select.bind(3, wantedIDs)
            select.bind(4, ownID)
            select.bind(5, readableIDs)
            select.bind(6, Int64(limit ?? Int.max))
            select.bind(7, personID)
            // A row that does not decode still counts towards the limit (the feed moves past it).
            var samples: [(anchor: Int64, sample: Sample?)] = []
            while try select.step().get() { samples.append((select.int64(0), decodeSample(select))) }
            var workouts = wantsWorkouts
                ? try workoutsSaved(after: anchor.rawValue, through: end, limit: limit, as: app, connection) : []
            if let limit, samples.count + workouts.count >= limit {
                // The first `limit` changes of both kinds, in anchor order, are among the first
                // `limit` of each; the feed stops at the last of them.
                let anchors = (samples.map(\.anchor) + workouts.map(\.anchor)).sorted()
                end = limit > 0 && !anchors.isEmpty ? anchors[min(limit, anchors.count) - 1] : anchor.rawValue
                samples.removeAll { $0.anchor > end }
                workouts.removeAll { $0.anchor > end }
            }

            // Deleted samples, and deleted workouts when workouts are wanted.
            let tombstoneTypes = wanted.map(typeID) + (wantsWorkouts ? [typeID(.workout)] : [])
            let tombstoneReadable = readable + (wantsWorkouts && readsAllWorkouts ? [typeID(.workout)] : [])
            let tombstones = try connection.cached("""
                SELECT s.uuid, s.type_id, s.anchor FROM tombstone s WHERE s.anchor > ?1 AND s.anchor <= ?2 AND \(visibility)
                ORDER BY s.anchor
                """).get()
            defer { tombstones.reset() }
            tombstones.bind(1, anchor.rawValue)
            tombstones.bind(2, end)
            tombstones.bind(3, MetadataCoding.array(tombstoneTypes.map(String.init)))
            tombstones.bind(4, ownID)
            tombstones.bind(5, MetadataCoding.array(tombstoneReadable.map(String.init)))
            tombstones.bind(7, personID)
            var deleted: [DeletedSample] = []
            while try tombstones.step().get() {
                guard let id = tombstones.uuid(0), let type = typesByID[tombstones.int64(1)] else { continue }
                deleted.append(DeletedSample(id: id, type: type, anchor: Anchor(rawValue: tombstones.int64(2))))
            }
            return ChangeSet(samples: samples.compactMap(\.sample), deleted: deleted, newAnchor: Anchor(rawValue: max(end, anchor.rawValue)),
                             workouts: workouts.map(\.workout))
        }
    }

    /// Whether the store's person has a change (sample, workout or deletion) in `(after, through]`:
    /// three range scans of the anchor keys, each stopping at its first row of this person.
    func hasChanges(after: Anchor, through: Anchor) throws -> Bool {
        try read { connection in
            for table in ["sample", "workout", "tombstone"] {
                let found = try connection.scalar(
                    "SELECT 1 FROM \(table) WHERE anchor > ? AND anchor <= ? AND person_id = ? LIMIT 1") { select in
                    select.bind(1, after.rawValue)
                    select.bind(2, through.rawValue)
                    select.bind(3, personID)
                }.get()
                if found != nil { return true }
            }
            return false
        }
    }

    /// Blocks until a change of the store's person after `anchor` is committed (by any process)
    /// or `timeout` passes.
    /// Returns the new current anchor, or nil on timeout.
    ///
    /// Waiting costs no polling of the tables: the thread sleeps in `poll(2)` on an inotify watch
    /// of the store's directory, which wakes when any process writes the `-wal` file (on
    /// PostgreSQL: on a connection of its own that LISTENs for the writers' NOTIFY); each wake
    /// reads the one-row change counter. The watch is a hint, never trusted alone: the counter is
    /// also re-read at least every `recheckInterval` (filesystems without inotify, missed events).
    /// One wait; a caller that waits again and again keeps a ``ChangeWatch`` instead.
    public func waitForChanges(after anchor: Anchor, timeout: Duration,
                               recheckInterval: Duration = .seconds(1)) throws -> Anchor? {
        try changeWatch().wait(after: anchor, timeout: timeout, recheckInterval: recheckInterval)
    }
}
