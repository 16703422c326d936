internal import CExpat
import FoundationEssentials
import HealthModel

/// Reads export.xml (the Health app's "Export All Health Data") piece by piece and hands each
/// record, workout and the `Me` characteristics to a sink as soon as its end tag is read: no
/// DOM, memory bounded by one element (see `ExpatStream` for the XML safety rules).
///
/// Elements: `HealthData` (the root; anything else is not an export), `ExportDate` (ignored),
/// `Me`, `Record` with `MetadataEntry` children, `Correlation` (its `Record` children are read as
/// records; the correlation itself is skipped and counted), `Workout` with `MetadataEntry`,
/// `WorkoutEvent`, `WorkoutStatistics` (`WorkoutRoute` and `WorkoutActivity` are skipped and
/// counted). Any other element (`ActivitySummary`, `ClinicalRecord`, `Audiogram`, …) and records
/// of types the store does not keep are skipped and counted in ``summary``.
///
/// Idempotent re-import: a record's sync identifier is its `HKMetadataKeySyncIdentifier` (with
/// `HKMetadataKeySyncVersion`), else `ah-` and a stable hash of all its attributes and metadata;
/// a workout's id is a hash-derived UUID. A record that appears both at top level and inside a
/// `Correlation` (as Apple writes blood pressure) therefore hashes the same and is stored once.
public final class AppleHealthParser {
    /// Counts of what was handed on and what was skipped.
    public private(set) var summary = AppleHealthSummary()

    private var expat: ExpatStream!
    private var sink: ((AppleHealthItem) throws -> Void)?
    private var sinkError: AppleHealthSinkError?
    private var fed = 0

    private enum Mode { case document, top, record, correlation, workout, skip }
    private var modes: [Mode] = []
    private var record: PendingRecord?
    private var workout: PendingWorkout?

    private var types = InternTable<RecordType>()
    private var units = InternTable<HealthUnit?>()
    private var sourceNames = InternTable<String>()
    private var sourceVersions = InternTable<String>()
    private var devices = InternTable<DeviceInfo?>()
    private var offsetZones: [Int32: TimeZone] = [:]
    private var namedZones: [String: TimeZone?] = [:]

    /// Deepest element nesting accepted (an export nests 4 deep).
    static let maximumDepth = 64
    /// Longest run of bytes expat may hold without completing a tag (bounds its buffer).
    static let maximumPendingBytes = 16 << 20

    private enum RecordType {
        case quantity(QuantityType)
        case category(CategoryType)
        /// Not kept by the store: counted under its name.
        case unknown(String)
    }

    public init() {
        let context = Unmanaged.passUnretained(self).toOpaque()
        expat = ExpatStream(
            context: context,
            start: { context, name, attributes in
                guard let context, let name else { return }
                Unmanaged<AppleHealthParser>.fromOpaque(context).takeUnretainedValue()
                    .startElement(name, CString.Attributes(base: attributes))
            },
            end: { context, name in
                guard let context, let name else { return }
                Unmanaged<AppleHealthParser>.fromOpaque(context).takeUnretainedValue().endElement(name)
            },
            entity: { context, name, _, _, _, _, _, _, _ in
                guard let context else { return }
                let parser = Unmanaged<AppleHealthParser>.fromOpaque(context).takeUnretainedValue()
                parser.expat.refuse(.unsafeXML, "entity declaration '\(name.map { String(cString: $0) } ?? "")' refused: entities are not expanded")
            })
        modes.reserveCapacity(Self.maximumDepth)
    }

    /// Parses the next piece of export.xml (`final` for the last, possibly empty, piece), calling
    /// `sink` for every item completed in it. Throws ``AppleHealthError`` for bad XML or a bad
    /// record, ``AppleHealthSinkError`` when `sink` throws.
    public func parse(_ bytes: UnsafeRawBufferPointer, final: Bool, into sink: (AppleHealthItem) throws -> Void) throws {
        try withoutActuallyEscaping(sink) { sink in
            self.sink = sink
            defer { self.sink = nil }
            do {
                try expat.feed(bytes, final: final)
            } catch {
                if let sinkError { throw sinkError }
                throw error
            }
            fed += bytes.count
            if fed - expat.byteIndex > Self.maximumPendingBytes {
                throw AppleHealthError(.tooLarge, place: expat.place, "a tag longer than \(Self.maximumPendingBytes >> 20) MiB")
            }
            if final, modes.isEmpty == false {
                throw AppleHealthError(.malformedXML, place: expat.place, "the document ends inside an element")
            }
        }
    }

    /// The place of the element being read: `line L, column C`.
    public var place: String { expat.place }

    // MARK: Events

    private func fail(_ kind: AppleHealthError.Kind, _ message: String) {
        expat.refuse(kind, message)
    }

    private func startElement(_ name: UnsafePointer<CChar>, _ attributes: CString.Attributes) {
        if expat.refusal != nil { return }
        guard modes.count < Self.maximumDepth else {
            return fail(.tooLarge, "elements nested deeper than \(Self.maximumDepth)")
        }
        let parent = modes.last ?? .document
        var mode = Mode.skip
        switch parent {
        case .document:
            guard CString.equals(name, "HealthData") else {
                return fail(.badRecord, "the root element is <\(String(cString: name))>, not <HealthData>: not an Apple Health export.xml")
            }
            mode = .top
        case .top:
            if CString.equals(name, "Record") {
                mode = beginRecord(attributes) ? .record : .skip
            } else if CString.equals(name, "Workout") {
                beginWorkout(attributes)
                mode = workout == nil ? .skip : .workout
            } else if CString.equals(name, "Correlation") {
                let type = attributes.value("type").map { String(cString: $0) } ?? "?"
                summary.skipped["Correlation " + type, default: 0] += 1
                mode = .correlation
            } else if CString.equals(name, "Me") {
                readMe(attributes)
            } else if !CString.equals(name, "ExportDate") {
                summary.skipped[String(cString: name), default: 0] += 1
            }
        case .correlation:
            if CString.equals(name, "Record") { mode = beginRecord(attributes) ? .record : .skip }
        case .record:
            if CString.equals(name, "MetadataEntry"), var pending = record.take() {
                addMetadata(attributes, to: &pending.metadata, hash: &pending.hash)
                record = pending
            }
        case .workout:
            if CString.equals(name, "MetadataEntry"), var pending = workout.take() {
                addMetadata(attributes, to: &pending.metadata, hash: &pending.hash)
                workout = pending
            } else if CString.equals(name, "WorkoutEvent") {
                addWorkoutEvent(attributes)
            } else if CString.equals(name, "WorkoutStatistics") {
                addWorkoutStatistics(attributes)
            } else {
                summary.skipped[String(cString: name), default: 0] += 1
            }
        case .skip:
            break
        }
        modes.append(mode)
    }

    private func endElement(_ name: UnsafePointer<CChar>) {
        if expat.refusal != nil { return }
        guard let mode = modes.popLast() else { return }
        switch mode {
        case .record: finishRecord()
        case .workout: finishWorkout()
        default: break
        }
    }

    private func emit(_ item: AppleHealthItem) {
        guard let sink else { return }
        do { try sink(item) } catch {
            sinkError = AppleHealthSinkError(place: expat.place, underlying: error)
            expat.refuse(.io, "stopped by the store")
        }
    }

    // MARK: Shared attributes

    /// The attributes a Record or Workout shares, found in one pass over them (dispatching on the
    /// first byte of the name), every name and value hashed on the way.
    struct CommonAttributes {
        var type: UnsafePointer<CChar>?
        var unit: UnsafePointer<CChar>?
        var value: UnsafePointer<CChar>?
        var sourceName: UnsafePointer<CChar>?
        var sourceVersion: UnsafePointer<CChar>?
        var device: UnsafePointer<CChar>?
        var startDate: UnsafePointer<CChar>?
        var endDate: UnsafePointer<CChar>?

        init(_ attributes: CString.Attributes, hash: inout StableHash) {
            for (key, value) in attributes {
                hash.combine(key)
                hash.combine(value)
                switch UInt8(bitPattern: key[0]) {
                case UInt8(ascii: "t"): if CString.equals(key, "type") { type = value }
                case UInt8(ascii: "u"): if CString.equals(key, "unit") { unit = value }
                case UInt8(ascii: "v"): if CString.equals(key, "value") { self.value = value }
                case UInt8(ascii: "d"): if CString.equals(key, "device") { device = value }
                case UInt8(ascii: "e"): if CString.equals(key, "endDate") { endDate = value }
                case UInt8(ascii: "s"):
                    if CString.equals(key, "sourceName") {
                        sourceName = value
                    } else if CString.equals(key, "startDate") {
                        startDate = value
                    } else if CString.equals(key, "sourceVersion") {
                        sourceVersion = value
                    }
                default: break
                }
            }
        }
    }

    /// The source, device and dates of a Record or Workout; nil after failing.
    private func provenance(_ fields: CommonAttributes, element: @autoclosure () -> String)
        -> (source: AppIdentity, device: DeviceInfo?, start: AppleDate.Parsed, end: AppleDate.Parsed)? {
        var sourceName = ""
        var sourceVersion = ""
        var device: DeviceInfo?
        do throws(AppleHealthError) {
            func bounded(_ name: String, _ text: String) throws(AppleHealthError) -> String {
                guard let problem = NameBound.problem(text) else { return text }
                throw AppleHealthError(.badRecord, place: "", "\(element()) \(name) \(problem)")
            }
            if let text = fields.sourceName { sourceName = try sourceNames.value(for: text) { text throws(AppleHealthError) in try bounded("sourceName", text) } }
            if let text = fields.sourceVersion { sourceVersion = try sourceVersions.value(for: text) { text throws(AppleHealthError) in try bounded("sourceVersion", text) } }
            if let text = fields.device {
                device = try devices.value(for: text) { text throws(AppleHealthError) in
                    let parsed = DeviceString.parse(text)
                    if let parsed, let (field, problem) = NameBound.problem(parsed) {
                        throw AppleHealthError(.badRecord, place: "", "\(element()) device \(field) \(problem)")
                    }
                    return parsed
                }
            }
        } catch {
            fail(error.kind, error.message)
            return nil
        }
        guard !sourceName.isEmpty else { fail(.badRecord, "\(element()) has no sourceName"); return nil }
        func date(_ text: UnsafePointer<CChar>?, _ name: String) -> AppleDate.Parsed? {
            guard let text else { fail(.badRecord, "\(element()) has no \(name)"); return nil }
            guard let parsed = AppleDate.parse(text) else {
                fail(.badRecord, "\(element()) \(name) '\(String(cString: text))' is not a date like 2024-06-01 09:00:00 -0700")
                return nil
            }
            return parsed
        }
        guard let start = date(fields.startDate, "startDate"), let end = date(fields.endDate, "endDate") else { return nil }
        return (AppIdentity(id: sourceName, version: sourceVersion), device, start, end)
    }

    private func zone(_ metadata: Metadata, _ start: AppleDate.Parsed) -> TimeZone? {
        if let name = metadata.zoneName {
            if let cached = namedZones[name] { if let cached { return cached } } else {
                let zone = TimeZone(identifier: name)
                namedZones[name] = zone
                if let zone { return zone }
            }
        }
        if let cached = offsetZones[start.utcOffsetSeconds] { return cached }
        let zone = TimeZone(secondsFromGMT: Int(start.utcOffsetSeconds))
        offsetZones[start.utcOffsetSeconds] = zone
        return zone
    }

    private func addMetadata(_ attributes: CString.Attributes, to metadata: inout Metadata, hash: inout StableHash) {
        guard let key = attributes.value("key"), let value = attributes.value("value") else {
            return fail(.badRecord, "MetadataEntry without key or value")
        }
        hash.combine(key)
        hash.combine(value)
        if let problem = metadata.add(key: String(cString: key), value: String(cString: value)) {
            fail(metadata.bytes > Metadata.maximumBytes || metadata.entries.count >= Metadata.maximumEntries ? .tooLarge : .badRecord, problem)
        }
    }

    // MARK: Records

    /// Reads a Record's start tag; false when its type is not kept (skipped and counted).
    private func beginRecord(_ attributes: CString.Attributes) -> Bool {
        var hash = StableHash()
        let fields = CommonAttributes(attributes, hash: &hash)
        guard let typeText = fields.type else { fail(.badRecord, "Record without a type"); return false }
        let type: RecordType
        do throws(AppleHealthError) {
            type = try types.value(for: typeText) { name in
                switch AppleTypes.sampleType(identifier: name) {
                case .quantity(let quantity)?: .quantity(quantity)
                case .category(let category)?: .category(category)
                default: .unknown(name)
                }
            }
        } catch { fail(error.kind, error.message); return false }
        let kind: PendingRecord.Kind
        switch type {
        case .unknown(let name):
            summary.skipped[name, default: 0] += 1
            return false
        case .quantity(let quantityType):
            guard let unitText = fields.unit else { fail(.badRecord, "Record \(String(cString: typeText)) has no unit"); return false }
            let unit: HealthUnit?
            do throws(AppleHealthError) { unit = try units.value(for: unitText) { AppleTypes.unit($0) } } catch {
                fail(error.kind, error.message); return false
            }
            guard let unit else {
                fail(.badRecord, "Record \(String(cString: typeText)): unknown unit '\(String(cString: unitText))'")
                return false
            }
            guard unit.isCompatible(with: quantityType.canonicalUnit) else {
                fail(.badRecord, "Record \(String(cString: typeText)): unit '\(unit)' does not measure \(quantityType) (\(quantityType.canonicalUnit))")
                return false
            }
            guard let valueText = fields.value, let value = CString.number(valueText) else {
                fail(.badRecord, "Record \(String(cString: typeText)): value '\(fields.value.map { String(cString: $0) } ?? "")' is not a number")
                return false
            }
            kind = .quantity(quantityType, unit, value)
        case .category(let categoryType):
            let text = fields.value.map { String(cString: $0) } ?? ""
            guard let index = AppleTypes.categoryValue(text, of: categoryType) else {
                fail(.badRecord, "Record \(String(cString: typeText)): value '\(text)' is not one of \(AppleTypes.valueNames(of: categoryType).joined(separator: ", "))")
                return false
            }
            kind = .category(categoryType, index)
        }
        guard let provenance = provenance(fields, element: "Record \(String(cString: typeText))") else { return false }
        record = PendingRecord(kind: kind, source: provenance.source, device: provenance.device,
                               start: provenance.start, end: provenance.end, hash: hash)
        return true
    }

    private func finishRecord() {
        guard let pending = record else { return }
        record = nil
        let start = pending.start.date, end = pending.end.date
        let sampleType: SampleType
        switch pending.kind {
        case .quantity(let type, _, _): sampleType = .quantity(type)
        case .category(let type, _): sampleType = .category(type)
        }
        guard end >= start else { return fail(.badRecord, "Record \(AppleTypes.identifier(of: sampleType)): endDate is before startDate") }
        if let problem = PlausibleRange.problem(start: start, end: end, maximumDuration: sampleType.maximumDuration) {
            return fail(.badRecord, "Record \(AppleTypes.identifier(of: sampleType)): the \(sampleType) sample \(problem)")
        }
        let metadata = pending.metadata
        let syncIdentifier = metadata.syncIdentifier ?? pending.hash.syncIdentifier()
        let zone = zone(metadata, pending.start)
        switch pending.kind {
        case .quantity(let type, let unit, let value):
            let quantity = Quantity(value, unit)
            if let canonical = try? quantity.value(in: type.canonicalUnit),
               let problem = type.plausibleRange.problem(value: canonical, unit: type.canonicalUnit) {
                return fail(.badRecord, "Record \(AppleTypes.identifier(of: sampleType)): value \(problem)")
            }
            summary.quantitySamples += 1
            emit(.quantity(QuantitySample(type: type, quantity: quantity, start: start, end: end, timeZone: zone,
                                          device: pending.device, syncIdentifier: syncIdentifier,
                                          syncVersion: metadata.syncVersion, userEntered: metadata.userEntered,
                                          metadata: metadata.entries, source: pending.source)))
        case .category(let type, let value):
            summary.categorySamples += 1
            emit(.category(CategorySample(type: type, value: value, start: start, end: end, timeZone: zone,
                                          device: pending.device, syncIdentifier: syncIdentifier,
                                          syncVersion: metadata.syncVersion, userEntered: metadata.userEntered,
                                          metadata: metadata.entries, source: pending.source)))
        }
    }

    // MARK: Workouts

    private func beginWorkout(_ attributes: CString.Attributes) {
        let activityText = attributes.value("workoutActivityType").map { String(cString: $0) } ?? ""
        guard !activityText.isEmpty else { return fail(.badRecord, "Workout without a workoutActivityType") }
        var hash = StableHash()
        let fields = CommonAttributes(attributes, hash: &hash)
        guard let activity = WorkoutActivityType(appleIdentifier: activityText) else {
            return fail(.badRecord, "Workout workoutActivityType '\(activityText.prefix(80))' is not an HKWorkoutActivityType (such as HKWorkoutActivityTypeRunning)")
        }
        guard let provenance = provenance(fields, element: "Workout \(activityText)") else { return }
        var pending = PendingWorkout(activity: activity, source: provenance.source,
                                     device: provenance.device, start: provenance.start, end: provenance.end, hash: hash)
        // Totals as attributes (exports before iOS 16); WorkoutStatistics children override them.
        guard let energy = total(attributes, "totalEnergyBurned", "totalEnergyBurnedUnit", dimension: .energy),
              let distance = total(attributes, "totalDistance", "totalDistanceUnit", dimension: .length) else { return }
        pending.energy = energy.quantity
        pending.distance = distance.quantity
        workout = pending
    }

    /// A total given as value and unit attributes; nil after failing, `.init(quantity: nil)` when absent.
    private struct Total { var quantity: Quantity? }
    private func total(_ attributes: CString.Attributes, _ valueName: StaticString, _ unitName: StaticString,
                       dimension: HealthUnit.Dimension) -> Total? {
        guard let valueText = attributes.value(valueName) else { return Total(quantity: nil) }
        guard let value = CString.number(valueText), value >= 0 else {
            fail(.badRecord, "Workout \(valueName) '\(String(cString: valueText))' is not a number ≥ 0")
            return nil
        }
        let unitText = attributes.value(unitName).map { String(cString: $0) } ?? ""
        guard let unit = AppleTypes.unit(unitText), unit.dimension == dimension else {
            fail(.badRecord, "Workout \(unitName): '\(unitText)' is not a unit of \(dimension)")
            return nil
        }
        return Total(quantity: Quantity(value, unit))
    }

    private func addWorkoutStatistics(_ attributes: CString.Attributes) {
        guard let typeText = attributes.value("type") else { return fail(.badRecord, "WorkoutStatistics without a type") }
        let type = String(cString: typeText)
        let isEnergy = type == "HKQuantityTypeIdentifierActiveEnergyBurned"
        let isDistance = type.hasPrefix("HKQuantityTypeIdentifierDistance")
        for (key, value) in attributes {
            workout!.hash.combine(key)
            workout!.hash.combine(value)
        }
        guard isEnergy || isDistance else {
            summary.skipped["WorkoutStatistics " + type, default: 0] += 1
            return
        }
        guard let sum = total(attributes, "sum", "unit", dimension: isEnergy ? .energy : .length) else { return }
        if isEnergy { workout!.energy = sum.quantity } else if let quantity = sum.quantity { workout!.distance = quantity }
    }

    private func addWorkoutEvent(_ attributes: CString.Attributes) {
        guard workout!.events.count < PendingWorkout.maximumEvents else {
            return fail(.tooLarge, "more than \(PendingWorkout.maximumEvents) WorkoutEvent elements in one workout")
        }
        func text(_ name: StaticString) -> String {
            // Tabs and newlines would break the one-line-per-event encoding.
            (attributes.value(name).map { String(cString: $0) } ?? "").map { $0 == "\t" || $0 == "\n" ? " " : String($0) }.joined()
        }
        let type = text("type"), date = text("date")
        guard !type.isEmpty, date.isEmpty || date.withCString({ AppleDate.parse($0) }) != nil else {
            return fail(.badRecord, "WorkoutEvent needs a type and a date like 2024-06-01 09:00:00 -0700")
        }
        for (key, value) in attributes {
            workout!.hash.combine(key)
            workout!.hash.combine(value)
        }
        workout!.events.append([type, date, text("duration"), text("durationUnit")].joined(separator: "\t"))
    }

    private func finishWorkout() {
        guard var pending = workout else { return }
        workout = nil
        let start = pending.start.date, end = pending.end.date
        guard end >= start else { return fail(.badRecord, "Workout: endDate is before startDate") }
        if let problem = PlausibleRange.problem(start: start, end: end, maximumDuration: SampleType.workout.maximumDuration) {
            return fail(.badRecord, "Workout \(problem)")
        }
        if !pending.events.isEmpty { pending.metadata.entries[PendingWorkout.eventsKey] = pending.events.joined(separator: "\n") }
        summary.workouts += 1
        emit(.workout(Workout(id: UUID(stableHash: pending.hash), activity: pending.activity, start: start, end: end,
                              totalEnergyBurned: pending.energy, totalDistance: pending.distance, device: pending.device,
                              metadata: pending.metadata.entries, source: pending.source)))
    }

    // MARK: Me

    private func readMe(_ attributes: CString.Attributes) {
        var settings: [CharacteristicSetting] = []
        for (key, value) in attributes {
            let name = String(cString: key), text = String(cString: value)
            if text.isEmpty || text.hasSuffix("NotSet") { continue }
            switch name {
            case "HKCharacteristicTypeIdentifierDateOfBirth":
                guard text.count == 10, text.withCString({ AppleDate.parse(String(cString: $0) + " 00:00:00 +0000") }) != nil else {
                    return fail(.badRecord, "Me \(name) '\(text)' is not a date YYYY-MM-DD")
                }
                settings.append(CharacteristicSetting(.dateOfBirth, text))
            case "HKCharacteristicTypeIdentifierBiologicalSex":
                guard let sex = AppleCharacteristics.sex[text] else { return fail(.badRecord, "Me \(name) '\(text)' is not a known value") }
                settings.append(CharacteristicSetting(.biologicalSex, sex))
            case "HKCharacteristicTypeIdentifierBloodType":
                guard let blood = AppleCharacteristics.blood[text] else { return fail(.badRecord, "Me \(name) '\(text)' is not a known value") }
                settings.append(CharacteristicSetting(.bloodType, blood))
            default:
                summary.skipped["Me " + name, default: 0] += 1
            }
        }
        summary.characteristics += settings.count
        if !settings.isEmpty { emit(.characteristics(settings)) }
    }
}

/// The `Me` element's values and the store's spellings.
public enum AppleCharacteristics {
    public static let sex = ["HKBiologicalSexFemale": "female", "HKBiologicalSexMale": "male", "HKBiologicalSexOther": "other"]
    public static let blood = [
        "HKBloodTypeAPositive": "A+", "HKBloodTypeANegative": "A-", "HKBloodTypeBPositive": "B+", "HKBloodTypeBNegative": "B-",
        "HKBloodTypeABPositive": "AB+", "HKBloodTypeABNegative": "AB-", "HKBloodTypeOPositive": "O+", "HKBloodTypeONegative": "O-",
    ]
}
