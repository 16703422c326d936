import BandATT
import BandGATTServer
import BandProtocol
import BandWire

/// Per-connection state of the band's GATT server: negotiated MTU, CCCD values (not bonded:
/// a new connection starts with everything off, Core 5.4 Vol 3 Part G §3.3.3.3), authentication,
/// and the history transfer in progress.
///
/// Made once with the services and reset for every connection (``reset(number:mtu:serverMTU:)``),
/// so a connection allocates nothing on the chip.
final class ServiceConnection {
    /// Counts connections since the band started, for logs.
    var number = 0
    /// ATT state of the connection (negotiated MTU) for the one GATT server.
    var server: GATTServer
    /// ATT_MTU in force.
    var mtu: Int { server.mtu }
    private var configurations = InlineArray<19, UInt16>(repeating: 0)   // one per Characteristic
    var authenticated = false
    var authenticatedReader: UInt64?
    var auth = AuthSession()
    var pairing: PendingPairing?
    var transfer: HistoryTransfer?
    /// The last transfer that ran to completion on this connection: the only one that may be acknowledged.
    var lastCompletedTransfer: (end: UInt32, crc: UInt32)?
    var awaitingConfirmation = false
    var indications = IndicationQueue()
    var lastLiveNotified: LiveActivity?
    var lastBatteryNotified: UInt8?

    /// Notifications dropped because the link had no room (the reader is not reading).
    var congestionDrops = 0

    init(serverMTU: Int) {
        // Read Multiple is not offered: no two of the band's readable values are worth one round trip.
        server = GATTServer(serverMTU: serverMTU, mtu: ATT.defaultLEMTU, answersReadMultiple: false)
    }

    /// A new connection on a link whose ATT_MTU is `mtu` (the default until an exchange).
    func reset(number: Int, mtu: Int, serverMTU: Int) {
        self.number = number
        server = GATTServer(serverMTU: serverMTU, mtu: mtu, answersReadMultiple: false)
        for index in 0..<configurations.count { configurations[index] = 0 }
        authenticated = false
        authenticatedReader = nil
        auth = AuthSession()
        pairing = nil
        transfer = nil
        lastCompletedTransfer = nil
        awaitingConfirmation = false
        indications = IndicationQueue()
        lastLiveNotified = nil
        lastBatteryNotified = nil
        congestionDrops = 0
    }

    func configuration(_ characteristic: Characteristic) -> UInt16 { configurations[characteristic.rawValue] }
    func setConfiguration(_ value: UInt16, for characteristic: Characteristic) { configurations[characteristic.rawValue] = value }
    func notifying(_ characteristic: Characteristic) -> Bool { configuration(characteristic) & 0x0001 != 0 }
    func indicating(_ characteristic: Characteristic) -> Bool { configuration(characteristic) & 0x0002 != 0 }
}

/// The challenge–response state of one connection.
struct AuthSession {
    var readerID: UInt64 = 0
    var readerNonce: UInt64 = 0
    /// The outstanding challenge, spent by the first proof.
    var bandNonce: BandNonce?
    var wrongProofs = 0
    static let maximumWrongProofs = 3
    var lockedOut: Bool { wrongProofs >= Self.maximumWrongProofs }
}

/// A pairing waiting for the wearer's answer.
struct PendingPairing {
    var readerID: UInt64
    /// True time after which the band gives up.
    var deadline: BandInstant
    var answer: Bool?
}

/// A history transfer in progress.
struct HistoryTransfer {
    var first: UInt32
    var count: UInt32
    var sent: UInt32 = 0
    var packetNumber: UInt16 = 0
    var packets: UInt32 = 0
    var crc = CRC32()
    /// Fault injection: drop the connection after this many packets.
    var disconnectAfterPackets: UInt32?
}
