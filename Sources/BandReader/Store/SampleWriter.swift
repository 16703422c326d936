import BandProtocol
import FoundationEssentials
import HealthModel
import HealthStore

/// Writes one band's minutes into the health store as the app `bandkit.band`, through the store's
/// public API only.
///
/// Every minute becomes one sample per type, keyed by a sync identifier
/// `<device>|<type>|<minute start, Unix seconds>`. History records are written with
/// ``historySyncVersion`` and live minutes with ``liveSyncVersion``; the store replaces a sample
/// only by a greater version, so the band's record of a minute replaces the provisional live one,
/// re-syncing the same record changes nothing, and a late live minute never overwrites history.
/// That is the whole deduplication story: no minute can be stored twice, whatever order the
/// reconnects, crashes and retries happen in.
///
/// History minutes store steps, distance and energy even when zero (the record is the band's
/// word that nothing happened, and it must replace a provisional live value); heart rate only
/// when measured, as one sample holding the average with the minimum and maximum in metadata.
/// Live minutes additionally keep RR intervals: an HRV SDNN sample for the minute with the
/// intervals themselves in its metadata.
public final class SampleWriter {
    public static let app = AppIdentity(id: "bandkit.band", version: "1")
    public static let historySyncVersion: Int64 = 2
    public static let liveSyncVersion: Int64 = 1
    public static let writtenTypes: [QuantityType] = [.stepCount, .distanceWalkingRunning, .activeEnergyBurned,
                                                       .heartRate, .heartRateVariabilitySDNN]

    /// Metadata keys (the store keeps metadata as strings).
    public enum MetadataKey {
        public static let heartRateMinimum = "bandkit.hr.min"
        public static let heartRateMaximum = "bandkit.hr.max"
        public static let heartRateReadings = "bandkit.hr.count"
        public static let rrIntervals = "bandkit.rr.ms"
        public static let origin = "bandkit.origin"
    }

    public let store: HealthStore
    /// The part of every sync identifier that names the band.
    public let deviceIdentifier: String
    public let device: DeviceInfo

    public init(store: HealthStore, deviceIdentifier: String, device: DeviceInfo) throws {
        self.store = store
        self.deviceIdentifier = deviceIdentifier
        self.device = device
        let types = Set(Self.writtenTypes.map { SampleType.quantity($0) })
        let granted = try store.requestAuthorization(for: Self.app, toShare: types, read: types)
        for type in types where granted[type.identifier]?.write != .granted {
            throw HealthStoreError.notAuthorized(app: Self.app.id, type: type.identifier)
        }
    }

    /// The stored history cursor of this band, if any.
    public func cursor() throws -> HistoryCursor? {
        guard let text = try store.appState(app: Self.app.id, key: HistoryCursor.key(device: deviceIdentifier)) else { return nil }
        return HistoryCursor(stored: text)
    }

    /// Saves a verified batch of history records and the cursor after them in one transaction:
    /// after a crash either both are stored or neither. Provisional live values the batch shows
    /// the band never recorded (see ``supersededLiveSamples(_:after:)``) are deleted in the same
    /// transaction. `previous` is the cursor the batch continues from.
    ///
    /// The commit is durable against a power loss before this returns
    /// (``Durability/beforeAcknowledgement``): the caller acknowledges the records next, and the
    /// band erases what it acknowledged.
    @discardableResult
    public func commitHistory(_ records: [MinuteRecord], cursor: HistoryCursor, previous: HistoryCursor? = nil) throws -> StoreWrite {
        var cursor = cursor
        if cursor.lastMinute == nil { cursor.lastMinute = records.last?.minuteStart ?? previous?.lastMinute }
        let superseded = try supersededLiveSamples(records, after: previous?.lastMinute)
        return try store.write(as: Self.app, durability: .beforeAcknowledgement) { transaction in
            var outcome = StoreWrite()
            for record in records {
                for sample in samples(for: record) { outcome.count(try transaction.save(sample)) }
            }
            for id in superseded where try transaction.delete(sampleID: id) { outcome.deleted += 1 }
            try transaction.setAppState(HistoryCursor.key(device: deviceIdentifier), cursor.stored)
            outcome.minutes = records.count
            return outcome
        }
    }

    /// Saves provisional live minutes (one transaction).
    @discardableResult
    public func writeLive(_ minutes: [LiveMinute]) throws -> StoreWrite {
        try store.write(as: Self.app) { transaction in
            var outcome = StoreWrite()
            for minute in minutes {
                for sample in samples(for: minute) { outcome.count(try transaction.save(sample)) }
            }
            outcome.minutes = minutes.count
            return outcome
        }
    }

    /// Provisional live samples that history shows the band never recorded, over the span from
    /// the minute after `previousLast` (or the batch's first minute) to the batch's last minute:
    /// - any live value in a minute the band has no record for (the minute a reboot lost);
    /// - live heart rate in a minute whose record says none was measured (a reading filed under
    ///   the neighbouring minute at a worn/unworn edge).
    /// A record replaces live values type by type through the sync identifiers, but an absent
    /// record or absent heart rate writes nothing that could, so these are deleted instead: the
    /// band's history is the record of what happened. HRV samples are live-only and stay.
    func supersededLiveSamples(_ records: [MinuteRecord], after previousLast: UInt32?) throws -> [UUID] {
        guard let first = records.first?.minuteStart, let last = records.last?.minuteStart else { return [] }
        let from = previousLast.map { min(first, $0 &+ 60) } ?? first
        var recorded: [UInt32: Bool] = [:]
        recorded.reserveCapacity(records.count)
        for record in records { recorded[record.minuteStart] = record.heartRate != nil }
        let range = Date(timeIntervalSince1970: TimeInterval(from))..<Date(timeIntervalSince1970: TimeInterval(last) + 60)
        var superseded: [UUID] = []
        for type in [QuantityType.stepCount, .distanceWalkingRunning, .activeEnergyBurned, .heartRate] {
            let query = HealthQuery(type: type, range: range, predicate: .strictStart, sources: [Self.app.id])
            for sample in try store.samples(query, as: Self.app) {
                guard let quantity = sample.quantitySample, quantity.syncVersion == Self.liveSyncVersion,
                      quantity.syncIdentifier?.hasPrefix(deviceIdentifier + "|") == true else { continue }
                let minute = UInt32(clamping: Int64(quantity.start.timeIntervalSince1970))
                switch recorded[minute] {
                case nil: superseded.append(quantity.id)
                case false?: if type == .heartRate { superseded.append(quantity.id) }
                case true?: break
                }
            }
        }
        return superseded
    }

    // MARK: Mapping

    func syncIdentifier(_ type: QuantityType, minute: UInt32) -> String {
        "\(deviceIdentifier)|\(type.identifier)|\(minute)"
    }

    func samples(for record: MinuteRecord) -> [QuantitySample] {
        let start = Date(timeIntervalSince1970: TimeInterval(record.minuteStart))
        let end = start.addingTimeInterval(60)
        let zone = record.utcOffset.seconds.flatMap { TimeZone(secondsFromGMT: $0) }
        func sample(_ type: QuantityType, _ quantity: Quantity, _ metadata: [String: String] = [:]) -> QuantitySample {
            var metadata = metadata
            metadata[MetadataKey.origin] = "history"
            return QuantitySample(type: type, quantity: quantity, start: start, end: end, timeZone: zone, device: device,
                                  syncIdentifier: syncIdentifier(type, minute: record.minuteStart),
                                  syncVersion: Self.historySyncVersion, metadata: metadata)
        }
        var out = [
            sample(.stepCount, Quantity(Double(record.steps), .count)),
            sample(.distanceWalkingRunning, Quantity(Double(record.distanceDecimetres) / 10, .meter)),
            sample(.activeEnergyBurned, Quantity(Double(record.energyDecikilocalories) / 10, .kilocalorie)),
        ]
        if let hr = record.heartRate {
            out.append(sample(.heartRate, Quantity(Double(hr.average), .countPerMinute), [
                MetadataKey.heartRateMinimum: String(hr.minimum),
                MetadataKey.heartRateMaximum: String(hr.maximum),
            ]))
        }
        return out
    }

    func samples(for minute: LiveMinute) -> [QuantitySample] {
        let start = Date(timeIntervalSince1970: TimeInterval(minute.start))
        let end = start.addingTimeInterval(60)
        let zone = minute.utcOffsetSeconds.flatMap { TimeZone(secondsFromGMT: $0) }
        func sample(_ type: QuantityType, _ quantity: Quantity, _ metadata: [String: String] = [:]) -> QuantitySample {
            var metadata = metadata
            metadata[MetadataKey.origin] = "live"
            return QuantitySample(type: type, quantity: quantity, start: start, end: end, timeZone: zone, device: device,
                                  syncIdentifier: syncIdentifier(type, minute: minute.start),
                                  syncVersion: Self.liveSyncVersion, metadata: metadata)
        }
        var out: [QuantitySample] = []
        if !minute.activity.isZero {
            out.append(sample(.stepCount, Quantity(Double(minute.activity.steps), .count)))
            out.append(sample(.distanceWalkingRunning, Quantity(Double(minute.activity.distanceDecimetres) / 10, .meter)))
            out.append(sample(.activeEnergyBurned, Quantity(Double(minute.activity.energyDecikilocalories) / 10, .kilocalorie)))
        }
        if let average = minute.heartRate.average {
            out.append(sample(.heartRate, Quantity(Double(average), .countPerMinute), [
                MetadataKey.heartRateMinimum: String(minute.heartRate.minimum),
                MetadataKey.heartRateMaximum: String(minute.heartRate.maximum),
                MetadataKey.heartRateReadings: String(minute.heartRate.count),
            ]))
        }
        if let sdnn = Self.sdnnMilliseconds(minute.rrIntervals) {
            let milliseconds = minute.rrIntervals.map(Self.millisecondsText)
            out.append(sample(.heartRateVariabilitySDNN, Quantity(sdnn, .millisecond), [
                MetadataKey.rrIntervals: milliseconds.joined(separator: ","),
            ]))
        }
        return out
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

    public init() {}

    mutating func count(_ outcome: SaveOutcome) {
        switch outcome {
        case .inserted: inserted += 1
        case .replaced: replaced += 1
        case .unchanged: unchanged += 1
        }
    }
}
