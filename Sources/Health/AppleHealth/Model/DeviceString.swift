import HealthModel

/// The `device` attribute of export.xml, HealthKit's description of an `HKDevice`:
///
///     <<HKDevice: 0x283c8a2b0>, name:Apple Watch, manufacturer:Apple Inc., model:Watch,
///       hardware:Watch6,1, software:9.0, creation date:2022-10-01 10:00:00 +0000>
///
/// Fields are `key:value` separated by `, `; values may themselves contain `, ` (hardware
/// `Watch6,1` does not, but names do), so a new field starts only at a known key.
/// Mapped onto `DeviceInfo`: name, manufacturer, model; `hardware` → hardware identifier;
/// `software` (else `firmware`) → firmware version. Other keys (localIdentifier, UDI, creation
/// date) are not kept.
public enum DeviceString {
    static let keys = ["name", "manufacturer", "model", "hardware", "firmware", "software", "localIdentifier",
                       "FDA UDI", "creation date"]

    /// The device the string describes; nil when it names no field the store keeps.
    public static func parse(_ text: String) -> DeviceInfo? {
        var body = Substring(text)
        if body.hasPrefix("<<HKDevice"), let close = body.firstIndex(of: ">") {
            body = body[body.index(after: close)...]
            if body.hasPrefix(",") { body = body.dropFirst() }
        }
        if body.hasSuffix(">") { body = body.dropLast() }
        var fields: [String: String] = [:]
        var currentKey: String?
        var currentValue = ""
        for piece in body.split(separator: ", ", omittingEmptySubsequences: false) {
            let trimmed = piece.drop(while: { $0 == " " })
            if let key = keys.first(where: { trimmed.hasPrefix($0 + ":") }) {
                if let currentKey { fields[currentKey] = currentValue }
                currentKey = key
                currentValue = String(trimmed.dropFirst(key.count + 1))
            } else if currentKey != nil {
                currentValue += ", " + piece
            }
        }
        if let currentKey { fields[currentKey] = currentValue }
        let info = DeviceInfo(name: fields["name"], manufacturer: fields["manufacturer"], model: fields["model"],
                              hardwareIdentifier: fields["hardware"], firmwareVersion: fields["software"] ?? fields["firmware"])
        if info == DeviceInfo() { return nil }
        return info
    }

    /// The string HealthKit would write for `device` (address 0x0), which ``parse(_:)`` reads back.
    public static func format(_ device: DeviceInfo) -> String {
        var parts = ["<<HKDevice: 0x0>"]
        if let name = device.name { parts.append("name:" + name) }
        if let manufacturer = device.manufacturer { parts.append("manufacturer:" + manufacturer) }
        if let model = device.model { parts.append("model:" + model) }
        if let hardware = device.hardwareIdentifier { parts.append("hardware:" + hardware) }
        if let software = device.firmwareVersion { parts.append("software:" + software) }
        return parts.joined(separator: ", ") + ">"
    }
}
