import BandKitSystem
import BandLink
import BandWire

/// Answers the kernel's pairing questions for one adapter when no bluetoothd agent runs, and
/// keeps the keys pairing produced.
///
/// With `BT_SECURITY` medium or higher the kernel pairs (SMP) on connect, and even for Just
/// Works it asks user space to confirm (User Confirmation Request, Confirm_Hint 1); nobody
/// answering means SMP times out after 30 s and `connect` fails with `EACCES`. This agent
/// confirms Just Works on its adapter only (another process may own the other one), answers a
/// passkey request with the passkey ``passkeyEntry`` gives (the six digits a PineTime shows on
/// its screen; ``enablePasskeyEntry()`` declares the keyboard that makes SMP ask) or refuses it
/// when there is none, and saves every New Long Term Key whose Store_Hint is set. A refused or
/// wrong passkey is kept in ``failure`` so the caller can say why pairing failed.
///
/// Single-threaded: put ``pollDescriptor`` in the caller's `poll()` set (or pass the agent to
/// ``L2CAPATTLink/connect(to:from:security:timeout:agent:system:)``) and call
/// ``handlePendingEvents()`` when it is readable.
public final class PairingAgent {
    public let adapter: BlueZAdapter
    public let adapterAddress: BluetoothAddress
    public let keyStore: LongTermKeyStore?
    /// Called with one line per thing the agent did, for logs.
    public var log: (String) -> Void
    /// True between confirming a pairing and receiving its first New Long Term Key: the keys
    /// arrive after encryption starts, so a link keeps draining the agent until then.
    public private(set) var isAwaitingKeys = false
    /// How many pairings this agent has confirmed (what `band pair` reports).
    public private(set) var confirmedPairings = 0
    /// Gives the passkey for a User Passkey Request from a peer (the digits its screen shows),
    /// or nil to refuse. Nil (the default): every passkey request is refused.
    public var passkeyEntry: ((LEAddress) -> UInt32?)?
    /// Why the last pairing could not complete, when the agent knows.
    public private(set) var failure: PairingFailure?
    private var passkeyAnswered: Set<LEAddress> = []

    public init(adapter: BlueZAdapter, keyStore: LongTermKeyStore?, log: @escaping (String) -> Void = { _ in }) throws(LinkError) {
        self.adapter = adapter
        self.adapterAddress = try adapter.address()
        self.keyStore = keyStore
        self.log = log
    }

    public var pollDescriptor: Int32 { adapter.management.pollDescriptor }

    /// Declares KeyboardOnly (Set IO Capability) so a peer with a display makes SMP use passkey
    /// entry; a peer with neither display nor keyboard still pairs Just Works.
    public func enablePasskeyEntry() throws(LinkError) {
        try adapter.setIOCapability(BlueZAdapter.keyboardOnly)
    }

    /// Loads this adapter's stored keys into the kernel. Returns how many.
    @discardableResult
    public func restoreKeys() throws(LinkError) -> Int {
        guard let keyStore else { return 0 }
        let keys: [LongTermKey]
        do throws(KeyFileError) { keys = try keyStore.keys(forAdapter: adapterAddress) } catch {
            throw .system("load keys: \(error)", Errno(rawValue: 74))
        }
        try adapter.loadLongTermKeys(keys)
        log("loaded \(keys.count) long-term key(s) for \(adapter.name)")
        return keys.count
    }

    /// Handles every event waiting now (never blocks); returns them for callers that follow
    /// connections (Device Connected/Disconnected).
    @discardableResult
    public func handlePendingEvents() throws(LinkError) -> [ManagementEvent] {
        var events: [ManagementEvent] = []
        while let event = try adapter.management.nextEvent(timeout: .zero) {
            try handle(event)
            events.append(event)
        }
        return events
    }

    /// After a secured connect failed: the kernel reports why (Authentication Failed) on the
    /// management socket a moment after `connect` returns EACCES. Handles events until a failure
    /// is known or `timeout` passes (while a passkey was answered, or a pairing was confirmed, and
    /// its outcome is still open); returns ``failure``.
    @discardableResult
    public func awaitFailure(timeout: Duration, system: SystemCalls = .live) -> PairingFailure? {
        var poller = Poller(system: system)
        poller.watch(pollDescriptor)
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while failure == nil, !passkeyAnswered.isEmpty || isAwaitingKeys {
            do throws(LinkError) {
                try handlePendingEvents()
                if failure != nil || ContinuousClock.now >= deadline { break }
                _ = try poller.wait(until: deadline)
            } catch {
                break
            }
        }
        return failure
    }

    /// Acts on one event if it concerns this adapter.
    public func handle(_ event: ManagementEvent) throws(LinkError) {
        switch event {
        case .userConfirmationRequest(adapter.index, let peer, let hint, let value):
            log("\(adapter.name): confirming pairing with \(peer) (\(hint == 1 ? "Just Works" : "numeric comparison \(value)"))")
            isAwaitingKeys = true
            confirmedPairings += 1
            try adapter.management.send(ManagementPacket(.userConfirmationReply, controllerIndex: adapter.index,
                                                         parameters: ManagementEvent.addressParameters(peer)))
        case .userPasskeyRequest(adapter.index, let peer):
            guard let passkey = passkeyEntry?(peer), UserPasskeyReply.passkeyRange.contains(passkey) else {
                log("\(adapter.name): refusing passkey entry requested by \(peer) (no passkey given)")
                failure = .passkeyNeeded(peer)
                try adapter.management.send(ManagementPacket(.userPasskeyNegativeReply, controllerIndex: adapter.index,
                                                             parameters: ManagementEvent.addressParameters(peer)))
                return
            }
            log("\(adapter.name): answering the passkey request from \(peer)")
            isAwaitingKeys = true
            passkeyAnswered.insert(peer)
            try adapter.management.send(ManagementPacket(.userPasskeyReply, controllerIndex: adapter.index,
                                                         parameters: UserPasskeyReply(peer: peer, passkey: passkey).parameters))
        case .newLongTermKey(adapter.index, let key, let storeHint):
            passkeyAnswered.remove(key.peer)
            log("\(adapter.name): new long-term key for \(key.peer)\(storeHint ? "" : " (not to be stored)")")
            isAwaitingKeys = false
            guard storeHint, let keyStore else { return }
            do throws(KeyFileError) { try keyStore.save(key, adapter: adapterAddress) } catch {
                throw .system("save key: \(error)", Errno(rawValue: 5))
            }
        case .passkeyNotify(adapter.index, let peer, let passkey, _):
            // A display on this side (DisplayOnly): the kernel chose the passkey; the peer's user types it.
            let digits = String(passkey)
            log("\(adapter.name): the screen shows passkey \(String(repeating: "0", count: max(0, 6 - digits.count)) + digits) for \(peer)")
        case .authenticationFailed(adapter.index, let peer, let status):
            isAwaitingKeys = false
            log("\(adapter.name): pairing with \(peer) failed: \(status)")
            // After our passkey, Authentication Failed means the peer computed a different
            // confirm value: the passkey typed was not the one it showed.
            failure = passkeyAnswered.remove(peer) != nil ? .passkeyRejected(peer, status) : .failed(peer, status)
        default:
            break
        }
    }
}

/// Why a pairing the agent took part in did not complete.
public enum PairingFailure: Hashable, Sendable, CustomStringConvertible {
    /// The peer asked for a passkey and the agent had none to give.
    case passkeyNeeded(LEAddress)
    /// The agent gave a passkey and the peer refused it (a wrong passkey).
    case passkeyRejected(LEAddress, ManagementStatus)
    /// The kernel reported Authentication Failed without a passkey involved.
    case failed(LEAddress, ManagementStatus)

    public var description: String {
        switch self {
        case .passkeyNeeded(let peer): return "\(peer) asks for the passkey it displays and none was given"
        case .passkeyRejected(let peer, let status): return "\(peer) refused the passkey (\(status)): it is not the one its screen shows"
        case .failed(let peer, let status): return "pairing with \(peer) failed (\(status))"
        }
    }
}
