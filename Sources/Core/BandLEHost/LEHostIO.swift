import BandWire

/// Everything the host reaches outside itself — the boundary both the chip (ChipRuntime's UART
/// loop) and a Linux `bandsim` on a controller's tty implement. Bytes from the UART and the
/// time come in as arguments of ``LEHost``'s methods; this carries the rest out.
public protocol LEHostIO {
    associatedtype Bonds: LEBondStore
    /// Writes one whole H4 packet (indicator first) to the controller's UART.
    mutating func transmit(_ h4Packet: UnsafeRawBufferPointer)
    /// What happened: state changes, drops with their reason, the passkey to show.
    mutating func report<WriteEffect>(_ event: LEHostEvent<WriteEffect>)
    /// The bonds, kept where they survive a reset (flash pages on the chip, a file on Linux).
    var bonds: Bonds { get set }
    /// An ATT PDU from the central, offered to an owner that runs its own GATT server (the
    /// band's services keep their per-link ATT state themselves): true when the owner took it
    /// and answers through ``LEHost/sendATT(_:io:)``, false to let the host's ``GATTServer``
    /// answer from its source. Default false. The bytes are valid only during the call.
    mutating func serveATT(_ pdu: UnsafeRawBufferPointer) -> Bool
    /// True when ``serveATT(_:)`` takes every PDU, whatever it is (the owner runs its own GATT
    /// server for the whole link): the host then never reaches its own ``GATTServer``, and a
    /// firmware image built with this IO carries none. Default false.
    static var servesEveryATTPDU: Bool { get }
}

extension LEHostIO {
    public mutating func serveATT(_ pdu: UnsafeRawBufferPointer) -> Bool { false }
    public static var servesEveryATTPDU: Bool { false }
}

/// A bond: what a re-connecting central needs to encrypt again without pairing.
public struct LEBond: Equatable, Sendable {
    /// The central's identity address.
    public var peer: LEAddress
    /// The LE Secure Connections long term key, least significant octet first.
    public var longTermKey: FixedBytes<16>
    /// True when pairing had man-in-the-middle protection (passkey), false for Just Works.
    public var authenticated: Bool

    public init(peer: LEAddress, longTermKey: FixedBytes<16>, authenticated: Bool) {
        self.peer = peer
        self.longTermKey = longTermKey
        self.authenticated = authenticated
    }
}

/// Where bonds are kept. Bounded: a store holds a fixed number and says when it is full.
public protocol LEBondStore {
    /// The bond with `peer`, if any.
    func bond(with peer: LEAddress) -> LEBond?
    /// Keeps `bond` (replacing one with the same peer) durably before returning true; false
    /// when it could not (store full, flash failed).
    mutating func save(_ bond: LEBond) -> Bool
}
