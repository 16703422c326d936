import BandBlueZ
import BandGateway
import BandLink
import BandReader

/// The gateway's background connections over BlueZ: the kernel's auto-connect list on the
/// gateway's adapter (``AutoConnectList``), keyed by keystore address. A session then opens its
/// ATT socket on a link the kernel has already made, so `connect()` never starts an LE connection
/// to a device that is away (one trigger of Debian 12's kernel BUG in `hci_chan_del`).
final class KernelAutoConnect: BackgroundConnector {
    private let list: AutoConnectList
    private let random: Bool

    /// Powers `adapter` up for LE: the kernel scans for the devices only on a powered adapter,
    /// and no session (which would otherwise power it) starts before a link is up.
    init(adapter: String, random: Bool) throws {
        list = try AutoConnectList(adapter: adapter)
        self.random = random
        do { try list.adapter.prepareForLowEnergy() } catch {
            list.close()
            throw error
        }
    }

    var pollDescriptor: Int32 { list.pollDescriptor }
    var hasPendingChanges: Bool { list.hasQueuedChanges }

    func serves(_ device: GatewayDevice) -> Bool { !device.address.hasPrefix("sim:") }

    func add(_ address: String) throws -> Bool {
        guard case .bluetooth(let peer, _) = try bandAddress(address) else { throw Self.notBluetooth(address) }
        return try list.add(peer)
    }

    func remove(_ address: String) throws {
        guard case .bluetooth(let peer, _) = try bandAddress(address) else { throw Self.notBluetooth(address) }
        try list.remove(peer)
    }

    func changes() throws -> [LinkChange] {
        try list.changes().map { change in
            switch change {
            case .up(let peer): .up(address: peer.address.description)
            case .down(let peer): .down(address: peer.address.description)
            }
        }
    }

    /// Removes every device from the kernel's list, so it stops connecting them.
    func close() { list.close() }

    private func bandAddress(_ address: String) throws -> BandAddress {
        try BandAddress(parsing: address, random: random, adapter: list.adapter.name)
    }

    private static func notBluetooth(_ address: String) -> LinkError {
        .system("\(address) is not a Bluetooth address", .invalidArgument)
    }
}
