import BandKitSystem
import BandLink
import BandWire
internal import CBlueZ
#if canImport(Glibc)
import Glibc
#endif

/// An ATT bearer over the LE Attribute Protocol's fixed L2CAP channel (CID 4) through the
/// kernel's Bluetooth stack: `socket(AF_BLUETOOTH, SOCK_SEQPACKET, BTPROTO_L2CAP)` with
/// `sockaddr_l2.l2_cid = 4`, as BlueZ's own GATT client and server do.
///
/// One ATT PDU per datagram (one per L2CAP SDU, Core 5.4 Vol 3 Part F §3.3), received with
/// the same rules as ``SeqPacketLink`` (timeouts through `poll`, oversized PDUs are errors,
/// link loss is ``LinkError/closed`` with the kernel's reason in ``closeReason``).
///
/// Security: `BT_SECURITY` medium before connecting makes the kernel pair (SMP) or, with a
/// stored key, encrypt as part of `connect`; ``raiseSecurity(to:timeout:agent:)`` does it on a
/// live link (what a GATT client does after Insufficient Authentication). Without bluetoothd
/// pass a ``PairingAgent`` so the kernel's confirmation request is answered while we wait.
public final class L2CAPATTLink: ATTBearer {
    public var mtu: Int = 23
    public let peer: LEAddress
    /// How long `send` waits for room when the controller is not draining. Never forever.
    public var sendTimeout: Duration = .seconds(10)
    /// The agent that answered this link's pairing. Kept so the New Long Term Key events,
    /// which arrive after encryption has started, are still read and stored: `receive`
    /// drains the agent while it awaits keys, and `close` drains it once more.
    public private(set) var agent: PairingAgent?
    private let socket: PacketSocket

    init(adopting descriptor: Int32, peer: LEAddress, system: SystemCalls) {
        self.peer = peer
        self.socket = PacketSocket(adopting: descriptor, system: system)
    }

    public var pollDescriptor: Int32? { socket.isOpen ? socket.descriptor : nil }

    /// Why the link ended, when the kernel said (e.g. `ETIMEDOUT`: supervision timeout).
    public var closeReason: Errno? { socket.closeReason }

    /// Connects from the adapter whose address is `adapter` to `peer`, waiting up to
    /// `timeout` for the LE connection (and, at `security` ≥ medium, for pairing or
    /// encryption). A refused or failed pairing is ``LinkError/securityFailed(_:)``.
    public static func connect(to peer: LEAddress, from adapter: BluetoothAddress, security: SecurityLevel = .low,
                               timeout: Duration = .seconds(20), agent: PairingAgent? = nil,
                               system: SystemCalls = .live) throws(LinkError) -> L2CAPATTLink {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        let fd = try system.bluetoothSocket(type: SocketFlags.seqPacket | SocketFlags.nonBlocking, protocol: BluetoothSocket.protocolL2CAP)
        let link = L2CAPATTLink(adopting: fd, peer: peer, system: system)
        let local = L2CAPSocketAddress(adapter, type: .public)
        if case .failure(let error) = local.withRawAddress({ system.bind(fd, address: $0) }) {
            throw .system("bind L2CAP ATT to \(adapter)", error)
        }
        if security > .low { try link.setSecurityOption(security) }
        let remote = L2CAPSocketAddress(peer.address, type: peer.type)
        switch remote.withRawAddress({ system.connect(fd, address: $0) }) {
        case .success: break
        case .failure(.inProgress), .failure(.interrupted), .failure(.wouldBlock):
            do throws(LinkError) {
                try link.waitUntilWritable(timeout: timeout, agent: agent, what: "connect \(peer)")
            } catch {
                // The socket may have attached to an LE link that exists but no longer answers
                // (its peer powered off mid-procedure, before the supervision timeout): tear
                // that link down, or every retry would attach to it again and hang the same way.
                if error.errno == .timedOut, let agent { try? agent.adapter.disconnect(peer) }
                throw error
            }
        case .failure(let error):
            throw .system("connect \(peer)", error)
        }
        switch system.option(fd, level: SOL_SOCKET, name: SO_ERROR, as: Int32.self) {
        case .success(0): break
        case .success(EACCES): throw .securityFailed("pairing with \(peer) failed or was not confirmed (EACCES)")
        case .success(let code): throw .system("connect \(peer)", Errno(rawValue: code))
        case .failure(let error): throw .system("getsockopt(SO_ERROR)", error)
        }
        link.agent = agent
        if security > .low, try link.securityLevel() < security {
            // The kernel can start the ATT channel before the connection's SMP channel exists;
            // it then logs "security requested but not available" and connects unencrypted.
            // Asking again on the connected socket starts pairing (or encryption) for real.
            try link.raiseSecurity(to: security, timeout: max(.seconds(1), deadline - ContinuousClock.now), agent: agent)
        }
        try agent?.handlePendingEvents()
        return link
    }

    /// The security level the kernel reports for this link now.
    public func securityLevel() throws(LinkError) -> SecurityLevel {
        guard socket.isOpen else { throw .closed }
        switch socket.system.option(socket.descriptor, level: BluetoothSocket.levelBluetooth, name: BluetoothSocket.optionSecurity, as: bt_security.self) {
        case .success(let value): return SecurityLevel(rawValue: value.level)
        case .failure(let error): throw .system("getsockopt(BT_SECURITY)", error)
        }
    }

    /// The L2CAP MTUs of the channel (`L2CAP_OPTIONS`, else `BT_RCVMTU`/`BT_SNDMTU`): the
    /// largest SDU, hence ATT PDU, each side accepts. ATT_MTU (``mtu``) never exceeds them.
    public func channelMTU() throws(LinkError) -> (incoming: Int, outgoing: Int) {
        guard socket.isOpen else { throw .closed }
        let system = socket.system, fd = socket.descriptor
        if case .success(let options) = system.option(fd, level: BluetoothSocket.levelL2CAP, name: BluetoothSocket.optionL2CAPOptions, as: l2cap_options.self) {
            return (Int(options.imtu), Int(options.omtu))
        }
        let incoming = system.option(fd, level: BluetoothSocket.levelBluetooth, name: BluetoothSocket.optionReceiveMTU, as: UInt16.self)
        let outgoing = system.option(fd, level: BluetoothSocket.levelBluetooth, name: BluetoothSocket.optionSendMTU, as: UInt16.self)
        switch (incoming, outgoing) {
        case (.success(let i), .success(let o)): return (Int(i), Int(o))
        case (.failure(let error), _), (_, .failure(let error)): throw .system("getsockopt(BT_RCVMTU/BT_SNDMTU)", error)
        }
    }

    /// Raises the link's security (SMP pairing, or encryption with a stored key) and waits
    /// up to `timeout` until the kernel reports at least `level`.
    public func raiseSecurity(to level: SecurityLevel, timeout: Duration = .seconds(35), agent: PairingAgent? = nil) throws(LinkError) {
        guard socket.isOpen else { throw .closed }
        if try securityLevel() >= level { return }
        do { try setSecurityOption(level) } catch {
            // Encryption the peer asked for may have completed since the check: the kernel then
            // refuses to raise the level again (EINVAL), and the link is as wanted.
            if error.errno == .invalidArgument, try securityLevel() >= level { return }
            throw error
        }
        try waitUntilWritable(timeout: timeout, agent: agent ?? self.agent, what: "raise security to \(level)")
        try requireSecurity(level)
        if let agent { self.agent = agent }
        try self.agent?.handlePendingEvents()
    }

    public func send(_ pdu: UnsafeRawBufferPointer) throws(LinkError) {
        guard pdu.count <= mtu else { throw .pduTooLarge(size: pdu.count, limit: mtu) }
        try socket.send(pdu, timeout: sendTimeout)
    }

    public func receive(into buffer: UnsafeMutableRawBufferPointer, timeout: Duration?) throws(LinkError) -> Int? {
        if let agent, agent.isAwaitingKeys { try agent.handlePendingEvents() }
        return try socket.receive(into: buffer, timeout: timeout)
    }

    public func close() {
        if let agent { _ = try? agent.handlePendingEvents() }
        agent = nil
        socket.close()
    }

    /// Lets `agent` answer and record this link's pairing (a listener's links, made by accept).
    func adoptAgent(_ agent: PairingAgent) { self.agent = agent }

    // MARK: Internals

    private func setSecurityOption(_ level: SecurityLevel) throws(LinkError) {
        let value = bt_security(level: level.rawValue, key_size: 0)
        if case .failure(let error) = socket.system.setOption(socket.descriptor, level: BluetoothSocket.levelBluetooth, name: BluetoothSocket.optionSecurity, value: value) {
            throw .system("setsockopt(BT_SECURITY \(level))", error)
        }
    }

    private func requireSecurity(_ level: SecurityLevel) throws(LinkError) {
        let now = try securityLevel()
        guard now >= level else { throw .securityFailed("link to \(peer) is at security \(now), \(level) was required (pairing refused?)") }
    }

    /// Waits in `poll()` until the socket is writable (connected, or security settled),
    /// answering the agent's events meanwhile. Hang-ups and socket errors end the wait.
    private func waitUntilWritable(timeout: Duration, agent: PairingAgent?, what: String) throws(LinkError) {
        var poller = Poller(system: socket.system)
        poller.watch(socket.descriptor, for: .writable)
        if let agent { poller.watch(agent.pollDescriptor) }
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while true {
            if let agent { try agent.handlePendingEvents() }
            guard try poller.wait(until: deadline) > 0 else { throw .system("\(what) (no answer within \(timeout))", .timedOut) }
            let state = poller.readiness(of: socket.descriptor)
            if state.contains(.writable) || !state.isDisjoint(with: [.error, .hangUp]) { break }
        }
        switch socket.system.option(socket.descriptor, level: SOL_SOCKET, name: SO_ERROR, as: Int32.self) {
        case .success(0): return
        case .success(EACCES): throw .securityFailed("\(what): pairing failed or was not confirmed (EACCES)")
        case .success(let code): throw .system(what, Errno(rawValue: code))
        case .failure(let error): throw .system("getsockopt(SO_ERROR)", error)
        }
    }
}
