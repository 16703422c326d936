import FoundationEssentials
import HealthModel

/// The inside of `HealthStore/write(as:_:)`: saves, deletes and app state, all committed at once.
///
/// Valid only during the closure it is passed to.
///
/// ## Anchors, and why writers of different people may commit in parallel
///
/// The change feed's rule: an anchor a reader was handed must never be passed by a change that
/// commits later with a lower anchor (the reader would skip it). On SQLite there is one writer:
/// anchors count up from `change_counter` and commit in order. On PostgreSQL a transaction writes
/// one person's rows under that person's advisory lock (`WriteScope.person`), and writers of
/// different people run at once. The rule still holds, per person, which is all a feed needs (it
/// returns one person's changes, `ChangeFeed.swift`):
/// 1. Anchors come from the sequence `anchor_block` (a block of 1,024 per call). A sequence never
///    goes back and is outside transactions, so a block taken later is greater.
/// 2. A transaction takes its blocks while it holds its person's lock, which the previous writer
///    of that person released only once its commit was visible (or rolled back). So every anchor
///    of a person's transaction is greater than every anchor of the person's earlier commits.
/// 3. The commit sets the person's row of `person_anchor` to its last anchor, in the same
///    transaction as the rows. A reader's snapshot that shows the row value A shows that commit
///    and (by 2) every earlier one of the person: every change of the person with an anchor ≤ A.
///    Every commit of the person it does not show began after that commit and (by 2) has anchors
///    above A. So `changes(since:)` returns `(since, A]` complete, and a later call starting
///    from A misses nothing and repeats nothing.
///
/// Other people's later commits may carry lower anchors than A; the feed never returns them.
/// Rows shared between people are only added (apps, devices: `ON CONFLICT DO NOTHING`), kept
/// per device (app state) or raised to a maximum (a type's longest sample); a write that must
/// change other people's rows (their hourly totals, when the source ranking changes) first
/// widens to the store-wide lock. `PostgresConcurrencyTests` checks the rule with writers of
/// several people racing and a reader polling each person's feed.
public final class WriteTransaction {
    unowned let store: HealthStore
    let connection: Connection
    /// The app the transaction acts for: the source of every sample it saves.
    public let app: AppIdentity
    var isOpen = true
    /// The last anchor handed out (a batch rewinds it when it writes its rows again one by one).
    var anchor: Int64
    /// Where anchors come from; the blocks of the sequence this transaction took, in order, and
    /// the one ``anchor`` is in (a rewound batch hands out its blocks' numbers again).
    private let anchors: AnchorSource
    private var blocks: [(first: Int64, last: Int64)] = []
    private var block = -1
    private var blockLast: Int64
    /// Whether any anchor was handed out: the commit then moves the person's horizon.
    private var tookAnchors = false
    var createdApps: [String] = []
    var createdDevices: [DeviceInfo] = []
    /// The type identifiers ``app`` may write, read at the transaction's first check (nil until
    /// then, and again after a grant changes inside it).
    private var writeGrants: Set<String>?
    private var maxDurations: [Int64: Int64] = [:]
    private var appsRecordingDevices: Set<Int64> = []
    /// UTC hours touched per cumulative type, whose merged sums are recomputed at commit.
    private var dirtyHours: [Int64: Set<Int64>] = [:]
    /// Per type of the latest samples: whether it keeps merged hours, and the last hour marked
    /// (interleaved types each write minute after minute into the same hour).
    private var recentHours: [(typeID: Int64, keepsMergedHours: Bool, hour: Int64)] = []
    /// Types whose merged sums are recomputed in full at commit (source ranking changed).
    var typesToRebuild: Set<Int64> = []
    /// Apps whose samples here have a device while their row does not say they record devices yet.
    var appsToFlag: [Int64] = []
    /// The statements run once per sample, held here so the hot path skips the cache lookup.
    private var findSyncStatement: Statement?
    private var insertSampleStatement: Statement?
    /// Multi-row inserts of a batch, by row count.
    private var batchInsertStatements: [Int: Statement] = [:]
    /// SQLite's savepoint statements around a batch, prepared once (parsing them was 2 % of an import).
    private var savepointStatements: (begin: Statement, release: Statement)?
    /// The rows of the batch being saved, kept between batches so that their storage is reused.
    var batchRows: [(index: Int, row: CheckedRow)] = []
    /// The types, apps and devices of the latest samples: a bulk import's rows cycle through a
    /// few of each, and comparing bytes is cheaper than hashing a type or building a byte-exact
    /// cache key (``ExactText``) per row.
    private var recentTypes: [(type: SampleType, id: Int64, maximumDuration: Double)] = []
    private var recentApps: [(bundleID: String, id: Int64)] = []
    private var recentDevices: [(device: DeviceInfo, id: Int64)] = []
    private var lastAppRecordingDevices: Int64?

    init(store: HealthStore, connection: Connection, app: AppIdentity, anchors: AnchorSource) {
        self.store = store
        self.connection = connection
        self.app = app
        self.anchors = anchors
        switch anchors {
        case .counter(let last): (anchor, blockLast) = (last, .max)
        case .sequence: (anchor, blockLast) = (0, 0)
        }
    }

    /// Anchors one call of the sequence reserves (its increment): a round trip per 1,024 changes.
    static let anchorBlockSize: Int64 = 1024

    func nextAnchor() throws(HealthStoreError) -> Int64 {
        if anchor >= blockLast {
            if block + 1 == blocks.count {
                // The block after the value the sequence returns (the migration starts it at the
                // store's counter, so the first block follows every anchor handed out before).
                let start = try connection.scalar("SELECT nextval('anchor_block')").get() ?? 0
                blocks.append((start + 1, start + Self.anchorBlockSize))
            }
            block += 1
            anchor = blocks[block].first - 1
            blockLast = blocks[block].last
        }
        anchor += 1
        tookAnchors = true
        return anchor
    }

    /// The anchor ``nextAnchor()`` will hand out, without taking it (a block is reserved if need be).
    func peekNextAnchor() throws(HealthStoreError) -> Int64 {
        if anchor >= blockLast, case .sequence = anchors {
            let took = tookAnchors
            _ = try nextAnchor()
            anchor -= 1
            tookAnchors = took
        }
        return anchor + 1
    }

    /// Hands out the anchors after `last` again (a batch writing its rolled-back rows one by one):
    /// the same numbers, in the same blocks, as if the batch had been saved one by one.
    func rewindAnchors(to last: Int64) {
        anchor = last
        guard case .sequence = anchors else { return }
        block = blocks.firstIndex { last < $0.last } ?? blocks.count - 1
        if block >= 0 {
            anchor = max(last, blocks[block].first - 1)
            blockLast = blocks[block].last
        }
    }

    /// Writes the bookkeeping gathered during the transaction; called just before COMMIT.
    func finish() throws(HealthStoreError) {
        // Rows appended and never written would be lost without a word: the commit fails instead.
        guard batchRows.isEmpty else { throw .misuse("samples were appended but not written (writeAppended(into:))") }
        for (typeID, duration) in maxDurations where duration > store.storedMaxDurations[typeID, default: 0] {
            let update = try connection.cached(
                "UPDATE sample_type SET max_duration_us = ?1 WHERE id = ?2 AND max_duration_us < ?1").get()
            update.bind(1, duration)
            update.bind(2, typeID)
            try update.run().get()
        }
        for appID in appsRecordingDevices where !store.appsKnownToRecordDevices.contains(appID) {
            // Read without locking the row: the flag is set after the commit, store-wide
            // (HealthStore.flagAppsRecordingDevices says why not here).
            let flagged = try connection.scalar("SELECT records_device FROM app WHERE id = ?") { $0.bind(1, appID) }.get() ?? 0
            if flagged == 0 { appsToFlag.append(appID) }
        }
        if !typesToRebuild.isEmpty {
            // Every person's hourly totals: no other person's writer may be recomputing theirs.
            try connection.engine.widenToStore().get()
        }
        for typeID in typesToRebuild.sorted() { try store.rebuildMergedHours(typeID: typeID, connection) }
        for (typeID, hours) in dirtyHours where !typesToRebuild.contains(typeID) {
            var spans: [(Int64, Int64)] = []
            for hour in hours.sorted() {
                if let last = spans.last, last.1 == hour, hour - last.0 < HealthStore.longestRecomputedSpan {
                    spans[spans.count - 1].1 = hour + HealthStore.hourMicroseconds
                } else {
                    spans.append((hour, hour + HealthStore.hourMicroseconds))
                }
            }
            try store.recomputeMergedHours(personID: store.personID, typeID: typeID, spans: spans, connection)
        }
        if tookAnchors {
            if case .counter = anchors {
                let update = try connection.cached("UPDATE change_counter SET anchor = ? WHERE id = 1").get()
                update.bind(1, anchor)
                try update.run().get()
            }
            // Only this person's writers touch its row, one at a time (the type's comment).
            let horizon = try connection.cached("""
                INSERT INTO person_anchor (person_id, anchor) VALUES (?1, ?2)
                ON CONFLICT (person_id) DO UPDATE SET anchor = excluded.anchor
                """).get()
            horizon.bind(1, store.personID)
            horizon.bind(2, anchor)
            try horizon.run().get()
            connection.engine.announceCommit(person: store.personID)
        }
    }

    /// After COMMIT: the shared rows ``finish()`` raised now hold at least these values.
    func committed() {
        for (typeID, duration) in maxDurations where duration > store.storedMaxDurations[typeID, default: 0] {
            store.storedMaxDurations[typeID] = duration
        }
        store.appsKnownToRecordDevices.formUnion(appsRecordingDevices.subtracting(appsToFlag))
    }

    func ensureOpen() throws(HealthStoreError) {
        if !isOpen { throw .misuse("the write transaction has ended; use the one passed to write(as:)") }
    }

    // MARK: Identities

    func appID(_ bundleID: String) throws(HealthStoreError) -> Int64 {
        if let id = try store.existingAppID(bundleID, connection) { return id }
        // Newer sources rank higher by default: the app's first anchor is the next one handed out.
        let firstAnchor = try peekNextAnchor()
        // Another person's writer may add the same app at the same moment: the later one waits
        // for the earlier's commit, adds nothing and reads its row.
        let inserted = try connection.scalar("""
            INSERT INTO app (bundle_id, first_anchor) VALUES (?, ?) ON CONFLICT (bundle_id) DO NOTHING RETURNING id
            """) { insert in
            insert.bind(1, bundleID)
            insert.bind(2, firstAnchor)
        }.get()
        let id: Int64
        if let inserted {
            id = inserted
            createdApps.append(bundleID)
        } else {
            id = try connection.scalar("SELECT id FROM app WHERE bundle_id = ?") { $0.bind(1, bundleID) }.get() ?? 0
        }
        store.appIDs[ExactText(bundleID)] = id
        return id
    }

    func deviceID(_ device: DeviceInfo) throws(HealthStoreError) -> Int64 {
        if let id = store.deviceIDs[ExactText(device)] { return id }
        let fields = [device.name, device.manufacturer, device.model, device.hardwareIdentifier, device.firmwareVersion]
        let insert = try connection.cached("""
            INSERT INTO device (name, manufacturer, model, hardware_id, firmware) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT DO NOTHING
            """).get()
        for (index, field) in fields.enumerated() { insert.bind(Int32(index + 1), field ?? "") }
        try insert.run().get()
        let id = try connection.scalar("""
            SELECT id FROM device WHERE name = ? AND manufacturer = ? AND model = ? AND hardware_id = ? AND firmware = ?
            """) { select in
            for (index, field) in fields.enumerated() { select.bind(Int32(index + 1), field ?? "") }
        }.get() ?? 0
        store.deviceIDs[ExactText(device)] = id
        createdDevices.append(device)
        return id
    }

    func checkWritable(_ type: SampleType) throws(HealthStoreError) {
        if app.isOwner { return }
        let granted: Set<String>
        if let writeGrants {
            granted = writeGrants
        } else {
            // One statement for every type: grants cannot change under the writer's lock.
            granted = try store.writeGrants(appID: store.existingAppID(app.id, connection), connection)
            writeGrants = granted
        }
        if !granted.contains(type.identifier) { throw .notAuthorized(app: app.id, type: type.identifier) }
    }

    /// A grant was set inside this transaction: the next check reads them again.
    func grantsChanged() { writeGrants = nil }

    // MARK: Saving

    /// Saves a quantity sample as ``app``; honours the sync-identifier rule (see `SaveOutcome`).
    @discardableResult
    public func save(_ sample: QuantitySample) throws(HealthStoreError) -> SaveOutcome {
        try save(Self.rowValues(sample), source: app)
    }

    /// Saves a category sample as ``app``; the value must be one of the category's values.
    @discardableResult
    public func save(_ sample: CategorySample) throws(HealthStoreError) -> SaveOutcome {
        try save(Self.rowValues(sample), source: app)
    }

    /// Saves a sample attributed to another source: how `health import` keeps each line's source.
    /// Only the owner may do this; apps always save as themselves.
    @discardableResult
    public func save(_ sample: QuantitySample, attributedTo source: AppIdentity) throws(HealthStoreError) -> SaveOutcome {
        guard app.isOwner else { throw HealthStoreError.ownerOnly(operation: "saving for another source", app: app.id) }
        return try save(Self.rowValues(sample), source: source)
    }

    /// Saves a category sample attributed to another source (owner only, as for quantities).
    @discardableResult
    public func save(_ sample: CategorySample, attributedTo source: AppIdentity) throws(HealthStoreError) -> SaveOutcome {
        guard app.isOwner else { throw HealthStoreError.ownerOnly(operation: "saving for another source", app: app.id) }
        return try save(Self.rowValues(sample), source: source)
    }

    /// A quantity sample as a row: its value in the type's canonical unit.
    static func rowValues(_ sample: QuantitySample) throws(HealthStoreError) -> RowValues {
        let value: Double
        do { value = try sample.canonicalValue() } catch { throw HealthStoreError.unit(error) }
        return RowValues(id: sample.id, type: .quantity(sample.type), value: value, start: sample.start,
                         end: sample.end, timeZone: sample.timeZone, device: sample.device,
                         syncIdentifier: sample.syncIdentifier, syncVersion: sample.syncVersion,
                         userEntered: sample.userEntered, metadata: sample.metadata)
    }

    /// A category sample as a row; the value must be one of the category's values.
    static func rowValues(_ sample: CategorySample) throws(HealthStoreError) -> RowValues {
        guard sample.type.valueNames.indices.contains(sample.value) else {
            throw HealthStoreError.invalidSample("\(sample.type) value \(sample.value) is not one of 0..<\(sample.type.valueNames.count)")
        }
        return RowValues(id: sample.id, type: .category(sample.type), value: Double(sample.value),
                         start: sample.start, end: sample.end, timeZone: sample.timeZone, device: sample.device,
                         syncIdentifier: sample.syncIdentifier, syncVersion: sample.syncVersion,
                         userEntered: sample.userEntered, metadata: sample.metadata)
    }

    /// Saves a workout as ``app``. A workout whose id is already stored is left alone
    /// (`SaveOutcome/unchanged(existing:)`): `health export | health import -` twice adds nothing.
    @discardableResult
    public func save(_ workout: Workout) throws(HealthStoreError) -> SaveOutcome { try save(workout, source: app) }

    /// Saves a workout attributed to another source: `health import` (owner only, as for samples).
    @discardableResult
    public func save(_ workout: Workout, attributedTo source: AppIdentity) throws(HealthStoreError) -> SaveOutcome {
        guard app.isOwner else { throw HealthStoreError.ownerOnly(operation: "saving for another source", app: app.id) }
        return try save(workout, source: source)
    }

    private func save(_ workout: Workout, source: AppIdentity) throws(HealthStoreError) -> SaveOutcome {
        try ensureOpen()
        try checkWritable(.workout)
        guard workout.end >= workout.start else { throw HealthStoreError.invalidSample("workout ends before it starts") }
        if let problem = PlausibleRange.problem(start: workout.start, end: workout.end, maximumDuration: SampleType.workout.maximumDuration) {
            throw HealthStoreError.invalidSample("workout \(problem)")
        }
        let energy: Double?
        let distance: Double?
        do {
            energy = try workout.totalEnergyBurned?.value(in: .kilocalorie)
            distance = try workout.totalDistance?.value(in: .meter)
        } catch { throw HealthStoreError.unit(error) }
        if let energy, !energy.isFinite || energy < 0 || energy > 100_000 {
            throw HealthStoreError.invalidSample("workout energy \(energy) kcal is outside 0 … 100000 kcal")
        }
        if let distance, !distance.isFinite || distance < 0 || distance > 6_000_000 {
            throw HealthStoreError.invalidSample("workout distance \(distance) m is outside 0 … 6000 km")
        }
        let existing = try connection.cached("SELECT person_id FROM workout WHERE uuid = ?").get()
        existing.bind(1, workout.id)
        defer { existing.reset() }
        if try existing.step().get() {
            // Ids are unique store-wide: one person's workout cannot be saved again as another's.
            guard existing.int64(0) == store.personID else {
                throw HealthStoreError.invalidSample("a workout with id \(workout.id) already belongs to another person")
            }
            return .unchanged(existing: workout.id)
        }
        let appID = try appID(source.id)
        let deviceID = try workout.device.map { device throws(HealthStoreError) in try self.deviceID(device) }
        let insert = try connection.cached("""
            INSERT INTO workout (anchor, uuid, activity, start_us, end_us, energy_kcal, distance_m, app_id,
                                 app_version, device_id, metadata, person_id)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).get()
        insert.bind(1, try nextAnchor())
        insert.bind(2, workout.id)
        insert.bind(3, workout.activity.rawValue)
        insert.bind(4, workout.start.microsecondsSince1970)
        insert.bind(5, workout.end.microsecondsSince1970)
        if let energy { insert.bind(6, energy) } else { insert.bindNull(6) }
        if let distance { insert.bind(7, distance) } else { insert.bindNull(7) }
        insert.bind(8, appID)
        insert.bind(9, source.version)
        insert.bind(10, deviceID)
        insert.bind(11, MetadataCoding.encode(workout.metadata))
        insert.bind(12, store.personID)
        try insert.run().get()
        return .inserted
    }

    struct RowValues {
        var id: UUID
        var type: SampleType
        var value: Double
        var start: Date
        var end: Date
        var timeZone: TimeZone?
        var device: DeviceInfo?
        var syncIdentifier: String?
        var syncVersion: Int64
        var userEntered: Bool
        var metadata: [String: String]
    }

    /// A row checked and resolved (type, source and device ids, metadata encoded): the columns
    /// it is written with, and nothing else, since a batch holds hundreds of them and copies each.
    struct CheckedRow {
        var id: UUID
        var typeID: Int64
        var value: Double
        var start: Int64
        var end: Int64
        var appID: Int64
        var version: String
        var deviceID: Int64?
        var zone: String?
        var syncIdentifier: String?
        var syncVersion: Int64
        var userEntered: Bool
        var metadata: String?
    }

    private func save(_ row: RowValues, source: AppIdentity) throws(HealthStoreError) -> SaveOutcome {
        try write(check(row, source: source))
    }

    /// Checks `row` and resolves its ids (creating its app and device when new): everything a
    /// save does before writing the sample.
    func check(_ row: RowValues, source: AppIdentity) throws(HealthStoreError) -> CheckedRow {
        try ensureOpen()
        try checkWritable(row.type)
        guard row.value.isFinite else { throw .invalidSample("value \(row.value) is not a finite number") }
        let start = row.start.microsecondsSince1970
        let end = row.end.microsecondsSince1970
        guard end >= start else { throw .invalidSample("end \(row.end) is before start \(row.start)") }
        // Bounded times keep every sample's merged hours and every query's look-back bounded.
        // The recent entries are searched by position: `first(where:)` would copy each entry it
        // looks at (a type or device is several strings, each retained and released).
        let typeID: Int64
        let maximumDuration: Double
        if let position = recentTypes.indices.first(where: { recentTypes[$0].type == row.type }) {
            (typeID, maximumDuration) = (recentTypes[position].id, recentTypes[position].maximumDuration)
        } else {
            (typeID, maximumDuration) = (store.typeID(row.type), row.type.maximumDuration)
            Self.remember((row.type, typeID, maximumDuration), in: &recentTypes)
        }
        if let problem = PlausibleRange.problem(start: row.start, end: row.end, maximumDuration: maximumDuration) {
            throw .invalidSample("\(row.type) \(problem)")
        }
        let appID: Int64
        if let position = recentApps.indices.first(where: { ExactText.same(recentApps[$0].bundleID, source.id) }) {
            appID = recentApps[position].id
        } else {
            appID = try self.appID(source.id)
            Self.remember((source.id, appID), in: &recentApps)
        }
        var deviceID: Int64?
        if row.device != nil {
            if let position = recentDevices.indices.first(where: { ExactText.same(recentDevices[$0].device, row.device!) }) {
                deviceID = recentDevices[position].id
            } else {
                let id = try self.deviceID(row.device!)
                Self.remember((row.device!, id), in: &recentDevices)
                deviceID = id
            }
            noteRecordsDevice(appID: appID)
        }
        return CheckedRow(id: row.id, typeID: typeID, value: row.value, start: start, end: end, appID: appID,
                          version: source.version, deviceID: deviceID, zone: row.timeZone?.identifier,
                          syncIdentifier: row.syncIdentifier, syncVersion: row.syncVersion, userEntered: row.userEntered,
                          metadata: MetadataCoding.encode(row.metadata))
    }

    /// The app saved a sample with a device: at commit, it ranks among devices.
    func noteRecordsDevice(appID: Int64) {
        if lastAppRecordingDevices != appID {
            appsRecordingDevices.insert(appID)
            lastAppRecordingDevices = appID
        }
    }

    /// Whether `bundleID` already has an app row (a batch writes what is pending before a new
    /// app takes the next anchor as its first).
    func knowsApp(_ bundleID: String) throws(HealthStoreError) -> Bool {
        if recentApps.indices.contains(where: { ExactText.same(recentApps[$0].bundleID, bundleID) }) { return true }
        return try store.existingAppID(bundleID, connection) != nil
    }

    /// The multi-row insert of `rows` samples, prepared once per transaction. Its parameters are
    /// not cleared between runs: each run binds all of them.
    func batchInsert(rows: Int) throws(HealthStoreError) -> Statement {
        if let statement = batchInsertStatements[rows] { return statement }
        let statement = try connection.cached(Self.insertSampleSQL(rows: rows)).get()
        batchInsertStatements[rows] = statement
        return statement
    }

    /// Opens (`release` false) or releases the savepoint a batch is written in.
    func batchSavepoint(release: Bool) throws(HealthStoreError) {
        guard connection.kind == .sqlite else {
            // PostgreSQL prepares only queries and data changes; SAVEPOINT goes as plain text.
            return try connection.execute(release ? "RELEASE SAVEPOINT bandkit_batch" : "SAVEPOINT bandkit_batch").get()
        }
        if savepointStatements == nil {
            savepointStatements = (try connection.prepare("SAVEPOINT bandkit_batch").get(),
                                   try connection.prepare("RELEASE SAVEPOINT bandkit_batch").get())
        }
        try (release ? savepointStatements!.release : savepointStatements!.begin).run().get()
    }

    /// Keeps `entry` among the few most recently resolved, replacing the oldest when full.
    private static func remember<Entry>(_ entry: Entry, in recent: inout [Entry]) {
        if recent.count == 8 { recent.removeFirst() }
        recent.append(entry)
    }

    /// Writes a checked row under the sync-identifier rule: inserted, replaced or left unchanged.
    func write(_ checked: CheckedRow) throws(HealthStoreError) -> SaveOutcome {
        let (row, typeID, appID) = (checked, checked.typeID, checked.appID)
        let (start, end) = (checked.start, checked.end)
        // New samples are the common case: insert first, and look for the sample to replace only
        // when the (source, type, sync identifier) key is already taken.
        if try insertRow(checked) {
            recordDuration(typeID: typeID, end - start)
            markHours(typeID: typeID, start: start, end: end)
            return .inserted
        }
        let existing = try reuse(&findSyncStatement,
            "SELECT anchor, uuid, sync_version, start_us, end_us FROM sample WHERE person_id = ? AND app_id = ? AND type_id = ? AND sync_id = ?")
        existing.bind(1, store.personID)
        existing.bind(2, appID)
        existing.bind(3, typeID)
        existing.bind(4, row.syncIdentifier)
        guard try existing.step().get() else {
            existing.reset()
            throw .invalidSample("sync identifier \(row.syncIdentifier ?? "") conflicted but no sample holds it")
        }
        let oldAnchor = existing.int64(0)
        let oldID = existing.uuid(1) ?? row.id
        let oldVersion = existing.int64(2)
        let (oldStart, oldEnd) = (existing.int64(3), existing.int64(4))
        existing.reset()
        // HealthKit's rule: only a strictly greater version replaces.
        guard row.syncVersion > oldVersion else { return .unchanged(existing: oldID) }
        let delete = try connection.cached("DELETE FROM sample WHERE anchor = ?").get()
        delete.bind(1, oldAnchor)
        try delete.run().get()
        if oldID != row.id { try insertTombstone(id: oldID, typeID: typeID, appID: appID) }
        guard try insertRow(checked) else {
            throw .invalidSample("sync identifier \(row.syncIdentifier ?? "") still taken after replacing")
        }
        recordDuration(typeID: typeID, end - start)
        markHours(typeID: typeID, start: oldStart, end: oldEnd)
        markHours(typeID: typeID, start: start, end: end)
        return .replaced(previous: oldID)
    }

    /// Notes the UTC hours `[start, end]` covers, for cumulative types.
    func markHours(typeID: Int64, start: Int64, end: Int64) {
        let position: Int
        if let found = recentHours.firstIndex(where: { $0.typeID == typeID }) {
            position = found
        } else {
            Self.remember((typeID, store.keepsMergedHours(typeID), Int64.min), in: &recentHours)
            position = recentHours.count - 1
        }
        guard recentHours[position].keepsMergedHours else { return }
        let first = HealthStore.hourFloor(start)
        let last = end > start ? HealthStore.hourFloor(end - 1) : first
        if first == last, recentHours[position].hour == first { return }  // minute after minute: the same hour
        var hour = first
        while hour <= last {
            dirtyHours[typeID, default: []].insert(hour)
            hour += HealthStore.hourMicroseconds
        }
        recentHours[position].hour = last
    }

    func recordDuration(typeID: Int64, _ duration: Int64) {
        if duration > (maxDurations[typeID] ?? 0) { maxDurations[typeID] = duration }
    }

    /// Inserts one row under the next anchor; false when its sync key is already taken.
    private func insertRow(_ row: CheckedRow) throws(HealthStoreError) -> Bool {
        let insert = try reuse(&insertSampleStatement, Self.insertSampleSQL(rows: 1))
        try bindSample(insert, at: 0, row)
        do {
            try insert.run().get()
        } catch {
            // SQLite names the column, PostgreSQL the index.
            if case .database(let database) = error, database.isConstraint,
               database.message.contains("sample.uuid") || database.message.contains("sample_by_uuid") {
                throw .invalidSample("a sample with id \(row.id) already exists")
            }
            throw error
        }
        return connection.changes > 0
    }

    /// Columns of a sample row, in the order ``bindSample(_:at:_:)`` binds them.
    static let sampleColumns = 15

    /// `INSERT` of `rows` samples under the sync-identifier key: a row whose key is taken is skipped.
    static func insertSampleSQL(rows: Int) -> String {
        let row = "(" + Array(repeating: "?", count: sampleColumns).joined(separator: ", ") + ")"
        return """
            INSERT INTO sample (anchor, uuid, type_id, start_us, end_us, value, app_id, app_version, device_id,
                                zone, sync_id, sync_version, user_entered, metadata, person_id)
            VALUES \(Array(repeating: row, count: rows).joined(separator: ", "))
            ON CONFLICT (person_id, app_id, type_id, sync_id) WHERE sync_id IS NOT NULL DO NOTHING
            """
    }

    /// Binds one sample row, under the next anchor, as row `position` (0-based) of an insert.
    func bindSample(_ insert: Statement, at position: Int, _ row: borrowing CheckedRow) throws(HealthStoreError) {
        let base = Int32(position * Self.sampleColumns)
        insert.bind(base + 1, try nextAnchor())
        insert.bind(base + 2, row.id)
        insert.bind(base + 3, row.typeID)
        insert.bind(base + 4, row.start)
        insert.bind(base + 5, row.end)
        insert.bind(base + 6, row.value)
        insert.bind(base + 7, row.appID)
        insert.bind(base + 8, row.version)
        insert.bind(base + 9, row.deviceID)
        insert.bind(base + 10, row.zone)
        insert.bind(base + 11, row.syncIdentifier)
        insert.bind(base + 12, row.syncVersion)
        insert.bind(base + 13, row.userEntered)
        insert.bind(base + 14, row.metadata)
        insert.bind(base + 15, store.personID)
    }

    /// The statement in `slot`, prepared through the connection's cache on first use.
    /// `sql` is evaluated only the first time: building it per row was 9 % of a bulk import's CPU.
    private func reuse(_ slot: inout Statement?, _ sql: @autoclosure () -> String) throws(HealthStoreError) -> Statement {
        if let statement = slot {
            statement.reset()
            return statement
        }
        let statement = try connection.cached(sql()).get()
        slot = statement
        return statement
    }

    private func insertTombstone(id: UUID, typeID: Int64, appID: Int64) throws(HealthStoreError) {
        let tombstone = try connection.cached(
            "INSERT INTO tombstone (anchor, uuid, type_id, app_id, person_id) VALUES (?, ?, ?, ?, ?)").get()
        tombstone.bind(1, try nextAnchor())
        tombstone.bind(2, id)
        tombstone.bind(3, typeID)
        tombstone.bind(4, appID)
        tombstone.bind(5, store.personID)
        try tombstone.run().get()
    }

    /// Deletes a sample. Apps may delete only samples they saved; the owner may delete any.
    /// Returns false when there is no such sample (or it belongs to another app or person).
    @discardableResult
    public func delete(sampleID id: UUID) throws(HealthStoreError) -> Bool {
        try ensureOpen()
        let select = try connection.cached(
            "SELECT anchor, type_id, app_id, start_us, end_us FROM sample WHERE uuid = ? AND person_id = ?").get()
        select.bind(1, id)
        select.bind(2, store.personID)
        guard try select.step().get() else { select.reset(); return false }
        let (rowAnchor, typeID, ownerID) = (select.int64(0), select.int64(1), select.int64(2))
        let (start, end) = (select.int64(3), select.int64(4))
        select.reset()
        if !app.isOwner {
            guard try store.existingAppID(app.id, connection) == ownerID else { return false }
            if let type = store.typesByID[typeID] { try checkWritable(type) }
        }
        let delete = try connection.cached("DELETE FROM sample WHERE anchor = ?").get()
        delete.bind(1, rowAnchor)
        try delete.run().get()
        try insertTombstone(id: id, typeID: typeID, appID: ownerID)
        markHours(typeID: typeID, start: start, end: end)
        return true
    }

    /// Deletes a workout (HealthKit `delete(_:)` of an `HKWorkout`): same rules as samples — apps
    /// delete only workouts they saved, the owner any. The change feed reports it as a deleted
    /// object of type `SampleType/workout`. Samples recorded during it stay (HealthKit keeps
    /// them too). Returns false when there is no such workout (or it belongs to another app).
    @discardableResult
    public func delete(workoutID id: UUID) throws(HealthStoreError) -> Bool {
        try ensureOpen()
        let select = try connection.cached("SELECT anchor, app_id FROM workout WHERE uuid = ? AND person_id = ?").get()
        select.bind(1, id)
        select.bind(2, store.personID)
        guard try select.step().get() else { select.reset(); return false }
        let (rowAnchor, ownerID) = (select.int64(0), select.int64(1))
        select.reset()
        if !app.isOwner {
            guard try store.existingAppID(app.id, connection) == ownerID else { return false }
            try checkWritable(.workout)
        }
        let delete = try connection.cached("DELETE FROM workout WHERE anchor = ?").get()
        delete.bind(1, rowAnchor)
        try delete.run().get()
        try insertTombstone(id: id, typeID: store.typeID(.workout), appID: ownerID)
        return true
    }

    /// Stores `value` under `key` for ``app`` (e.g. a sync cursor), committed with the samples.
    public func setAppState(_ key: String, _ value: String?) throws(HealthStoreError) {
        try ensureOpen()
        let appID = try appID(app.id)
        if let value {
            let upsert = try connection.cached("""
                INSERT INTO app_state (app_id, key, value) VALUES (?, ?, ?)
                ON CONFLICT (app_id, key) DO UPDATE SET value = excluded.value
                """).get()
            upsert.bind(1, appID)
            upsert.bind(2, key)
            upsert.bind(3, value)
            try upsert.run().get()
        } else {
            let delete = try connection.cached("DELETE FROM app_state WHERE app_id = ? AND key = ?").get()
            delete.bind(1, appID)
            delete.bind(2, key)
            try delete.run().get()
        }
    }

    /// Reads back state of ``app`` inside the transaction (sees its own uncommitted writes).
    public func appState(_ key: String) throws(HealthStoreError) -> String? {
        try ensureOpen()
        guard let appID = try store.existingAppID(app.id, connection) else { return nil }
        let select = try connection.cached("SELECT value FROM app_state WHERE app_id = ? AND key = ?").get()
        defer { select.reset() }
        select.bind(1, appID)
        select.bind(2, key)
        return try select.step().get() ? select.text(0) : nil
    }
}

/// Where a write transaction's anchors come from.
enum AnchorSource {
    /// The one writer's: counting up from the store's counter (SQLite), whose last value is given.
    case counter(Int64)
    /// Blocks of the sequence `anchor_block` (PostgreSQL: writers of different people at once).
    case sequence
}
