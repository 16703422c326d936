/// The app writing or reading samples: a bundle-style identifier and its version
/// (HealthKit `HKSourceRevision` without the OS fields).
///
/// Every sample records the app that saved it (its *source*). Authorization is granted per app
/// and type; ``owner`` is the user's own `health` command, which needs no grants.
public struct AppIdentity: Hashable, Sendable, CustomStringConvertible {
    public var id: String
    public var version: String

    public init(id: String, version: String) {
        self.id = id
        self.version = version
    }

    /// The user, through the `health` command: manual entries, imports, grants, priorities.
    /// Reads everything and may attribute imported samples to other sources.
    public static let owner = AppIdentity(id: "health", version: "1")

    public var isOwner: Bool { id == AppIdentity.owner.id }
    public var description: String { "\(id) \(version)" }
}

/// The hardware that recorded a sample (HealthKit `HKDevice`); every field optional.
public struct DeviceInfo: Hashable, Sendable {
    public var name: String?
    public var manufacturer: String?
    public var model: String?
    /// A stable hardware identifier, e.g. the band's Bluetooth address.
    public var hardwareIdentifier: String?
    public var firmwareVersion: String?

    public init(name: String? = nil, manufacturer: String? = nil, model: String? = nil,
                hardwareIdentifier: String? = nil, firmwareVersion: String? = nil) {
        self.name = name
        self.manufacturer = manufacturer
        self.model = model
        self.hardwareIdentifier = hardwareIdentifier
        self.firmwareVersion = firmwareVersion
    }
}
