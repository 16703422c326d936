import FoundationEssentials

/// A row of Gadgetbridge's DEVICE table, as the BandKit device and source of its samples.
public struct GadgetbridgeDevice: Sendable, Hashable {
    public var rowID: Int64
    public var name: String
    public var alias: String?
    public var manufacturer: String?
    public var model: String?
    /// The fixed identifier Gadgetbridge keys devices by: the Bluetooth address.
    public var identifier: String
    /// Gadgetbridge's `DeviceType` key (older files); nil where the file names types instead.
    public var type: Int64?

    public init(rowID: Int64, name: String, alias: String? = nil, manufacturer: String? = nil, model: String? = nil,
                identifier: String, type: Int64? = nil) {
        self.rowID = rowID
        self.name = name
        self.alias = alias
        self.manufacturer = manufacturer
        self.model = model
        self.identifier = identifier
        self.type = type
    }

    /// What the user calls it: the alias they gave it, else the name the band advertises.
    public var displayName: String {
        if let alias, !alias.isEmpty { return alias }
        return name
    }

    public var deviceInfo: DeviceInfo {
        DeviceInfo(name: displayName, manufacturer: manufacturer.flatMap { $0.isEmpty ? nil : $0 },
                   model: model.flatMap { $0.isEmpty ? nil : $0 }, hardwareIdentifier: identifier)
    }

    /// The source its samples are attributed to: one per device, so that two bands worn in turn
    /// can be ranked (`health sources`). `gadgetbridge.` and the name in lower-case letters,
    /// digits and `-`, then the identifier's last four hex digits, so that two bands of one
    /// model stay apart and the same band gets the same source in every export.
    public var source: AppIdentity {
        var slug = ""
        for scalar in displayName.lowercased().unicodeScalars {
            if ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) {
                slug.unicodeScalars.append(scalar)
            } else if !slug.isEmpty, !slug.hasSuffix("-") {
                slug += "-"
            }
        }
        while slug.hasSuffix("-") { slug.removeLast() }
        let hex = identifier.lowercased().unicodeScalars.filter { ("0"..."9").contains($0) || ("a"..."f").contains($0) }
        let tail = String(String.UnicodeScalarView(hex.suffix(4)))
        let parts = [slug.isEmpty ? "device" : String(slug.prefix(40)), tail].filter { !$0.isEmpty }
        return AppIdentity(id: "gadgetbridge." + parts.joined(separator: "-"), version: "1")
    }

    /// Whether `--device NAME` means this device: its alias, name or identifier, ignoring case.
    public func matches(_ name: String) -> Bool {
        let wanted = name.lowercased()
        return [alias, self.name, identifier].contains { $0?.lowercased() == wanted }
    }

    /// The sync identifier of its sample of `kind` at `timestamp` (Unix seconds): importing the
    /// same file again, or a later export of the same band, finds the sample already stored.
    public func syncIdentifier(_ kind: String, _ timestamp: Int64) -> String {
        "gb-\(identifier.lowercased())-\(kind)-\(timestamp)"
    }
}
