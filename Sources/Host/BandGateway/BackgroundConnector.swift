/// The system's background connections, as the gateway uses them: a device added here is
/// connected by the system whenever it is in range (over BlueZ, the kernel's auto-connect list,
/// filled with the management socket's Add Device), and its channel is handed over on a socket
/// the connector listens on, as bluetoothd receives the ATT channel of a link the kernel made.
/// The gateway then starts a session only on a link that is up and handed over, so a device
/// that stays away costs no connection attempt, and no socket ever starts (or abandons) an LE
/// connection of its own.
public protocol BackgroundConnector: AnyObject {
    /// Readable when a change may be waiting (the kernel's events, a channel handed over).
    var pollDescriptors: [Int32] { get }
    /// Changes read meanwhile (while a command waited for its reply) that the descriptors no
    /// longer show.
    var hasPendingChanges: Bool { get }
    /// Whether this connector serves `device` (a Bluetooth address; not a `sim:` socket).
    func serves(_ device: GatewayDevice) -> Bool
    /// Starts connecting the device whenever it is in range. Returns true when a link to it is
    /// up already and its channel has not been handed over (yet).
    func add(_ address: String) throws -> Bool
    /// Stops connecting it.
    func remove(_ address: String) throws
    /// Drops the device's link, which is up with no session on it (its channel was handed over
    /// and closed); the system connects it again by itself, since it is still added.
    func release(_ address: String) throws
    /// What happened to the links since the last call, without waiting.
    func changes() throws -> [LinkChange]
}

/// A device's link, as the system reports it.
public enum LinkChange: Equatable, Sendable {
    /// Its channel was handed over: a session may adopt it.
    case up(address: String)
    case down(address: String)
}
