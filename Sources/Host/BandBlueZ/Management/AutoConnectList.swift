import BandKitSystem
import BandLink
import BandWire
import Synchronization

/// The kernel's background connections for one adapter, as bluetoothd uses them: each peer added
/// here (Add Device, auto-connect) is connected by the kernel whenever it advertises — a passive
/// scan in the controller, no process awake — and the ATT channel of that link is handed over on
/// a listening ATT socket (``listen(on:)``), as bluetoothd receives it: when the kernel reports
/// an LE link established, it gives a channel to every socket listening on the ATT fixed channel.
///
/// So no socket here ever calls `connect()`: an L2CAP `connect()` to a peer whose link does not
/// exist starts an LE connection of its own, and abandoning such connects (closing the socket
/// while the kernel still scans for the peer) while another link is held is the sequence that
/// trips Debian 12's kernel BUG in `hci_chan_del` (docs/real-hardware.md). A session takes its
/// channel with ``takeLink(_:)``.
///
/// Peers are removed (Remove Device) by ``remove(_:)`` and by ``close()``: the kernel would
/// otherwise keep connecting them after the process is gone.
public final class AutoConnectList {
    /// What happened on this adapter.
    public enum Change: Equatable, Sendable {
        /// The kernel made a link to the peer (Device Connected); its channel follows.
        case up(LEAddress)
        /// The peer's ATT channel was handed over: ``takeLink(_:)`` has it.
        case handedOver(LEAddress)
        case down(LEAddress)
    }

    /// What ``takeLink(_:)`` found.
    public enum Handover {
        /// The channel the kernel handed over.
        case link(L2CAPATTLink)
        /// The peer is on the list, but no channel of it is waiting (its link went, or was taken).
        case nothing
        /// The peer is not on the list (Add Device failed): whoever serves it connects itself.
        case notListed
    }

    /// A handed-over link, moved between the loop's thread and a session's.
    private struct Waiting: @unchecked Sendable { let link: L2CAPATTLink }

    private struct State {
        var peers: Set<LEAddress> = []
        var waiting: [LEAddress: Waiting] = [:]
    }

    public let adapter: BlueZAdapter
    private let system: SystemCalls
    private var listener: L2CAPATTListener?
    /// Touched by the loop's thread and by sessions taking their links.
    private let state = Mutex(State())
    private var queued: [Change] = []

    /// Opens a management socket of its own on `adapter` (`hciN`), so its events are not read by
    /// anyone else's.
    public init(adapter name: String, system: SystemCalls = .live) throws(LinkError) {
        adapter = try BlueZAdapter(name, system: system)
        self.system = system
    }

    /// Listens on the ATT channel of `address`, this adapter's own: from now on every link the
    /// kernel makes hands its ATT channel over here. Call it before adding peers.
    public func listen(on address: BluetoothAddress) throws(LinkError) {
        listener = try L2CAPATTListener(adapter: address, backlog: 8, system: system)
    }

    /// The management socket's, and the listener's once it listens.
    public var pollDescriptors: [Int32] {
        [adapter.management.pollDescriptor] + (listener.map { [$0.pollDescriptor] } ?? [])
    }

    /// Events read while a command waited for its reply, and channels accepted while adding a
    /// peer, wait here, not in the sockets.
    public var hasQueuedChanges: Bool { adapter.management.hasQueuedEvents || !queued.isEmpty }
    public var peers: Set<LEAddress> { state.withLock { $0.peers } }

    /// Asks the kernel to connect `peer` whenever it advertises. Returns true when a link to it
    /// is up already and no channel of it was handed over yet: the kernel's own connection may
    /// be completing (Add Device connects at once a peer that advertises), or someone else made
    /// the link before this list listened.
    public func add(_ peer: LEAddress) throws(LinkError) -> Bool {
        try adapter.addDevice(peer, action: .autoConnect)
        state.withLock { _ = $0.peers.insert(peer) }
        guard try adapter.connections().contains(peer) else { return false }
        try acceptHandedOver()
        return state.withLock { $0.waiting[peer] == nil }
    }

    /// Stops the kernel's connecting to `peer` (an existing link stays until its sockets close)
    /// and closes a channel of it nobody took.
    public func remove(_ peer: LEAddress) throws(LinkError) {
        let removed = state.withLock { state in (state.peers.remove(peer) != nil, state.waiting.removeValue(forKey: peer)) }
        removed.1?.link.close()
        guard removed.0 else { return }
        try adapter.removeDevice(peer)
    }

    /// Drops the link to `peer` (mgmt Disconnect), for a link that stayed up after its session
    /// closed the channel handed over: the kernel made and finished setting up that link, so
    /// this is not the drop of a link still being set up that trips Debian 12's `hci_chan_del`
    /// BUG. The peer stays on the list: the kernel connects it again and hands the channel over.
    public func release(_ peer: LEAddress) throws(LinkError) {
        try adapter.disconnect(peer)
    }

    /// The channel the kernel handed over for `peer`, taken (any thread).
    public func takeLink(_ peer: LEAddress) -> Handover {
        let (listed, waiting) = state.withLock { state -> (Bool, Waiting?) in
            guard state.peers.contains(peer) else { return (false, nil) }
            return (true, state.waiting.removeValue(forKey: peer))
        }
        guard listed else { return .notListed }
        return waiting.map { .link($0.link) } ?? .nothing
    }

    /// The changes since the last call, without waiting: the kernel's events first, then the
    /// channels handed over since (a link that went down and came back is down, then handed over).
    public func changes() throws(LinkError) -> [Change] {
        var changes = queued
        queued = []
        while let event = try adapter.management.nextEvent(timeout: .zero) {
            guard let change = Self.change(for: event, adapter: adapter.index) else { continue }
            if case .down(let peer) = change {
                state.withLock { $0.waiting.removeValue(forKey: peer) }?.link.close()
            }
            changes.append(change)
        }
        try acceptHandedOver()
        changes += queued
        queued = []
        return changes
    }

    /// Accepts every channel waiting on the listener: a listed peer's is kept for its session
    /// (replacing an older one), anyone else's is closed.
    private func acceptHandedOver() throws(LinkError) {
        guard let listener else { return }
        while let link = try listener.accept(timeout: .zero) {
            let peer = link.peer
            let replaced = state.withLock { state -> (listed: Bool, old: Waiting?) in
                guard state.peers.contains(peer) else { return (false, nil) }
                return (true, state.waiting.updateValue(Waiting(link: link), forKey: peer))
            }
            replaced.old?.link.close()
            if replaced.listed { queued.append(.handedOver(peer)) } else { link.close() }
        }
    }

    /// What one management event means here (nil: nothing). Other adapters' events are ignored.
    static func change(for event: ManagementEvent, adapter index: UInt16) -> Change? {
        switch event {
        case .deviceConnected(index, let peer): return .up(peer)
        case .deviceDisconnected(index, let peer, _): return .down(peer)
        default: return nil
        }
    }

    /// Removes every peer added (best effort: an adapter that is gone took them with it), closes
    /// the channels nobody took, the listener and the socket.
    public func close() {
        let (peers, waiting) = state.withLock { state in
            defer { state = State() }
            return (state.peers, Array(state.waiting.values))
        }
        for item in waiting { item.link.close() }
        listener?.close()
        for peer in peers { _ = try? adapter.removeDevice(peer) }
        adapter.management.close()
    }
}
