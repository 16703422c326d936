import FoundationEssentials

/// One NDJSON import line (the `health import` / `health export` format) turned into a sample,
/// or an ``ImportError`` naming the line and field.
///
/// Fields: `type`, `value`, `start`, `source` (required); `unit` (default: the type's canonical
/// unit), `end` (default: `start`), `source_version`, `device` (a name, or an object with `name`,
/// `manufacturer`, `model`, `hardware_id`, `firmware`), `sync_id`, `sync_version`, `zone` (the
/// recording zone; times without an offset are read in it), `user_entered`, `metadata` (an
/// object of strings), `id` (a UUID). Category values may be given by name (`"stood"`).
/// Unknown fields are errors, so a misspelt field never passes silently.
///
/// A workout line has `"type":"workout"`, `activity` (HealthKit activity name, e.g. `running`),
/// `start`, `end`, `source` and optionally `total_energy_kcal`, `total_distance_m`,
/// `source_version`, `device`, `zone`, `metadata`, `id`; a sample's `value`, `unit`, `sync_id`,
/// `sync_version` and `user_entered` are errors on it, as `activity` and the totals are on a sample.
public struct ImportRecord: Sendable {
    public enum Payload: Sendable {
        case quantity(QuantitySample)
        case category(CategorySample)
        case workout(Workout)
    }

    public var payload: Payload
    /// The source the line names (`source`, `source_version`).
    public var source: AppIdentity

    /// Caches shared across lines: names resolve once.
    public final class Context {
        public init() {}
        var types: [String: SampleType] = [:]
        var units: [String: HealthUnit] = [:]
        var zones: [String: TimeZone] = [:]
        var sources: [String: AppIdentity] = [:]
        // The fast path's, keyed by the bytes of the line.
        let seriesByBytes = ImportSeriesCache()
        let zonesByBytes = ByteKeyedCache<Int>()
        var zonesFound: [(zone: TimeZone, identifier: String)] = []

        /// A series an ``ImportSampleLine`` names by number.
        public func series(_ number: Int) -> ImportSeries { seriesByBytes.series[number] }
        /// A zone an ``ImportSampleLine`` names by number, and its identifier.
        public func zone(_ number: Int) -> (zone: TimeZone, identifier: String) { zonesFound[number] }
    }

    /// The line as a record: the fast path's when it reads the line, else the general path's
    /// (which also words every error).
    public init(line: UnsafeBufferPointer<UInt8>, number: Int, context: Context) throws(ImportError) {
        if let record = ImportRecord(fastParsing: line, context: context) {
            self = record
        } else {
            try self.init(generalParsing: line, number: number, context: context)
        }
    }

    /// The general path: a JSON value tree of the line, then each field checked in turn.
    package init(generalParsing line: UnsafeBufferPointer<UInt8>, number: Int, context: Context) throws(ImportError) {
        func failure(_ field: String, _ message: String) -> ImportError {
            ImportError(line: number, message: "field '\(field)': \(message)")
        }
        let parsed: JSONValue
        do { parsed = try JSONLineParser.parse(line) } catch {
            throw ImportError(line: number, message: "malformed JSON at byte \(error.offset + 1): \(error.message)")
        }
        guard case .object(let members) = parsed else { throw ImportError(line: number, message: "expected a JSON object") }
        var fields = Fields()
        for (key, value) in members {
            guard fields.set(key, value) else {
                if Fields.names.contains(key) { throw failure(key, "given twice") }
                throw failure(key, "unknown field (known: \(Fields.names.joined(separator: ", ")))")
            }
        }
        func string(_ field: String, required: Bool = false) throws(ImportError) -> String? {
            switch fields[field] {
            case .string(let text): return text
            case nil, .null?:
                if required { throw failure(field, "missing") }
                return nil
            case let other?: throw failure(field, "expected a string, found \(other.kind)")
            }
        }

        // Type.
        let typeName = try string("type", required: true)!
        let type: SampleType
        if let cached = context.types[typeName] {
            type = cached
        } else {
            do { type = try SampleType(named: typeName) } catch { throw failure("type", error.description) }
            context.types[typeName] = type
        }

        // Zone, then times (read in the zone when they carry no offset).
        var zone: TimeZone?
        if let name = try string("zone") {
            if let cached = context.zones[name] {
                zone = cached
            } else {
                guard let found = TimeZone(identifier: name) else { throw failure("zone", "'\(name)' is not a time zone name") }
                context.zones[name] = found
                zone = found
            }
        }
        func instant(_ field: String, required: Bool) throws(ImportError) -> Date? {
            guard let text = try string(field, required: required) else { return nil }
            var utf8 = text
            var hasOffset = false
            let parsed = utf8.withUTF8 { bytes in
                TimeParsing.instant(bytes, zone: zone ?? ImportRecord.utc, hasOffset: &hasOffset)
            }
            guard let date = parsed else {
                throw failure(field, "'\(text)' is not an ISO 8601 time (e.g. 2026-11-30T08:00:00+01:00)")
            }
            if zone == nil, !hasOffset {
                throw failure(field, "'\(text)' has no UTC offset; add one (e.g. +01:00) or give a 'zone'")
            }
            return date
        }
        let start = try instant("start", required: true)!
        let end = try instant("end", required: false) ?? start
        guard end >= start else { throw failure("end", "is before start") }
        if start < PlausibleRange.earliest || start >= PlausibleRange.latest {
            throw failure("start", "\(TimeParsing.format(start, utcOffsetSeconds: 0)) is outside the plausible 1900-01-01T00:00:00Z ..< 2100-01-01T00:00:00Z")
        }
        if let problem = PlausibleRange.problem(start: start, end: end, maximumDuration: type.maximumDuration) {
            throw failure("end", "the \(type) sample \(problem)")
        }

        // Source.
        let sourceID = try string("source", required: true)!
        guard !sourceID.isEmpty else { throw failure("source", "is empty") }
        if let problem = NameBound.problem(sourceID) { throw failure("source", problem) }
        let sourceVersion = try string("source_version") ?? ""
        if let problem = NameBound.problem(sourceVersion) { throw failure("source_version", problem) }
        let key = sourceID + "\u{0}" + sourceVersion
        // Swift's String equality is canonical equivalence, so the cache may hand back a source
        // spelled with other bytes ("é" precomposed vs "e" + U+0301, U+0341 vs U+0301); the
        // store keeps names byte for byte, so only a byte-identical hit is reused.
        if let cached = context.sources[key], cached.id.utf8.elementsEqual(sourceID.utf8),
           cached.version.utf8.elementsEqual(sourceVersion.utf8) {
            source = cached
        } else {
            source = AppIdentity(id: sourceID, version: sourceVersion)
            context.sources[key] = source
        }

        // Device.
        var device: DeviceInfo?
        switch fields["device"] {
        case .string(let name)?:
            if let problem = NameBound.problem(name) { throw failure("device", problem) }
            device = DeviceInfo(name: name)
        case .object(let parts)?:
            var info = DeviceInfo()
            for (part, value) in parts {
                guard case .string(let text) = value else { throw failure("device.\(part)", "expected a string, found \(value.kind)") }
                if let problem = NameBound.problem(text) { throw failure("device.\(part)", problem) }
                switch part {
                case "name": info.name = text
                case "manufacturer": info.manufacturer = text
                case "model": info.model = text
                case "hardware_id": info.hardwareIdentifier = text
                case "firmware": info.firmwareVersion = text
                default: throw failure("device.\(part)", "unknown field (known: name, manufacturer, model, hardware_id, firmware)")
                }
            }
            device = info
        case nil, .null?: break
        case let other?: throw failure("device", "expected a name or an object, found \(other.kind)")
        }

        // Sync identifier and version.
        let syncID = try string("sync_id")
        var syncVersion: Int64 = 0
        switch fields["sync_version"] {
        case .number(let number)?:
            guard number == number.rounded(), abs(number) < 9e15 else { throw failure("sync_version", "expected an integer") }
            syncVersion = Int64(number)
        case nil, .null?: break
        case let other?: throw failure("sync_version", "expected an integer, found \(other.kind)")
        }

        var userEntered = false
        switch fields["user_entered"] {
        case .bool(let flag)?: userEntered = flag
        case nil, .null?: break
        case let other?: throw failure("user_entered", "expected true or false, found \(other.kind)")
        }

        var metadata: [String: String] = [:]
        switch fields["metadata"] {
        case .object(let pairs)?:
            for (name, value) in pairs {
                guard case .string(let text) = value else { throw failure("metadata.\(name)", "expected a string, found \(value.kind)") }
                metadata[name] = text
            }
        case nil, .null?: break
        case let other?: throw failure("metadata", "expected an object of strings, found \(other.kind)")
        }

        var id = UUID.timeOrdered()
        if let text = try string("id") {
            guard let parsed = UUID(uuidString: text) else { throw failure("id", "'\(text)' is not a UUID") }
            id = parsed
        }

        let workoutFields = ["activity", "total_energy_kcal", "total_distance_m"]
        let sampleOnlyFields = ["value", "unit", "sync_id", "sync_version", "user_entered"]
        for field in type == .workout ? sampleOnlyFields : workoutFields where fields[field] != nil {
            throw failure(field, type == .workout ? "not a workout field" : "only workouts have it")
        }

        // Value and unit.
        switch type {
        case .quantity(let quantityType):
            guard case .number(let value)? = fields["value"] else {
                throw failure("value", fields["value"].map { "expected a number, found \($0.kind)" } ?? "missing")
            }
            guard value.isFinite else { throw failure("value", "is not finite") }
            var unit = quantityType.canonicalUnit
            if let symbol = try string("unit") {
                if let cached = context.units[symbol] {
                    unit = cached
                } else {
                    do { unit = try HealthUnit(parsing: symbol) } catch { throw failure("unit", error.description) }
                    context.units[symbol] = unit
                }
                guard unit.isCompatible(with: quantityType.canonicalUnit) else {
                    throw failure("unit", "\(UnitError.incompatible(from: unit, to: quantityType.canonicalUnit)) (\(quantityType) is measured in \(quantityType.canonicalUnit))")
                }
            }
            let canonical: Double
            do { canonical = try Quantity(value, unit).value(in: quantityType.canonicalUnit) } catch { throw failure("unit", error.description) }
            if let problem = quantityType.plausibleRange.problem(value: canonical, unit: quantityType.canonicalUnit) {
                throw failure("value", "\(quantityType) \(problem)")
            }
            payload = .quantity(QuantitySample(id: id, type: quantityType, quantity: Quantity(value, unit), start: start, end: end,
                                               timeZone: zone, device: device, syncIdentifier: syncID, syncVersion: syncVersion,
                                               userEntered: userEntered, metadata: metadata))
        case .category(let categoryType):
            let index: Int
            switch fields["value"] {
            case .number(let number)?:
                // Compared as a Double first: Int(1e300) would trap.
                guard number == number.rounded(), number >= 0, number < Double(categoryType.valueNames.count) else {
                    throw failure("value", "\(number) is not a \(categoryType) value (\(categoryType.valueNames.enumerated().map { "\($0.offset)=\($0.element)" }.joined(separator: ", ")))")
                }
                index = Int(number)
            case .string(let name)?:
                guard let found = categoryType.valueNames.firstIndex(of: name) else {
                    throw failure("value", "'\(name)' is not a \(categoryType) value (\(categoryType.valueNames.joined(separator: ", ")))")
                }
                index = found
            default:
                throw failure("value", "missing")
            }
            if fields["unit"] != nil { throw failure("unit", "\(categoryType) values have no unit") }
            payload = .category(CategorySample(id: id, type: categoryType, value: index, start: start, end: end, timeZone: zone,
                                               device: device, syncIdentifier: syncID, syncVersion: syncVersion,
                                               userEntered: userEntered, metadata: metadata))
        case .workout:
            let name = try string("activity", required: true)!
            guard let activity = WorkoutActivityType(name: name) else {
                throw failure("activity", "'\(name.prefix(64))' is not \(WorkoutActivityType.namesHint)")
            }
            guard fields["end"] != nil else { throw failure("end", "missing (a workout has a start and an end)") }
            func total(_ field: String, _ range: ClosedRange<Double>, _ unit: HealthUnit) throws(ImportError) -> Quantity? {
                switch fields[field] {
                case .number(let value)?:
                    guard value.isFinite, range.contains(value) else {
                        throw failure(field, "\(value) is outside the plausible \(range.lowerBound) … \(range.upperBound)")
                    }
                    return Quantity(value, unit)
                case nil, .null?: return nil
                case let other?: throw failure(field, "expected a number, found \(other.kind)")
                }
            }
            payload = .workout(Workout(id: id, activity: activity, start: start, end: end,
                                       totalEnergyBurned: try total("total_energy_kcal", 0...100_000, .kilocalorie),
                                       totalDistance: try total("total_distance_m", 0...6_000_000, .meter),
                                       device: device, metadata: metadata))
        }
    }

    static let utc = TimeZone(identifier: "UTC")!

    /// The members of one line, by name; a slot per known field instead of a dictionary per line.
    struct Fields {
        static let names = ["activity", "device", "end", "id", "metadata", "source", "source_version", "start", "sync_id",
                            "sync_version", "total_distance_m", "total_energy_kcal", "type", "unit", "user_entered", "value", "zone"]
        private var slots = [JSONValue?](repeating: nil, count: 17)

        /// Stores a member; false for an unknown or repeated name.
        mutating func set(_ name: String, _ value: JSONValue) -> Bool {
            guard let index = Fields.index(name), slots[index] == nil else { return false }
            slots[index] = value
            return true
        }

        subscript(_ name: String) -> JSONValue? {
            Fields.index(name).flatMap { slots[$0] }
        }

        static func index(_ name: String) -> Int? {
            switch name {
            case "device": 0
            case "end": 1
            case "id": 2
            case "metadata": 3
            case "source": 4
            case "source_version": 5
            case "start": 6
            case "sync_id": 7
            case "sync_version": 8
            case "type": 9
            case "unit": 10
            case "user_entered": 11
            case "value": 12
            case "zone": 13
            case "activity": 14
            case "total_energy_kcal": 15
            case "total_distance_m": 16
            default: nil
            }
        }
    }
}

/// A bad import line: which line (1-based) and what is wrong with which field.
public struct ImportError: Error, Hashable, Sendable, CustomStringConvertible {
    public var line: Int
    public var message: String
    public init(line: Int, message: String) {
        self.line = line
        self.message = message
    }
    public var description: String { "line \(line): \(message)" }
}
