import BandATT
import BandGATTServer
import BandHCI
import BandWire

/// What the host tells its owner (``LEHostIO/report(_:)``): generic over the GATT source's
/// write effect so writes reach the application as they do from the GATT server.
public enum LEHostEvent<WriteEffect> {
    /// Bring-up finished; the controller advertises.
    case ready(ControllerInfo)
    /// The host stopped: the controller refused bring-up, never answered, or failed.
    case failed(LEHostError)
    /// A controller error during operation that the host survived (e.g. advertising not restarted).
    case controllerError(LEHostError)
    /// Advertising (re)started.
    case advertising
    case connected(handle: UInt16, peer: LEAddress, interval: UInt16, latency: UInt16, supervisionTimeout: UInt16)
    case disconnected(handle: UInt16, reason: HCIStatus)
    /// ATT_MTU changed by an Exchange MTU.
    case mtuChanged(Int)
    /// The link's link-layer payload sizes changed (LE Data Length Change), in octets.
    case dataLengthChanged(transmitOctets: Int, receiveOctets: Int)
    /// What a GATT request amounted to (a write, a confirmation…).
    case gatt(GATTServerEvent<WriteEffect>)
    /// The central answered our Connection Parameter Update Request.
    case connectionParametersAnswered(accepted: Bool)
    /// Bytes thrown away and why; never silent.
    case dropped(LEHostDrop)
    /// Pairing needs the user to compare or enter this six-digit passkey, shown by the band.
    case displayPasskey(UInt32)
    /// Pairing ended without keys.
    case pairingFailed(SMPFailure)
    /// Too many wrong passkeys: Pairing Requests are refused (Repeated Attempts) for this long.
    case pairingThrottled(retryAfterMilliseconds: UInt32)
    /// The link is encrypted (with a fresh or a bonded key).
    case encrypted(handle: UInt16)
    /// A bond was kept (or could not be: `saved` false).
    case bonded(LEBond, saved: Bool)
}

/// What the controller said about itself during bring-up.
public struct ControllerInfo: Equatable, Sendable {
    public var version: LocalVersionInformation
    /// LMP features (Read Local Supported Features); bit 38 is "LE Supported (Controller)".
    public var features: UInt64
    public var address: BluetoothAddress
    /// ACL buffers for LE: payload length and count (LE Read Buffer Size).
    public var aclPacketLength: Int
    public var aclPacketCount: Int

    public init(version: LocalVersionInformation, features: UInt64, address: BluetoothAddress, aclPacketLength: Int, aclPacketCount: Int) {
        self.version = version
        self.features = features
        self.address = address
        self.aclPacketLength = aclPacketLength
        self.aclPacketCount = aclPacketCount
    }
}

/// Why the host stopped or a command failed, in words a log can show.
public enum LEHostError: Equatable, Sendable {
    /// The controller answered a command with an error status.
    case controllerRefused(HCIOpcode, HCIStatus)
    /// A command's return parameters could not be read.
    case malformedReturnParameters(HCIOpcode, ParseError)
    /// The controller does not support Low Energy (LMP feature bit 38 clear).
    case lowEnergyNotSupported
    /// The controller announced no usable ACL buffers (length below 27 or count 0).
    case noACLBuffers(length: Int, count: Int)
    /// No Command Complete or Status for this command within ``HCICommandFlow/timeoutMilliseconds``.
    case controllerTimedOut(HCIOpcode)
    /// The controller reported a Hardware Error with this code; the host brings it up again.
    case hardwareError(UInt8)
    /// A command did not fit the command ring.
    case commandQueueFull(HCIOpcode)
}

/// Something the host dropped, with enough to find it in a trace.
public enum LEHostDrop: Equatable, Sendable {
    /// Bytes of the UART stream (``H4Drop``).
    case h4(H4Drop)
    /// An event whose parameters could not be read.
    case malformedEvent(HCIEventCode, ParseError)
    /// A connection the host did not advertise for (before bring-up asked for advertising, a
    /// second link, a central role), ignored.
    case unexpectedConnection(UInt16)
    /// An ACL packet for a connection handle the host does not have.
    case unknownHandle(UInt16)
    /// An ACL packet whose header does not match its length.
    case malformedACL(ParseError)
    /// L2CAP fragments (``L2CAPDrop``).
    case l2cap(L2CAPDrop)
    /// A PDU for a fixed channel the host does not serve (silently discarded by the
    /// specification, reported here).
    case unknownChannel(UInt16)
    /// A signaling command that could not be read; a Command Reject was sent when it was a request.
    case malformedSignaling(ParseError)
    /// An SMP PDU that could not be read; pairing failed with Invalid Parameters.
    case malformedSecurity(ParseError)
    /// A Number Of Completed Packets counted more packets than were outstanding.
    case excessCompletedPackets(Int)
    /// A notification or response that found the outgoing queue full.
    case outboxFull(channel: UInt16)
}

extension LEHostEvent: Equatable where WriteEffect: Equatable {}
