import BandLink
import BandWire

/// A simulated peer the ``PeerRunner`` serves: its attribute table, and a model of the device
/// advanced through simulated time. No I/O: the runner owns the link and the clock.
public protocol PeerDevice: AnyObject {
    /// The GATT database the one GATT server answers from.
    var table: PeerAttributeTable { get set }
    /// True time the model has reached.
    var trueTime: PeerMilliseconds { get }
    /// When the model next has something to do (a reading, a minute's end).
    var nextDeadline: PeerMilliseconds { get }
    /// Set when the device drops its link by itself (a reboot); the runner closes it.
    var wantsDisconnect: Bool { get set }

    /// Runs the model up to `time`; returns the notifications owed, oldest first, as
    /// (characteristic, value at that moment). The runner sends those the client enabled.
    func advance(to time: PeerMilliseconds) -> [PeerPush]
    /// A request is about to be answered at `time` (≥ ``trueTime``, before the next reading):
    /// values that follow the clock (Current Time) are brought to that instant.
    func willAnswer(at time: PeerMilliseconds)
    /// An accepted write, after its response went out.
    func wrote(_ write: PeerWrite)
    func connected()
    func disconnected()
    /// One line for stderr when serving starts.
    var banner: String { get }
}

/// One notification owed.
public struct PeerPush: Equatable, Sendable {
    public var characteristic: BluetoothUUID
    public var value: [UInt8]

    public init(characteristic: BluetoothUUID, value: [UInt8]) {
        self.characteristic = characteristic
        self.value = value
    }
}

/// Where a peer waits for readers: a Unix `SOCK_SEQPACKET` socket, or an L2CAP ATT channel on a
/// BlueZ controller (bandsim's HCI listener).
public protocol PeerListener: AnyObject {
    var pollDescriptor: Int32 { get }
    /// A waiting connection, or nil (never blocks).
    func acceptLink() throws(LinkError) -> (any ATTBearer)?
    /// The connection ended (advertise again).
    func connectionEnded()
    func close()
}

/// A peer listening on a Unix socket (`bandsim serve --profile … --socket PATH`).
public final class SocketPeerListener: PeerListener {
    private let listener: SeqPacketListener

    public init(path: String) throws(LinkError) {
        listener = try SeqPacketListener(path: path)
    }

    public var pollDescriptor: Int32 { listener.pollDescriptor }
    public func acceptLink() throws(LinkError) -> (any ATTBearer)? { try listener.accept(timeout: .zero) }
    public func connectionEnded() {}
    public func close() { listener.close() }
}
