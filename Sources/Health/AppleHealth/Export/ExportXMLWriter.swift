import CivilTime
import FoundationEssentials
import HealthModel

/// Writes export.xml in the Health app's shape — the internal DTD, `HealthData`, `ExportDate`,
/// `Me`, `Record` with `MetadataEntry`, `Workout` with `WorkoutEvent` and `WorkoutStatistics` —
/// one element at a time, so a caller can stream millions of samples.
///
/// What ``AppleHealthParser`` reads back: every store field of a sample (type, value in the
/// canonical unit, times, zone — a named zone as `HKTimeZone`, a fixed offset through the
/// dates —, source and version, device, sync identifier and version, user entry, metadata) and of
/// a workout (activity, times, totals, events, metadata, source, device). Not kept: ids (the
/// importer derives them), a sample without a zone (its dates are written in UTC and read back
/// in the zone `GMT`).
public enum ExportXMLWriter {
    /// The XML declaration, the DTD Apple's export carries (abridged to the elements written here),
    /// the root's start tag and the export date.
    public static func header(exportDate: Date) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE HealthData [
        <!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary|ClinicalRecord)*)>
        <!ATTLIST HealthData locale CDATA #REQUIRED>
        <!ELEMENT ExportDate EMPTY>
        <!ATTLIST ExportDate value CDATA #REQUIRED>
        <!ELEMENT Me EMPTY>
        <!ATTLIST Me
          HKCharacteristicTypeIdentifierDateOfBirth CDATA #REQUIRED
          HKCharacteristicTypeIdentifierBiologicalSex CDATA #REQUIRED
          HKCharacteristicTypeIdentifierBloodType CDATA #REQUIRED>
        <!ELEMENT Record ((MetadataEntry|HeartRateVariabilityMetadataList)*)>
        <!ATTLIST Record
          type CDATA #REQUIRED
          unit CDATA #IMPLIED
          value CDATA #IMPLIED
          sourceName CDATA #REQUIRED
          sourceVersion CDATA #IMPLIED
          device CDATA #IMPLIED
          creationDate CDATA #IMPLIED
          startDate CDATA #REQUIRED
          endDate CDATA #REQUIRED>
        <!ELEMENT MetadataEntry EMPTY>
        <!ATTLIST MetadataEntry key CDATA #REQUIRED value CDATA #REQUIRED>
        <!ELEMENT Workout ((MetadataEntry|WorkoutEvent|WorkoutRoute|WorkoutStatistics)*)>
        <!ATTLIST Workout
          workoutActivityType CDATA #REQUIRED
          duration CDATA #IMPLIED
          durationUnit CDATA #IMPLIED
          sourceName CDATA #REQUIRED
          sourceVersion CDATA #IMPLIED
          device CDATA #IMPLIED
          creationDate CDATA #IMPLIED
          startDate CDATA #REQUIRED
          endDate CDATA #REQUIRED>
        <!ELEMENT WorkoutEvent EMPTY>
        <!ATTLIST WorkoutEvent type CDATA #REQUIRED date CDATA #REQUIRED duration CDATA #IMPLIED durationUnit CDATA #IMPLIED>
        <!ELEMENT WorkoutStatistics EMPTY>
        <!ATTLIST WorkoutStatistics type CDATA #REQUIRED startDate CDATA #REQUIRED endDate CDATA #REQUIRED sum CDATA #IMPLIED unit CDATA #IMPLIED>
        ]>
        <HealthData locale="en_US">
         <ExportDate value="\(AppleDate.format(exportDate, utcOffsetSeconds: 0))"/>

        """
    }

    public static let footer = "</HealthData>\n"

    /// The `Me` element; characteristics not set are written as Apple does (`…NotSet`, empty date).
    public static func me(_ characteristics: Characteristics) -> String {
        var birth = ""
        if let components = characteristics.dateOfBirth, let year = components.year, let month = components.month, let day = components.day {
            birth = AppleDate.format(Date(timeIntervalSince1970: Double(CivilCalendar.daysSince1970(year: year, month: month, day: day)) * 86_400),
                                     utcOffsetSeconds: 0).prefix(10).description
        }
        let sex = characteristics.biologicalSex.flatMap { value in AppleCharacteristics.sex.first { $0.value == value.rawValue }?.key }
            ?? "HKBiologicalSexNotSet"
        let blood = characteristics.bloodType.flatMap { value in AppleCharacteristics.blood.first { $0.value == value.rawValue }?.key }
            ?? "HKBloodTypeNotSet"
        return " <Me HKCharacteristicTypeIdentifierDateOfBirth=\"\(birth)\" HKCharacteristicTypeIdentifierBiologicalSex=\"\(sex)\" "
            + "HKCharacteristicTypeIdentifierBloodType=\"\(blood)\"/>\n"
    }

    /// One `Record` element for a sample read from the store.
    public static func record(_ sample: Sample) -> String {
        var attributes: [(String, String)] = [("type", AppleTypes.identifier(of: sample.sampleType))]
        let fields: (zone: TimeZone?, device: DeviceInfo?, syncID: String?, syncVersion: Int64, userEntered: Bool, metadata: [String: String])
        let value: String
        var unit: String?
        switch sample {
        case .quantity(let quantity):
            fields = (quantity.timeZone, quantity.device, quantity.syncIdentifier, quantity.syncVersion, quantity.userEntered, quantity.metadata)
            let canonical = (try? quantity.canonicalValue()) ?? quantity.quantity.value
            value = number(canonical)
            unit = quantity.type.canonicalUnit.symbol
        case .category(let category):
            fields = (category.timeZone, category.device, category.syncIdentifier, category.syncVersion, category.userEntered, category.metadata)
            let names = AppleTypes.valueNames(of: category.type)
            value = names.indices.contains(category.value) ? names[category.value] : String(category.value)
        }
        attributes += provenance(source: sample.source, device: fields.device)
        if let unit { attributes.append(("unit", unit)) }
        attributes.append(("startDate", date(sample.start, fields.zone)))
        attributes.append(("endDate", date(sample.end, fields.zone)))
        attributes.append(("value", value))
        var entries: [(String, String)] = []
        if let syncID = fields.syncID {
            entries.append((Metadata.syncIdentifierKey, syncID))
            entries.append((Metadata.syncVersionKey, String(fields.syncVersion)))
        }
        if fields.userEntered { entries.append((Metadata.userEnteredKey, "1")) }
        if let zone = fields.zone, !isFixedOffset(zone) { entries.append((Metadata.timeZoneKey, zone.identifier)) }
        entries += fields.metadata.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        return element("Record", attributes, children: entries.map { metadataEntry($0.0, $0.1) })
    }

    /// One `Workout` element with its statistics, events and metadata.
    public static func workout(_ workout: Workout) -> String {
        let zone: TimeZone? = nil
        var attributes: [(String, String)] = [("workoutActivityType", workout.activity.appleIdentifier),
                                              ("duration", number(workout.duration / 60)), ("durationUnit", "min")]
        attributes += provenance(source: workout.source, device: workout.device)
        attributes.append(("startDate", date(workout.start, zone)))
        attributes.append(("endDate", date(workout.end, zone)))
        var children: [String] = []
        for (key, value) in workout.metadata.sorted(by: { $0.key < $1.key }) where key != PendingWorkout.eventsKey {
            children.append(metadataEntry(key, value))
        }
        for line in (workout.metadata[PendingWorkout.eventsKey] ?? "").split(separator: "\n") {
            let parts = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 4 else { continue }
            var event = [("type", parts[0]), ("date", parts[1])]
            if !parts[2].isEmpty { event.append(("duration", parts[2])) }
            if !parts[3].isEmpty { event.append(("durationUnit", parts[3])) }
            children.append(element("WorkoutEvent", event, indent: "  "))
        }
        let range = [("startDate", date(workout.start, zone)), ("endDate", date(workout.end, zone))]
        if let energy = try? workout.totalEnergyBurned?.value(in: .kilocalorie) {
            children.append(element("WorkoutStatistics", [("type", "HKQuantityTypeIdentifierActiveEnergyBurned")] + range
                                    + [("sum", number(energy)), ("unit", "kcal")], indent: "  "))
        }
        if let distance = try? workout.totalDistance?.value(in: .meter) {
            let type = switch workout.activity {
            case .cycling: "HKQuantityTypeIdentifierDistanceCycling"
            case .swimming: "HKQuantityTypeIdentifierDistanceSwimming"
            default: "HKQuantityTypeIdentifierDistanceWalkingRunning"
            }
            children.append(element("WorkoutStatistics", [("type", type)] + range + [("sum", number(distance)), ("unit", "m")], indent: "  "))
        }
        return element("Workout", attributes, children: children)
    }

    // MARK: Pieces

    private static func provenance(source: AppIdentity?, device: DeviceInfo?) -> [(String, String)] {
        var attributes = [("sourceName", source?.id ?? AppIdentity.owner.id)]
        if let version = source?.version, !version.isEmpty { attributes.append(("sourceVersion", version)) }
        if let device { attributes.append(("device", DeviceString.format(device))) }
        return attributes
    }

    /// Whether `zone` is a fixed offset (`GMT-0700`), which the dates themselves carry.
    static func isFixedOffset(_ zone: TimeZone) -> Bool {
        zone.identifier.hasPrefix("GMT") || zone.identifier == "UTC"
    }

    private static func date(_ date: Date, _ zone: TimeZone?) -> String {
        AppleDate.format(date, utcOffsetSeconds: zone?.secondsFromGMT(for: date) ?? 0)
    }

    /// Shortest text that reads back as the same Double (`412`, `12.5`).
    static func number(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    private static func metadataEntry(_ key: String, _ value: String) -> String {
        element("MetadataEntry", [("key", key), ("value", value)], indent: "  ")
    }

    private static func element(_ name: String, _ attributes: [(String, String)], children: [String] = [], indent: String = " ") -> String {
        var text = indent + "<" + name
        for (key, value) in attributes { text += " \(key)=\"\(escape(value))\"" }
        if children.isEmpty { return text + "/>\n" }
        return text + ">\n" + children.joined() + indent + "</\(name)>\n"
    }

    /// Attribute text: markup characters as entities; tab, newline and carriage return as
    /// character references (so they survive attribute normalisation); other C0 controls, which
    /// XML 1.0 cannot carry at all, as U+FFFD.
    public static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "\t": result += "&#9;"
            case "\n": result += "&#10;"
            case "\r": result += "&#13;"
            case _ where scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF: result += "\u{FFFD}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
