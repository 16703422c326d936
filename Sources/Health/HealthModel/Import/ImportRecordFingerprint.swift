import FoundationEssentials

extension ImportRecord {
    /// Every field of the record as text, strings as their UTF-8 bytes in hex and numbers as
    /// their bit patterns, so two records with the same fingerprint store the same bytes (String
    /// and Double equality would call canonically equivalent spellings, and 0 and -0, equal).
    /// The fast and general paths are compared by it; `id` is left out when a line gave none
    /// (each path then draws a fresh one).
    package func fingerprint(includingID: Bool) -> String {
        func bytes(_ text: String?) -> String {
            guard let text else { return "nil" }
            return "<" + text.utf8.map { String($0, radix: 16) }.joined(separator: ".") + ">"
        }
        func instant(_ date: Date) -> String { String(date.timeIntervalSinceReferenceDate.bitPattern, radix: 16) }
        func quantity(_ quantity: Quantity?) -> String {
            guard let quantity else { return "nil" }
            return String(quantity.value.bitPattern, radix: 16) + " " + bytes(quantity.unit.symbol) + " " + quantity.unit.dimension.rawValue
        }
        func device(_ device: DeviceInfo?) -> String {
            guard let device else { return "nil" }
            return [device.name, device.manufacturer, device.model, device.hardwareIdentifier, device.firmwareVersion].map(bytes).joined(separator: ",")
        }
        func metadata(_ metadata: [String: String]) -> String {
            metadata.map { bytes($0.key) + "=" + bytes($0.value) }.sorted().joined(separator: ",")
        }
        var fields = ["source " + bytes(source.id) + " " + bytes(source.version)]
        switch payload {
        case .quantity(let sample):
            fields += ["quantity " + sample.type.identifier, quantity(sample.quantity), instant(sample.start), instant(sample.end),
                       bytes(sample.timeZone?.identifier), bytes(sample.source?.id), device(sample.device), bytes(sample.syncIdentifier),
                       String(sample.syncVersion), String(sample.userEntered), metadata(sample.metadata)]
            if includingID { fields.append(sample.id.uuidString) }
        case .category(let sample):
            fields += ["category " + sample.type.identifier, String(sample.value), instant(sample.start), instant(sample.end),
                       bytes(sample.timeZone?.identifier), bytes(sample.source?.id), device(sample.device), bytes(sample.syncIdentifier),
                       String(sample.syncVersion), String(sample.userEntered), metadata(sample.metadata)]
            if includingID { fields.append(sample.id.uuidString) }
        case .workout(let workout):
            fields += ["workout " + workout.activity.rawValue, instant(workout.start), instant(workout.end), quantity(workout.totalEnergyBurned),
                       quantity(workout.totalDistance), bytes(workout.source?.id), device(workout.device), metadata(workout.metadata)]
            if includingID { fields.append(workout.id.uuidString) }
        }
        return fields.joined(separator: " | ")
    }
}
