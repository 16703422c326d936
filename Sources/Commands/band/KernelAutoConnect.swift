import BandBlueZ
import BandGateway
import BandLink
import BandKitSystem
import BandReader

/// The gateway's background connections over BlueZ: the kernel's auto-connect list on the
/// gateway's adapter, and the ATT channels of the links it makes handed over on a listening
/// socket (``AutoConnectList``), keyed by keystore address. A session adopts its channel
/// (``takeLink(_:)``) and never calls `connect()`, so the gateway never starts or abandons an LE
/// connection of its own (the trigger of Debian 12's kernel BUG in `hci_chan_del`).
final class KernelAutoConnect: BackgroundConnector {
    private let list: AutoConnectList
    private let random: Bool
    /// The bonds (`keyFile`) in the kernel: loaded once here and again only after a pairing
    /// changed them, never per session (each load clears the adapter's keys while another of
    /// its links may be looking its key up to encrypt).
    let keys: LongTermKeyLoader

    /// Powers `adapter` up for LE (the kernel scans for the devices only on a powered adapter,
    /// and no session, which would otherwise power it, starts before a link is up), loads the
    /// bonds of `keyFile`, then listens on its ATT channel before any device is added.
    init(adapter: String, random: Bool, keyFile: String) throws {
        let list = try AutoConnectList(adapter: adapter)
        do {
            try list.adapter.prepareForLowEnergy()
            let address = try list.adapter.address()
            let keys = LongTermKeyLoader(keyStore: LongTermKeyStore(path: keyFile), adapterAddress: address) { keys throws(LinkError) in
                // Its own management socket: the list's belongs to the gateway's loop.
                try BlueZAdapter(adapter).loadLongTermKeys(keys)
            }
            try keys.loadIfChanged()
            try list.listen(on: address)
            self.keys = keys
        } catch {
            list.close()
            throw error
        }
        self.list = list
        self.random = random
    }

    var pollDescriptors: [Int32] { list.pollDescriptors }
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

    func release(_ address: String) throws {
        guard case .bluetooth(let peer, _) = try bandAddress(address) else { throw Self.notBluetooth(address) }
        try list.release(peer)
    }

    func changes() throws -> [LinkChange] {
        try list.changes().compactMap { change in
            switch change {
            case .up: nil  // the link alone is not enough: its channel follows
            case .handedOver(let peer): .up(address: peer.address.description)
            case .down(let peer): .down(address: peer.address.description)
            }
        }
    }

    /// The channel the kernel handed over for `address` (any thread). Nil when the device is
    /// not on the kernel's list (Add Device failed: the session connects itself); an error when
    /// it is and no channel is waiting, since connecting would start an LE connection of our own.
    func takeLink(_ address: BandAddress) throws -> L2CAPATTLink? {
        guard case .bluetooth(let peer, _) = address else { return nil }
        switch list.takeLink(peer) {
        case .link(let link):
            do { try keys.loadIfChanged() } catch {
                link.close()
                throw error
            }
            return link
        case .notListed: return nil
        case .nothing: throw LinkError.system("no link to \(peer): the kernel connects it when it advertises", .notConnected)
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
