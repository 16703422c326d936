import BandKitSystem
import BandLink
import BandWire

/// The band's side in one place: what `bandsim serve --hci` needs from BlueZ.
///
/// Advertises (name, service UUIDs), listens on the ATT channel, and answers pairing on its
/// adapter. Single-threaded: put ``pollDescriptors`` in the serve loop's `poll()` set; call
/// ``handleAgentEvents()`` when the agent's descriptor is readable and ``accept(timeout:)``
/// when the listener's is.
///
/// ```swift
/// let radio = try BlueZPeripheral(adapter: "hci0", name: "BandKit Band",
///                                 services: [BluetoothUUID(0x180D), activityService], keyFile: path)
/// var poller = Poller()
/// for fd in radio.pollDescriptors { poller.watch(fd) }
/// … if poller.isReady(radio.listener.pollDescriptor), let link = try radio.accept(timeout: .zero) { serve(link) }
/// ```
public final class BlueZPeripheral {
    public let adapter: BlueZAdapter
    public let agent: PairingAgent
    public let listener: L2CAPATTListener
    public let advertisement: Advertisement
    public var address: BluetoothAddress { agent.adapterAddress }

    /// Powers `adapter` up for LE, loads stored keys, starts listening, then advertising.
    public init(adapter name: String, name advertisedName: String, services: [BluetoothUUID], keyFile: String?,
                log: @escaping (String) -> Void = { _ in }, system: SystemCalls = .live) throws(LinkError) {
        adapter = try BlueZAdapter(name, system: system)
        try adapter.prepareForLowEnergy()
        agent = try PairingAgent(adapter: adapter, keyStore: try BlueZCentral.keyStore(keyFile, system: system), log: log)
        if keyFile != nil { try agent.restoreKeys() }
        listener = try L2CAPATTListener(adapter: agent.adapterAddress, system: system)
        advertisement = Advertisement(name: advertisedName, serviceUUIDs: services)
        try adapter.startAdvertising(advertisement)
    }

    /// The listener's and the agent's descriptors (both: readable means work to do).
    public var pollDescriptors: [Int32] { [listener.pollDescriptor, agent.pollDescriptor] }

    /// Answers pairing requests and stores keys; returns the events (connects, disconnects).
    @discardableResult
    public func handleAgentEvents() throws(LinkError) -> [ManagementEvent] {
        try agent.handlePendingEvents()
    }

    /// A central that connected, or nil after `timeout`. The link keeps the agent so keys
    /// from its pairing are stored.
    public func accept(timeout: Duration?) throws(LinkError) -> L2CAPATTLink? {
        guard let link = try listener.accept(timeout: timeout) else { return nil }
        link.adoptAgent(agent)
        return link
    }

    /// Makes sure the advertisement is registered after a connection ended (see
    /// ``BlueZAdapter/ensureAdvertising(_:)``: the kernel normally resumes it by itself).
    public func resumeAdvertising() throws(LinkError) {
        try adapter.ensureAdvertising(advertisement)
    }

    /// Stops advertising and listening. Idempotent.
    public func close() {
        try? adapter.stopAdvertising(instance: advertisement.instance)
        listener.close()
    }
}
