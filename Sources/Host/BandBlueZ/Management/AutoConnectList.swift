import BandKitSystem
import BandLink
import BandWire

/// The kernel's background connections for one adapter, as bluetoothd uses them: each peer added
/// here (Add Device, auto-connect) is connected by the kernel whenever it advertises — a passive
/// scan in the controller, no process awake — and this reports the links coming up and going down
/// (Device Connected / Disconnected on its own management socket), so the caller opens its ATT
/// socket on a link that already exists. An L2CAP `connect()` is then never left to start, or be
/// cancelled mid-way, an LE connection to a peer that is away.
///
/// Peers are removed (Remove Device) by ``remove(_:)`` and by ``close()``: the kernel would
/// otherwise keep connecting them after the process is gone.
public final class AutoConnectList {
    /// What happened to a link on this adapter.
    public enum Change: Equatable, Sendable {
        case up(LEAddress)
        case down(LEAddress)
    }

    public let adapter: BlueZAdapter
    private var added: Set<LEAddress> = []

    /// Opens a management socket of its own on `adapter` (`hciN`), so its events are not read by
    /// anyone else's.
    public init(adapter name: String, system: SystemCalls = .live) throws(LinkError) {
        adapter = try BlueZAdapter(name, system: system)
    }

    public var pollDescriptor: Int32 { adapter.management.pollDescriptor }
    /// Events read while a command waited for its reply wait here, not in the socket.
    public var hasQueuedChanges: Bool { adapter.management.hasQueuedEvents }
    public var peers: Set<LEAddress> { added }

    /// Asks the kernel to connect `peer` whenever it advertises; returns whether a link to it is
    /// up already (then no Device Connected will say so).
    public func add(_ peer: LEAddress) throws(LinkError) -> Bool {
        try adapter.addDevice(peer, action: .autoConnect)
        added.insert(peer)
        return try adapter.connections().contains(peer)
    }

    /// Stops the kernel's connecting to `peer` (an existing link stays until its sockets close).
    public func remove(_ peer: LEAddress) throws(LinkError) {
        guard added.remove(peer) != nil else { return }
        try adapter.removeDevice(peer)
    }

    /// The link changes since the last call, without waiting.
    public func changes() throws(LinkError) -> [Change] {
        var changes: [Change] = []
        while let event = try adapter.management.nextEvent(timeout: .zero) {
            if let change = Self.change(for: event, adapter: adapter.index) { changes.append(change) }
        }
        return changes
    }

    /// What one management event means here (nil: nothing). Other adapters' events are ignored.
    static func change(for event: ManagementEvent, adapter index: UInt16) -> Change? {
        switch event {
        case .deviceConnected(index, let peer): return .up(peer)
        case .deviceDisconnected(index, let peer, _): return .down(peer)
        default: return nil
        }
    }

    /// Removes every peer added (best effort: an adapter that is gone took them with it) and
    /// closes the socket.
    public func close() {
        for peer in added { _ = try? adapter.removeDevice(peer) }
        added.removeAll()
        adapter.management.close()
    }
}
