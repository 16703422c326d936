import BandProtocol
import FoundationEssentials
import HealthModel

/// A minute the band recorded more than once, stored whole.
///
/// The band writes a second record for a minute it already recorded when its clock or zone
/// changes inside that minute (the minute in progress is closed early and the rest of it is
/// recorded again, both flagged partial) and when it boots with a clock inside a minute it
/// recorded before. Each record holds activity the other does not, so the minute's samples are
/// the combination of **all** its records: steps, distance and energy summed; heart rate the mean
/// of the records' averages (a record does not say how many readings it had), the lowest minimum
/// and the highest maximum.
///
/// Deterministic from the band's records: each record is one part (as a live stream's, `LiveMinuteParts`) keyed by
/// its sequence number, kept in the sample's metadata `bandkit.history.parts` once a minute has
/// more than one; a record synced again replaces its own part, never adds. A minute with one
/// record is stored exactly as before (no parts metadata): when a second record arrives later,
/// the one already stored becomes the part "the record before sequence N" (key `-N`, N the stored
/// cursor's next sequence: every record below it is in the store), and a re-sync of that earlier
/// record takes that part's place. Each added record raises the sample's version by one above
/// ``SampleWriter/historySyncVersion`` so the store replaces the previous combination.
extension SampleWriter {
    static let historyPartsKey = "bandkit.history.parts"

    /// The history samples of a batch whose first record has sequence number `firstSequence`,
    /// each combined with what `stored` (this band's samples by sync identifier) already holds
    /// from the band's other records of that minute. `committedBefore`: the stored cursor's next
    /// sequence when it is this batch's history (records below it are in the store already).
    func historySamples(_ records: [MinuteRecord], firstSequence: UInt32, stored: [String: QuantitySample],
                        committedBefore: UInt32?) -> [QuantitySample] {
        var minutes: [String: (type: QuantityType, record: MinuteRecord, parts: LiveMinuteParts)] = [:]
        var order: [String] = []
        for (offset, record) in records.enumerated() {
            let sequence = firstSequence &+ UInt32(truncatingIfNeeded: offset)
            for (type, values) in Self.historyParts(of: record) {
                let id = syncIdentifier(type, minute: record.minuteStart)
                var entry: (type: QuantityType, record: MinuteRecord, parts: LiveMinuteParts)
                if let seen = minutes[id] {
                    entry = seen
                    entry.record = record
                } else {
                    order.append(id)
                    entry = (type, record, Self.storedHistoryParts(stored[id], newRecord: committedBefore.map { sequence >= $0 } ?? false,
                                                                   committedBefore: committedBefore))
                }
                let resynced = committedBefore.map { sequence < $0 } ?? true
                entry.parts.addRecord(Int64(sequence), values: values, resynced: resynced, combine: Self.historyCombine(type))
                minutes[id] = entry
            }
        }
        return order.compactMap { id in
            minutes[id].flatMap { historySample($0.type, parts: $0.parts, record: $0.record) }
        }
    }

    /// Each type a record has a value for, as the integers of one part: steps; decimetres;
    /// decikilocalories; heart rate as one reading-set (`1,average,minimum,maximum,0`).
    static func historyParts(of record: MinuteRecord) -> [(QuantityType, [Int])] {
        var out: [(QuantityType, [Int])] = [
            (.stepCount, [Int(record.steps)]),
            (.distanceWalkingRunning, [Int(record.distanceDecimetres)]),
            (.activeEnergyBurned, [Int(record.energyDecikilocalories)]),
        ]
        if let hr = record.heartRate {
            out.append((.heartRate, [1, Int(hr.average), Int(hr.minimum), Int(hr.maximum), 0]))
        }
        return out
    }

    static func historyCombine(_ type: QuantityType) -> ([Int], [Int]) -> [Int] {
        if type == .heartRate { return LiveMinuteParts.heartRate }
        return LiveMinuteParts.sum
    }

    /// The parts a stored sample of the minute contributes. A live sample, or a history sample
    /// this batch's record simply replaces (synced again, or from another history), contributes
    /// none; a one-record history sample met by a record the store cannot hold yet is the part
    /// "the record before `committedBefore`".
    static func storedHistoryParts(_ sample: QuantitySample?, newRecord: Bool, committedBefore: UInt32?) -> LiveMinuteParts {
        guard let sample, isHistory(sample), let committedBefore else { return LiveMinuteParts() }
        if let text = sample.metadata[historyPartsKey], let parts = LiveMinuteParts(stored: text) { return parts }
        guard newRecord else { return LiveMinuteParts() }
        var parts = LiveMinuteParts()
        _ = parts.merge(key: -Int64(committedBefore), values: storedHistoryValues(sample), combine: historyCombine(sample.type))
        return parts
    }

    /// The integers of a one-record history sample, as `historyParts(of:)` makes them.
    static func storedHistoryValues(_ sample: QuantitySample) -> [Int] {
        let value = sample.quantity.value
        switch sample.type {
        case .distanceWalkingRunning, .activeEnergyBurned: return [Int((value * 10).rounded())]
        case .heartRate:
            let average = Int(value.rounded())
            return [1, average, sample.metadata[MetadataKey.heartRateMinimum].flatMap { Int($0) } ?? average,
                    sample.metadata[MetadataKey.heartRateMaximum].flatMap { Int($0) } ?? average, 0]
        default: return [Int(value.rounded())]
        }
    }

    /// The sample of one minute and type from all its parts; the record gives zone and time.
    func historySample(_ type: QuantityType, parts: LiveMinuteParts, record: MinuteRecord) -> QuantitySample? {
        guard let total = parts.total(Self.historyCombine(type)) else { return nil }
        func field(_ index: Int) -> Int { total.indices.contains(index) ? total[index] : 0 }
        var metadata = [MetadataKey.origin: "history"]
        let quantity: Quantity
        switch type {
        case .stepCount: quantity = Quantity(Double(field(0)), .count)
        case .distanceWalkingRunning: quantity = Quantity(Double(field(0)) / 10, .meter)
        case .activeEnergyBurned: quantity = Quantity(Double(field(0)) / 10, .kilocalorie)
        case .heartRate:
            guard field(0) > 0 else { return nil }
            quantity = Quantity(Double(field(1)) / Double(field(0)), .countPerMinute)
            metadata[MetadataKey.heartRateMinimum] = String(field(2))
            metadata[MetadataKey.heartRateMaximum] = String(field(3))
        default: return nil
        }
        let records = parts.recordCount
        if records > 1 { metadata[Self.historyPartsKey] = parts.stored }
        let start = Date(timeIntervalSince1970: TimeInterval(record.minuteStart))
        return QuantitySample(type: type, quantity: quantity, start: start, end: start.addingTimeInterval(60),
                              timeZone: record.utcOffset.seconds.flatMap { TimeZone(secondsFromGMT: $0) }, device: device,
                              syncIdentifier: syncIdentifier(type, minute: record.minuteStart),
                              syncVersion: Self.historySyncVersion + Int64(max(0, records - 1)), metadata: metadata)
    }
}

extension LiveMinuteParts {
    /// How many records (or streams) the parts hold, folded ones included.
    var recordCount: Int { parts.reduce(0) { $0 + $1.key.split(separator: "+").count } }

    /// Adds the band's record `sequence`. A record synced again (`resynced`) that is not a part
    /// yet is the one stored before the minute had parts: it takes the place of the part "the
    /// record before N" (a negative key) instead of adding to it.
    mutating func addRecord(_ sequence: Int64, values: [Int], resynced: Bool, combine: ([Int], [Int]) -> [Int]) {
        if resynced, !contains(sequence), let earlier = parts.firstIndex(where: { Int64($0.key).map { $0 < 0 } ?? false }) {
            removePart(at: earlier)
        }
        _ = merge(key: sequence, values: values, combine: combine)
    }
}
