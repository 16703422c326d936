import BandBlueZ
import BandFirmware
import BandLink
import BandProtocol
import BandWire
import CommandKit

/// `bandsim serve --hci hciN`: the band's GATT database on a BlueZ controller — LE advertising
/// through the management socket and an L2CAP ATT (CID 4) server socket.
final class HCIBandListener: BandListener {
    private let adapter: BlueZAdapter
    private let listener: L2CAPATTListener
    private let advertisement: Advertisement
    private let log: (String) -> Void
    /// Answers the kernel's pairing confirmation on its own thread: the band's loop watches only
    /// its connection while SMP runs, and without an answer SMP fails after 30 s (EACCES).
    private let pairingAgent: BackgroundPairingAgent

    /// `ioCapability`: what the device declares in SMP instead of NoInputNoOutput (DisplayOnly
    /// for a watch that shows a passkey: the kernel picks it and the agent logs it).
    /// What the band advertises, on BlueZ and through its own host alike.
    static let advertisedServices = [BluetoothUUID(0x180D), BandActivityService.service]

    init(adapter name: String, name deviceName: String, serviceUUIDs: [BluetoothUUID] = HCIBandListener.advertisedServices,
         ioCapability: UInt8? = nil, log: @escaping (String) -> Void) throws(LinkError) {
        adapter = try BlueZAdapter(name)
        _ = try adapter.prepareForLowEnergy()
        if let ioCapability { try adapter.setIOCapability(ioCapability) }
        pairingAgent = try BackgroundPairingAgent(adapter: name, keyFile: nil, log: { CommandRunner.printError("bandsim: \($0)") })
        listener = try L2CAPATTListener(adapter: try adapter.address())
        advertisement = Advertisement(name: deviceName, serviceUUIDs: serviceUUIDs)
        self.log = log
        try adapter.startAdvertising(advertisement)
    }

    var pollDescriptor: Int32 { listener.pollDescriptor }

    func acceptLink() throws(LinkError) -> (any ATTBearer)? {
        try listener.accept(timeout: .zero)
    }

    func connectionEnded() {
        // A peripheral stops advertising while connected; the kernel resumes a registered
        // instance by itself, so only add it again if it is gone (re-adding during a power-off
        // can leave the controller advertising with its host closed).
        do throws(LinkError) { try adapter.ensureAdvertising(advertisement) } catch {
            log("cannot restart advertising on \(adapter.name): \(error)")
        }
    }

    func close() {
        pairingAgent.stop()
        try? adapter.stopAdvertising(instance: advertisement.instance)
        listener.close()
    }
}
