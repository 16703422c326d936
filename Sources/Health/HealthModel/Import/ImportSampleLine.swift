import FoundationEssentials

/// An everyday NDJSON sample line read straight to the values its stored row holds: an
/// ``ImportLineScan`` of its bytes, its series and zone found by their bytes in the context's
/// caches, times and numbers read in place — no sample, unit, zone or source value built per line.
///
/// Nil whenever the line is anything but a valid quantity or category sample of the everyday
/// shape (a workout, an error, an unusual spelling, more distinct series or zones than the caches
/// keep): the general path (``ImportRecord/init(generalParsing:number:context:)``) then decides
/// it, so every error is the general path's own. What it reads equals the general path's record
/// (``ImportRecord/init(fastParsing:context:)`` is built on it, and its fuzz harness and
/// differential tests compare the two byte for byte).
public struct ImportSampleLine {
    /// The type, unit, source and device: ``ImportRecord/Context/series(_:)``.
    public var series: Int
    /// The line's `id`, or a fresh time-ordered one.
    public var id: UUID
    /// The value as the line gives it, in the series' unit (a category's value index).
    public var value: Double
    /// The value in the type's canonical unit: what a store keeps.
    public var canonicalValue: Double
    public var start: Date
    public var end: Date
    /// The recording zone: ``ImportRecord/Context/zone(_:)``; nil when the line names none.
    public var zone: Int?
    public var syncIdentifier: String?
    public var syncVersion: Int64
    public var userEntered: Bool
    public var metadata: [String: String]

    public init?(fastParsing line: UnsafeBufferPointer<UInt8>, context: ImportRecord.Context) {
        guard let scan = ImportLineScan(line) else { return nil }
        func bytes(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: line[range]) }
        func text(_ range: Range<Int>) -> String { String(decoding: bytes(range), as: UTF8.self) }

        guard let typeRange = scan.type, let sourceRange = scan.source, !sourceRange.isEmpty else { return nil }
        let key = ImportSeriesKey(type: typeRange, unit: scan.unit, source: sourceRange,
                                  version: scan.sourceVersion ?? 0..<0, device: scan.device)
        guard let series = context.seriesByBytes.series(key, in: line, resolve: { key, number in
            Self.resolve(key, number: number, text: text)
        }) else { return nil }
        self.series = series.number

        var zone: TimeZone?
        if let range = scan.zone {
            guard let found = context.zonesByBytes.value(bytes(range), resolve: { name, _ in
                guard context.zonesFound.count < ByteKeyedCache<Int>.capacity,
                      let zone = TimeZone(identifier: String(decoding: name, as: UTF8.self)) else { return nil }
                context.zonesFound.append((zone, zone.identifier))
                return context.zonesFound.count - 1
            }) else { return nil }
            self.zone = found
            zone = context.zonesFound[found].zone
        } else {
            self.zone = nil
        }
        func instant(_ range: Range<Int>) -> Date? {
            var hasOffset = false
            guard let date = TimeParsing.instant(bytes(range), zone: zone ?? ImportRecord.utc, hasOffset: &hasOffset),
                  zone != nil || hasOffset else { return nil }
            return date
        }
        guard let startRange = scan.start, let start = instant(startRange) else { return nil }
        var end = start
        if let range = scan.end {
            guard let date = instant(range) else { return nil }
            end = date
        }
        guard end >= start, start >= PlausibleRange.earliest, start < PlausibleRange.latest,
              PlausibleRange.problem(start: start, end: end, maximumDuration: series.maximumDuration) == nil else { return nil }
        self.start = start
        self.end = end

        syncIdentifier = scan.syncID.map(text)
        syncVersion = 0
        if let number = scan.syncVersion {
            guard number == number.rounded(), abs(number) < 9e15 else { return nil }
            syncVersion = Int64(number)
        }
        userEntered = scan.userEntered ?? false
        metadata = [:]
        for (name, value) in scan.metadata { metadata[text(name)] = text(value) }

        id = UUID.timeOrdered()
        if let range = scan.id {
            guard let parsed = UUID(uuidString: text(range)) else { return nil }
            id = parsed
        }

        switch series.type {
        case .quantity(let quantityType):
            guard let value = scan.valueNumber, value.isFinite,
                  let canonical = try? Quantity(value, series.unit!).value(in: quantityType.canonicalUnit),
                  series.plausibleRange?.problem(value: canonical, unit: quantityType.canonicalUnit) == nil else { return nil }
            self.value = value
            canonicalValue = canonical
        case .category(let categoryType):
            let index: Int
            if let number = scan.valueNumber {
                guard number == number.rounded(), number >= 0, number < Double(categoryType.valueNames.count) else { return nil }
                index = Int(number)
            } else if let range = scan.valueName, let found = categoryType.valueNames.firstIndex(of: text(range)) {
                index = found
            } else {
                return nil
            }
            value = Double(index)
            canonicalValue = value
        case .workout:
            return nil
        }
    }

    /// The series a key spells, or nil when the line is not an everyday sample's (a workout, an
    /// unknown type or unit, a unit on a category, a name out of bounds).
    private static func resolve(_ key: ImportSeriesKey, number: Int, text: (Range<Int>) -> String) -> ImportSeries? {
        guard let type = try? SampleType(named: text(key.type)) else { return nil }
        var unit: HealthUnit?
        switch type {
        case .workout: return nil
        case .quantity(let quantityType):
            unit = quantityType.canonicalUnit
            if let range = key.unit {
                guard let found = try? HealthUnit(parsing: text(range)), found.isCompatible(with: quantityType.canonicalUnit) else { return nil }
                unit = found
            }
        case .category:
            guard key.unit == nil else { return nil }
        }
        let source = AppIdentity(id: text(key.source), version: key.version.map(text) ?? "")
        guard NameBound.problem(source.id) == nil, NameBound.problem(source.version) == nil else { return nil }
        var device: DeviceInfo?
        if let range = key.device {
            let name = text(range)
            guard NameBound.problem(name) == nil else { return nil }
            device = DeviceInfo(name: name)
        }
        return ImportSeries(number: number, type: type, unit: unit, source: source, device: device,
                            maximumDuration: type.maximumDuration, plausibleRange: type.quantityType?.plausibleRange)
    }
}
