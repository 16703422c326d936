import FoundationEssentials
import HealthAnalysis
import HealthModel
import HealthStore

/// Scores the band's closed nights (HealthAnalysis's `SleepScorer`) and stores them as
/// `sleep-analysis` samples of `bandkit.band`, after each history sync.
///
/// Input is what the band's history put in the store for this band (steps and heart rate per
/// minute, recognised by the sync identifiers ``SampleWriter`` gives them). A night's samples
/// carry the sync identifiers `<device>|sleep-analysis|<night>|<n>` and the night in metadata;
/// scoring a night again replaces them in one transaction (the old ones are deleted, the change
/// feed reports the deletions) unless the result is the same, which writes nothing. So a re-sync
/// never duplicates a night, and a night whose minutes changed is replaced, not added to.
///
/// A night is *closed* once the band's history reaches the end of its window (noon the next
/// day, `SleepNight`): only then is it scored.
public struct SleepWriter {
    public static let type = CategoryType.sleepAnalysis
    public static let algorithm = "cole-kripke-1992+heart-rate/1"

    public enum MetadataKey {
        public static let night = "bandkit.sleep.night"
        public static let algorithm = "bandkit.sleep.algorithm"
    }

    public let store: HealthStore
    public let deviceIdentifier: String
    public let device: DeviceInfo

    public init(store: HealthStore, deviceIdentifier: String, device: DeviceInfo) {
        self.store = store
        self.deviceIdentifier = deviceIdentifier
        self.device = device
    }

    /// What scoring one night did.
    public struct NightWrite: Equatable, Sendable {
        public var night: String
        public var inserted = 0
        public var deleted = 0
        public var unchanged: Bool { inserted == 0 && deleted == 0 }
    }

    /// Scores every night that history from `from` to `through` (the end of the last synced
    /// minute) touched or closed and that is closed by `through`.
    @discardableResult
    public func scoreClosedNights(from: Date, through: Date, zone: TimeZone) throws -> [NightWrite] {
        guard from < through else { return [] }
        var writes: [NightWrite] = []
        var night = SleepNight.name(containing: from, in: zone)
        // At most a few weeks of nights per batch (a band holds days, not years, of history).
        for _ in 0..<400 {
            guard let window = SleepNight.window(named: night, in: zone), window.upperBound <= through else { break }
            writes.append(try score(night: night, window: window, zone: zone))
            night = SleepNight.name(containing: window.upperBound.addingTimeInterval(60), in: zone)
        }
        return writes
    }

    /// Scores one night from the stored minutes and stores it (or replaces the stored one).
    @discardableResult
    public func score(night: String, window: Range<Date>, zone: TimeZone) throws -> NightWrite {
        let minutes = try epochs(in: window)
        let segments = SleepSegmentation.segments(SleepScorer.score(minutes))
        let prefix = "\(deviceIdentifier)|\(Self.type.identifier)|\(night)|"
        let samples = segments.enumerated().map { index, segment in
            CategorySample(type: Self.type, value: segment.value.rawValue,
                           start: window.lowerBound.addingTimeInterval(TimeInterval(segment.start * 60)),
                           end: window.lowerBound.addingTimeInterval(TimeInterval(segment.end * 60)),
                           timeZone: zone, device: device, syncIdentifier: prefix + String(index), syncVersion: 1,
                           metadata: [MetadataKey.night: night, MetadataKey.algorithm: Self.algorithm])
        }
        return try store.write(as: SampleWriter.app) { transaction in
            var write = NightWrite(night: night)
            let query = HealthQuery(type: Self.type, range: window, sources: [SampleWriter.app.id])
            let stored = try store.samples(query, as: SampleWriter.app).compactMap(\.categorySample)
                .filter { $0.syncIdentifier?.hasPrefix(prefix) == true }
            func key(_ sample: CategorySample) -> String { "\(sample.value) \(sample.start.timeIntervalSince1970) \(sample.end.timeIntervalSince1970)" }
            if Set(stored.map(key)) == Set(samples.map(key)) && stored.count == samples.count { return write }
            for old in stored where try transaction.delete(sampleID: old.id) { write.deleted += 1 }
            for sample in samples {
                try transaction.save(sample)
                write.inserted += 1
            }
            return write
        }
    }

    /// The window's minutes from this band's stored steps and heart rate.
    func epochs(in window: Range<Date>) throws -> [SleepEpoch] {
        let count = Int(window.upperBound.timeIntervalSince(window.lowerBound) / 60)
        var epochs = [SleepEpoch](repeating: .missing, count: max(0, count))
        let prefix = deviceIdentifier + "|"
        for type in [QuantityType.stepCount, .heartRate] {
            let query = HealthQuery(type: type, range: window, predicate: .strictStart, sources: [SampleWriter.app.id])
            for sample in try store.samples(query, as: SampleWriter.app) {
                guard let quantity = sample.quantitySample, quantity.syncIdentifier?.hasPrefix(prefix) == true else { continue }
                let index = Int(quantity.start.timeIntervalSince(window.lowerBound) / 60)
                guard epochs.indices.contains(index) else { continue }
                if type == .stepCount { epochs[index].steps = quantity.quantity.value } else { epochs[index].heartRate = quantity.quantity.value }
            }
        }
        return epochs
    }
}
