/// The system's background connections, as the gateway uses them: a device added here is
/// connected by the system whenever it is in range (over BlueZ, the kernel's auto-connect list,
/// filled with the management socket's Add Device), and its links coming up and going down are
/// reported through ``changes()``. The gateway then starts a session only on a link that is up,
/// so a device that stays away costs no connection attempts at all.
public protocol BackgroundConnector: AnyObject {
    /// Readable when a change may be waiting.
    var pollDescriptor: Int32 { get }
    /// Changes read meanwhile (while a command waited for its reply) that the descriptor no
    /// longer shows.
    var hasPendingChanges: Bool { get }
    /// Whether this connector serves `device` (a Bluetooth address; not a `sim:` socket).
    func serves(_ device: GatewayDevice) -> Bool
    /// Starts connecting the device whenever it is in range; returns whether its link is up now.
    func add(_ address: String) throws -> Bool
    /// Stops connecting it.
    func remove(_ address: String) throws
    /// What happened to the links since the last call, without waiting.
    func changes() throws -> [LinkChange]
}

/// A device's link came up or went down, as the system reports it.
public enum LinkChange: Equatable, Sendable {
    case up(address: String)
    case down(address: String)
}
