import BandProtocol
import FoundationEssentials
import HealthModel
import HealthStore

/// Writes one band's minutes into the health store as the app `bandkit.band`, through the store's
/// public API only.
///
/// Every minute becomes one sample per type, keyed by a sync identifier
/// `<device>|<type>|<minute start, Unix seconds>`. History records are written with
/// ``historySyncVersion`` and live minutes with ``liveSyncVersion`` (plus one per merge of
/// another stream's readings for the same minute, see `writeLive(_:batteryPercent:batteryTime:)`);
/// the store replaces a sample only by a greater version, so the band's record of a minute
/// replaces the provisional live one, re-syncing the same record changes nothing, and a late
/// live minute never overwrites history.
/// That is the whole deduplication story: no minute can be stored twice, whatever order the
/// reconnects, crashes and retries happen in. A minute the band itself recorded twice (a clock
/// or zone change, or a boot, inside it) is one sample per type holding both records, each
/// counted once (`historySamples(_:firstSequence:stored:committedBefore:)`).
///
/// History minutes store steps, distance and energy even when zero (the record is the band's
/// word that nothing happened, and it must replace a provisional live value); heart rate only
/// when measured, as one sample holding the average with the minimum and maximum in metadata.
/// Live minutes additionally keep RR intervals: an HRV SDNN sample for the minute with the
/// intervals themselves in its metadata.
public final class SampleWriter {
    public static let app = AppIdentity(id: "bandkit.band", version: "1")
    /// Above every live version: a live minute merged from several streams gets a greater
    /// version each time (see `writeLive(_:batteryPercent:batteryTime:)`), and history must
    /// still replace it. (Stores written before this held history at version 2; those samples
    /// are recognised by their `origin` metadata and never overwritten by live ones.)
    public static let historySyncVersion: Int64 = 1 << 32
    /// The version of a live minute written by one stream; each merge adds one.
    public static let liveSyncVersion: Int64 = 1
    public static let writtenTypes: [QuantityType] = [.stepCount, .distanceWalkingRunning, .activeEnergyBurned,
                                                       .heartRate, .heartRateVariabilitySDNN]

    /// Metadata keys (the store keeps metadata as strings).
    public enum MetadataKey {
        public static let heartRateMinimum = "bandkit.hr.min"
        public static let heartRateMaximum = "bandkit.hr.max"
        public static let heartRateReadings = "bandkit.hr.count"
        public static let rrIntervals = "bandkit.rr.ms"
        /// Heart-rate readings of the minute sent while the sensor reported no skin contact,
        /// left out of the average, minimum and maximum (present only when there were some).
        public static let heartRateReadingsWithoutContact = "bandkit.hr.nocontact"
        public static let origin = "bandkit.origin"
        /// On a step sample spanning time the reader was not connected (origin `gap`): why the
        /// running total grew without it (``StepCountTracker/GapReason``: away, reboot, midnight, first-sight).
        public static let stepGap = "bandkit.steps.gap"
        /// On a gap sample: the device's running total at its end.
        public static let stepTotal = "bandkit.steps.total"
    }

    public let store: HealthStore
    /// The part of every sync identifier that names the band.
    public let deviceIdentifier: String
    public let device: DeviceInfo
    /// Whether the band's walk and run sessions are stored as workouts (``WorkoutWriter``): asked
    /// for with the sample types, but a user who revoked it still gets the minutes synced.
    public let writesWorkouts: Bool

    public init(store: HealthStore, deviceIdentifier: String, device: DeviceInfo) throws {
        self.store = store
        self.deviceIdentifier = deviceIdentifier
        self.device = device
        let types = Set(Self.writtenTypes.map { SampleType.quantity($0) } + [.category(SleepWriter.type)])
        let granted = try store.requestAuthorization(for: Self.app, toShare: types.union([.workout]), read: types)
        for type in types where granted[type.identifier]?.write != .granted {
            throw HealthStoreError.notAuthorized(app: Self.app.id, type: type.identifier)
        }
        writesWorkouts = granted[SampleType.workout.identifier]?.write == .granted
    }

    /// The stored history cursor of this band, if any.
    public func cursor() throws -> HistoryCursor? {
        guard let text = try store.appState(app: Self.app.id, key: HistoryCursor.key(device: deviceIdentifier)) else { return nil }
        return HistoryCursor(stored: text)
    }

    /// Saves a verified batch of history records and the cursor after them in one transaction:
    /// after a crash either both are stored or neither. The band's sessions the batch closes are
    /// saved as workouts in the same transaction, and the one it leaves open is kept for the next
    /// batch (``WorkoutWriter``). Provisional live values the batch shows
    /// the band never recorded (see `supersededLiveSamples(_:after:)`) are deleted in the same
    /// transaction. `previous` is the cursor the batch continues from.
    ///
    /// The commit is durable against a power loss before this returns
    /// (`Durability/beforeAcknowledgement`): the caller acknowledges the records next, and the
    /// band erases what it acknowledged.
    ///
    /// `firstSequence` is the first record's sequence number (by default the batch ends at
    /// `cursor`): a minute the band recorded more than once is stored as the combination of all
    /// its records, each counted once however often it is synced (docs/protocol.md, "A minute recorded twice").
    @discardableResult
    public func commitHistory(_ records: [MinuteRecord], cursor: HistoryCursor, previous: HistoryCursor? = nil,
                              firstSequence: UInt32? = nil) throws -> StoreWrite {
        var cursor = cursor
        if cursor.lastMinute == nil { cursor.lastMinute = records.last?.minuteStart ?? previous?.lastMinute }
        let stored = try storedSamples(for: records, after: previous?.lastMinute)
        let superseded = supersededLiveSamples(records, after: previous?.lastMinute, stored: stored)
        let committed = try self.cursor().flatMap { $0.historyID == cursor.historyID ? $0.nextSequence : nil }
        var storedByID: [String: QuantitySample] = [:]
        for sample in stored { if let id = sample.syncIdentifier { storedByID[id] = sample } }
        let first = firstSequence ?? cursor.nextSequence &- UInt32(truncatingIfNeeded: records.count)
        let samples = historySamples(records, firstSequence: first, stored: storedByID, committedBefore: committed)
        let written = try store.write(as: Self.app, durability: .beforeAcknowledgement) { transaction in
            var outcome = StoreWrite()
            // Streamed into the store's batches (multi-row statements: on PostgreSQL a few round
            // trips instead of one per sample): what a commit holds beside the samples is bounded by
            // the store's batch, not by the slice (docs/performance.md, the gateway's peak).
            var saved: [SaveOutcome] = []
            saved.reserveCapacity(WriteTransaction.batchSize)
            do throws(BatchSaveError) {
                for (tag, sample) in samples.enumerated() {
                    try transaction.append(SampleToSave(sample), tag: tag, outcomes: &saved)
                    if saved.count >= WriteTransaction.batchSize {
                        for one in saved { outcome.count(one) }
                        saved.removeAll(keepingCapacity: true)
                    }
                }
                try transaction.writeAppended(into: &saved)
            } catch {
                throw error.error  // the store's error, as a one-by-one save reports it
            }
            for one in saved { outcome.count(one) }
            for id in superseded where try transaction.delete(sampleID: id) { outcome.deleted += 1 }
            try transaction.setAppState(HistoryCursor.key(device: deviceIdentifier), cursor.stored)
            if writesWorkouts {
                outcome.workouts = try WorkoutWriter.commit(records, cursor: cursor, previous: previous, device: deviceIdentifier,
                                                            info: device, in: transaction)
            }
            outcome.minutes = records.count
            return outcome
        }
        try scoreClosedNights(records, after: previous?.lastMinute)
        return written
    }

    /// The sleep hook: nights this batch closed are scored (``SleepWriter``), in the band's zone.
    func scoreClosedNights(_ records: [MinuteRecord], after previousLast: UInt32?) throws {
        guard let first = records.first, let last = records.last else { return }
        let from = Date(timeIntervalSince1970: TimeInterval(min(first.minuteStart, previousLast ?? first.minuteStart)))
        let through = Date(timeIntervalSince1970: TimeInterval(last.minuteStart) + 60)
        let zone = last.utcOffset.seconds.flatMap { TimeZone(secondsFromGMT: $0) } ?? .current
        try SleepWriter(store: store, deviceIdentifier: deviceIdentifier, device: device)
            .scoreClosedNights(from: from, through: through, zone: zone)
    }

    /// Saves provisional live minutes (one transaction), each merged with what the store already
    /// holds for its minute, so no reading received is lost or counted twice.
    ///
    /// A minute can be filed by more than one stream: the link drops and comes back within it, or
    /// the reader is restarted. Each stream's readings for it are one part (``LiveMinute/part``);
    /// the stored live sample keeps its parts in metadata (`LiveMinuteParts`) and its value is
    /// their combination, written with a version one greater than the stored one so the store
    /// replaces it. The stored minute is read from the store, not from memory, so a restarted
    /// reader merges too; a part already stored (a replay of the same recording, a retried
    /// write) replaces itself, so nothing counts twice. A minute the band's history already
    /// recorded is left alone: history is written with ``historySyncVersion``, above any live
    /// version, and replaces the merged live sample exactly as it replaced a single one.
    ///
    /// The read happens before the write transaction; this writer is the only writer of its
    /// band's samples (one reader per band), so nothing can change them in between.
    @discardableResult
    public func writeLive(_ minutes: [LiveMinute], batteryPercent: Int? = nil, batteryTime: Date? = nil,
                          stepGaps: [StepGap] = []) throws -> StoreWrite {
        var stored = try storedLiveSamples(covering: minutes)
        return try store.write(as: Self.app) { transaction in
            var outcome = StoreWrite()
            for gap in stepGaps { outcome.count(try transaction.save(sample(for: gap))) }
            // The running total these samples account for, in the same transaction: a restart
            // continues from exactly what was committed (StepCountTracker).
            let totals = minutes.compactMap(\.stepCountEnd) + stepGaps.map(\.total)
            if let latest = totals.max(by: { $0.time < $1.time }) {
                try transaction.setAppState(Self.stepCountKey(device: deviceIdentifier), latest.stored)
            }
            for minute in minutes {
                for merge in merged(minute, stored: stored) {
                    guard let sample = merge else { outcome.unchanged += 1; continue }
                    outcome.count(try transaction.save(sample))
                    if let id = sample.syncIdentifier { stored[id] = sample }
                }
            }
            if let batteryPercent {
                let time = Int64((batteryTime ?? Date()).timeIntervalSince1970)
                try transaction.setAppState(Self.batteryKey(device: deviceIdentifier), "\(batteryPercent) \(time)")
            }
            outcome.minutes = minutes.count
            return outcome
        }
    }

    /// Writes what a spool kept while the store was unreachable, through ``writeLive(_:batteryPercent:batteryTime:stepGaps:)``.
    /// Minutes the band's history already covers (at or before the stored cursor's last minute)
    /// are left out: the history sync that covered them deleted the live values the band did not
    /// record (`supersededLiveSamples(_:after:)`), and a spool replayed later — a stale
    /// gateway's — must not bring them back. Returns the minutes written.
    @discardableResult
    public func writeSpooled(_ minutes: [LiveMinute], batteryPercent: Int?, batteryTime: Date?, stepGaps: [StepGap]) throws -> Int {
        let covered = try cursor()?.lastMinute
        let fresh = covered.map { last in minutes.filter { $0.start > last } } ?? minutes
        try writeLive(fresh, batteryPercent: batteryPercent, batteryTime: batteryTime, stepGaps: stepGaps)
        return fresh.count
    }

    // MARK: Step counts from a running total

    /// App-state key of the last running step total accounted for (``StepCountState``), per device.
    public static func stepCountKey(device: String) -> String { "steps|\(device)" }

    /// The last running step total this device's samples account for.
    public func storedStepCount() throws -> StepCountState? {
        try store.appState(app: Self.app.id, key: Self.stepCountKey(device: deviceIdentifier)).flatMap(StepCountState.init(stored:))
    }

    /// One step sample over the span the reader was away, marked as such.
    func sample(for gap: StepGap) -> QuantitySample {
        QuantitySample(type: .stepCount, quantity: Quantity(Double(gap.steps), .count),
                       start: Date(timeIntervalSince1970: TimeInterval(gap.from)), end: Date(timeIntervalSince1970: TimeInterval(gap.to)),
                       timeZone: TimeZone(secondsFromGMT: gap.utcOffsetSeconds), device: device,
                       syncIdentifier: "\(deviceIdentifier)|\(QuantityType.stepCount.identifier)|gap|\(gap.to)", syncVersion: Self.liveSyncVersion,
                       metadata: [MetadataKey.origin: "gap", MetadataKey.stepGap: gap.reason.rawValue, MetadataKey.stepTotal: String(gap.total.total)])
    }

    // MARK: Battery

    /// App-state key of a device's last battery level.
    ///
    /// HealthKit has no battery sample type (a battery is the device's state, not a measurement
    /// of the wearer), and inventing a quantity type would put a non-HealthKit type into a store
    /// other apps read with HealthKit's semantics. So the level is kept as this app's state, per
    /// device, in the same transaction as the live minutes: `"<percent> <Unix seconds>"`, the
    /// latest level the band reported (read at connect or notified) and when.
    public static func batteryKey(device: String) -> String { "battery|\(device)" }

    /// The last battery level stored for this band and when it was reported.
    public func storedBattery() throws -> (percent: Int, time: Date)? {
        guard let text = try store.appState(app: Self.app.id, key: Self.batteryKey(device: deviceIdentifier)) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count == 2, let percent = Int(fields[0]), let seconds = Int64(fields[1]) else { return nil }
        return (percent, Date(timeIntervalSince1970: TimeInterval(seconds)))
    }

    // MARK: Merging live minutes

    /// This band's stored samples (any version) for the minutes of `minutes`, by sync identifier.
    private func storedLiveSamples(covering minutes: [LiveMinute]) throws -> [String: QuantitySample] {
        guard let first = minutes.map(\.start).min(), let last = minutes.map(\.start).max() else { return [:] }
        let range = Date(timeIntervalSince1970: TimeInterval(first))..<Date(timeIntervalSince1970: TimeInterval(last) + 60)
        var result: [String: QuantitySample] = [:]
        // One statement for every written type: this runs before each live write.
        for sample in try store.ownSamples(of: Self.writtenTypes.map(SampleType.quantity), startingIn: range, as: Self.app) {
            guard let quantity = sample.quantitySample, let id = quantity.syncIdentifier,
                  id.hasPrefix(deviceIdentifier + "|") else { continue }
            result[id] = quantity
        }
        return result
    }

    /// One entry per type this minute contributes to: the merged sample to save, or nil when
    /// the store already holds this part (or the band's record of the minute).
    func merged(_ minute: LiveMinute, stored: [String: QuantitySample]) -> [QuantitySample?] {
        var out: [QuantitySample?] = []
        for (type, values, combine) in Self.parts(of: minute) {
            let id = syncIdentifier(type, minute: minute.start)
            let existing = stored[id]
            if let existing, Self.isHistory(existing) {
                out.append(nil)
                continue
            }
            var parts = existing.map(Self.parts(storedIn:)) ?? LiveMinuteParts()
            guard parts.merge(key: minute.part, values: values, combine: combine) || existing == nil,
                  let total = parts.total(combine) else {
                out.append(nil)
                continue
            }
            let version = (existing?.syncVersion ?? 0) + 1
            guard version < Self.historySyncVersion else {
                out.append(nil)
                continue
            }
            // No sample yet (one RR interval so far): nothing to store, nothing to count.
            guard var sample = liveSample(type, total: total, minute: minute, version: version) else { continue }
            sample.metadata[LiveMinuteParts.metadataKey] = parts.stored
            out.append(sample)
        }
        return out
    }

    static func isHistory(_ sample: QuantitySample) -> Bool {
        sample.syncVersion >= historySyncVersion || sample.metadata[MetadataKey.origin] == "history"
    }

    /// This minute's part for each type it has something for.
    static func parts(of minute: LiveMinute) -> [(QuantityType, [Int], ([Int], [Int]) -> [Int])] {
        var out: [(QuantityType, [Int], ([Int], [Int]) -> [Int])] = []
        if !minute.activity.isZero {
            out.append((.stepCount, [Int(minute.activity.steps) + Int(minute.countedSteps)], LiveMinuteParts.sum))
            out.append((.distanceWalkingRunning, [Int(minute.activity.distanceDecimetres)], LiveMinuteParts.sum))
        } else if minute.countedSteps > 0 {
            // A step count alone (InfiniTime): no distance or energy, which the device does not measure.
            out.append((.stepCount, [Int(minute.countedSteps)], LiveMinuteParts.sum))
        }
        if !minute.activity.isZero || minute.energyKilojoules > 0 {
            out.append((.activeEnergyBurned, [Int(minute.activity.energyDecikilocalories), minute.energyKilojoules], LiveMinuteParts.sum))
        }
        let hr = minute.heartRate
        if hr.count > 0 {
            out.append((.heartRate, hr.storedFields, LiveMinuteParts.heartRate))
        }
        if !minute.rrIntervals.isEmpty {
            out.append((.heartRateVariabilitySDNN, minute.rrIntervals.map(Int.init), LiveMinuteParts.intervals))
        }
        return out
    }

    /// The parts of a stored live sample; one written before parts existed (or with damaged
    /// parts) becomes a single part keyed 0 holding its value, so it is kept, not lost.
    static func parts(storedIn sample: QuantitySample) -> LiveMinuteParts {
        if let text = sample.metadata[LiveMinuteParts.metadataKey], let parts = LiveMinuteParts(stored: text) { return parts }
        let value = sample.quantity.value
        var values: [Int]
        switch sample.type {
        case .distanceWalkingRunning: values = [Int((value * 10).rounded())]
        case .activeEnergyBurned: values = [Int((value * 10).rounded()), 0]
        case .heartRate:
            let count = sample.metadata[MetadataKey.heartRateReadings].flatMap { Int($0) } ?? 1
            let average = Int(value.rounded())
            values = [count, average * count, sample.metadata[MetadataKey.heartRateMinimum].flatMap { Int($0) } ?? average,
                      sample.metadata[MetadataKey.heartRateMaximum].flatMap { Int($0) } ?? average, 0]
        case .heartRateVariabilitySDNN:
            values = (sample.metadata[MetadataKey.rrIntervals] ?? "").split(separator: ",").compactMap { Double($0) }
                .map { Int(($0 * 1.024).rounded()) }
        default: values = [Int(value.rounded())]
        }
        var parts = LiveMinuteParts()
        _ = parts.merge(key: 0, values: values, combine: LiveMinuteParts.sum)
        return parts
    }

    /// This band's stored samples of the history types starting from the minute after
    /// `previousLast` (or the batch's earliest minute) to the batch's latest: one statement, read
    /// before the write (this writer is its band's only writer).
    func storedSamples(for records: [MinuteRecord], after previousLast: UInt32?) throws -> [QuantitySample] {
        // Records come in the band's storage order, not time order: a band whose clock was set
        // back (a reboot that lost its time, a new start) stores earlier minutes after later
        // ones, so the span is the batch's earliest to latest minute, never first to last.
        guard let first = records.lazy.map(\.minuteStart).min(), let last = records.lazy.map(\.minuteStart).max() else { return [] }
        let from = previousLast.map { min(first, $0 &+ 60) } ?? first
        let range = Date(timeIntervalSince1970: TimeInterval(from))..<Date(timeIntervalSince1970: TimeInterval(last) + 60)
        let types: [QuantityType] = [.stepCount, .distanceWalkingRunning, .activeEnergyBurned, .heartRate]
        return try store.ownSamples(of: types.map(SampleType.quantity), startingIn: range, as: Self.app).compactMap { sample -> QuantitySample? in
            guard let quantity = sample.quantitySample, quantity.syncIdentifier?.hasPrefix(deviceIdentifier + "|") == true else { return nil }
            return quantity
        }
    }

    /// Provisional live samples among `stored` (``storedSamples(for:after:)``) that history shows
    /// the band never recorded:
    /// - any live value in a minute the band has no record for (the minute a reboot lost);
    /// - live heart rate in a minute none of whose records says one was measured (a reading
    ///   filed under the neighbouring minute at a worn/unworn edge).
    /// A record replaces live values type by type through the sync identifiers, but an absent
    /// record or absent heart rate writes nothing that could, so these are deleted instead: the
    /// band's history is the record of what happened. HRV samples are live-only and stay.
    func supersededLiveSamples(_ records: [MinuteRecord], after previousLast: UInt32?, stored: [QuantitySample]) -> [UUID] {
        var recorded: [UInt32: Bool] = [:]
        recorded.reserveCapacity(records.count)
        for record in records { recorded[record.minuteStart] = (recorded[record.minuteStart] ?? false) || record.heartRate != nil }
        var superseded: [UUID] = []
        for quantity in stored where !Self.isHistory(quantity) {
            let minute = UInt32(clamping: Int64(quantity.start.timeIntervalSince1970))
            switch recorded[minute] {
            case nil: superseded.append(quantity.id)
            case false?: if quantity.type == .heartRate { superseded.append(quantity.id) }
            case true?: break
            }
        }
        return superseded
    }

    // MARK: Mapping

    func syncIdentifier(_ type: QuantityType, minute: UInt32) -> String {
        "\(deviceIdentifier)|\(type.identifier)|\(minute)"
    }

    /// One minute's live samples on their own, as stored when nothing else is stored for it.
    func samples(for minute: LiveMinute) -> [QuantitySample] {
        merged(minute, stored: [:]).compactMap { $0 }
    }

    /// The live sample of `type` for a minute whose parts combine to `total`; nil when the total
    /// makes no sample (a heart rate without a reading, fewer than two RR intervals).
    func liveSample(_ type: QuantityType, total: [Int], minute: LiveMinute, version: Int64) -> QuantitySample? {
        let start = Date(timeIntervalSince1970: TimeInterval(minute.start))
        let end = start.addingTimeInterval(60)
        let zone = minute.utcOffsetSeconds.flatMap { TimeZone(secondsFromGMT: $0) }
        func sample(_ quantity: Quantity, _ metadata: [String: String] = [:]) -> QuantitySample {
            var metadata = metadata
            metadata[MetadataKey.origin] = "live"
            return QuantitySample(type: type, quantity: quantity, start: start, end: end, timeZone: zone, device: device,
                                  syncIdentifier: syncIdentifier(type, minute: minute.start),
                                  syncVersion: version, metadata: metadata)
        }
        func field(_ index: Int) -> Int { total.indices.contains(index) ? total[index] : 0 }
        switch type {
        case .stepCount: return sample(Quantity(Double(field(0)), .count))
        case .distanceWalkingRunning: return sample(Quantity(Double(field(0)) / 10, .meter))
        case .activeEnergyBurned:
            // Decikilocalories from the band's counters plus kilojoules from a strap's Energy Expended.
            let kilojoules = field(1)
            return sample(Quantity(Double(field(0)) / 10 + (kilojoules == 0 ? 0 : Double(kilojoules) / 4.184), .kilocalorie))
        case .heartRate:
            let readings = HeartRateAccumulator(storedFields: total)
            guard readings.count > 0, let average = readings.average else { return nil }
            var metadata = [
                MetadataKey.heartRateMinimum: String(readings.minimum),
                MetadataKey.heartRateMaximum: String(readings.maximum),
                MetadataKey.heartRateReadings: String(readings.count),
            ]
            if readings.withoutContact > 0 { metadata[MetadataKey.heartRateReadingsWithoutContact] = String(readings.withoutContact) }
            return sample(Quantity(Double(average), .countPerMinute), metadata)
        case .heartRateVariabilitySDNN:
            let intervals = total.map { UInt16(clamping: $0) }
            guard let sdnn = Self.sdnnMilliseconds(intervals) else { return nil }
            return sample(Quantity(sdnn, .millisecond), [MetadataKey.rrIntervals: intervals.map(Self.millisecondsText).joined(separator: ",")])
        default: return nil
        }
    }

    /// An RR interval (1/1024 s) in milliseconds with one decimal, exactly as `String(format: "%.1f")`
    /// prints it (round half to even on the exact dyadic value, as glibc does) but in integer
    /// arithmetic: Foundation's formatting was 44 % of a replay's time.
    static func millisecondsText(_ rr: UInt16) -> String {
        let tenths = UInt32(rr) * 1250       // rr · 1000 / 1024 ms = rr · 1250 / 128 tenths
        var quotient = tenths / 128
        let remainder = tenths % 128
        if remainder > 64 || (remainder == 64 && quotient % 2 == 1) { quotient += 1 }
        return "\(quotient / 10).\(quotient % 10)"
    }

    /// Standard deviation of the NN intervals in milliseconds (sample SD, n − 1); nil below two.
    static func sdnnMilliseconds(_ intervals: [UInt16]) -> Double? {
        guard intervals.count >= 2 else { return nil }
        let values = intervals.map { Double($0) * 1000 / 1024 }
        let mean = values.reduce(0, +) / Double(values.count)
        let variance = values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count - 1)
        return variance.squareRoot()
    }
}

/// What one store transaction did.
public struct StoreWrite: Equatable, Sendable {
    public var minutes = 0
    public var inserted = 0
    public var replaced = 0
    public var unchanged = 0
    public var deleted = 0
    /// Workouts saved: the band's sessions this history batch closed.
    public var workouts = 0

    public init() {}

    mutating func count(_ outcome: SaveOutcome) {
        switch outcome {
        case .inserted: inserted += 1
        case .replaced: replaced += 1
        case .unchanged: unchanged += 1
        }
    }
}
