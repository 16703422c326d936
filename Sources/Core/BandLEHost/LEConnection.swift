import BandGATTServer
import BandWire

/// The one link a peripheral host keeps: its handle, peer, parameters and per-link protocol
/// state (the GATT server's MTU, signaling identifiers, pairing).
public struct LEConnection: Sendable {
    public var handle: UInt16
    public var peer: LEAddress
    public var interval: UInt16
    public var latency: UInt16
    public var supervisionTimeout: UInt16
    /// True once the controller reported encryption on.
    public var encrypted = false
    var gatt: GATTServer
    var signaling = LESignalingChannel()
    var security: SecurityManager

    init(handle: UInt16, peer: LEAddress, interval: UInt16, latency: UInt16, supervisionTimeout: UInt16, attMTU: Int, ioCapability: UInt8, local: LEAddress) {
        self.handle = handle
        self.peer = peer
        self.interval = interval
        self.latency = latency
        self.supervisionTimeout = supervisionTimeout
        gatt = GATTServer(serverMTU: attMTU)
        security = SecurityManager(ioCapability: ioCapability, local: local, peer: peer)
    }

    /// True while a pairing runs on the link.
    public var isPairing: Bool { security.isPairing }

    /// ATT_MTU in force.
    public var mtu: Int { gatt.mtu }
}
