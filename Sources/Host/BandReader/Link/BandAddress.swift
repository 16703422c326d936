import BandWire

/// Where a band is: a Bluetooth LE device address, or a simulated band's Unix socket.
///
/// Text forms (the `band` command's ADDRESS argument, and the keystore's key):
///
/// | text | meaning |
/// |---|---|
/// | `AA:BB:CC:DD:EE:FF` | an LE device reached through BlueZ (public address unless `--random`) |
/// | `sim:PATH` | `bandsim serve` listening on the `SOCK_SEQPACKET` socket at PATH |
public enum BandAddress: Hashable, Sendable, CustomStringConvertible {
    case bluetooth(LEAddress, adapter: String)
    case simulator(path: String)

    /// Parses the ADDRESS argument; `random` and `adapter` only apply to Bluetooth addresses.
    public init(parsing text: String, random: Bool = false, adapter: String = "hci0") throws(BandAddressError) {
        if text.hasPrefix("sim:") {
            let path = String(text.dropFirst(4))
            guard !path.isEmpty else { throw BandAddressError(text: text, reason: "sim: needs a socket path, e.g. sim:/tmp/band.sock") }
            guard !random else { throw BandAddressError(text: text, reason: "--random applies to Bluetooth addresses only") }
            self = .simulator(path: path)
            return
        }
        let address: BluetoothAddress
        do throws(AddressSyntaxError) { address = try BluetoothAddress(text) } catch {
            throw BandAddressError(text: text, reason: "expected AA:BB:CC:DD:EE:FF (six hex byte pairs) or sim:PATH")
        }
        guard adapter.hasPrefix("hci"), let index = Int(adapter.dropFirst(3)), index >= 0, index < 0x10000 else {
            throw BandAddressError(text: adapter, reason: "adapter must be hciN, e.g. hci0")
        }
        self = .bluetooth(LEAddress(address, type: random ? .random : .public), adapter: adapter)
    }

    /// The key under which the keystore files this band: the address text, without adapter or type.
    public var keystoreKey: String {
        switch self {
        case .bluetooth(let peer, _): return peer.address.description
        case .simulator(let path): return "sim:" + path
        }
    }

    public var description: String {
        switch self {
        case .bluetooth(let peer, let adapter):
            return "\(peer.address) (\(peer.type.isRandom ? "random" : "public"), \(adapter))"
        case .simulator(let path): return "sim:\(path)"
        }
    }
}

/// An ADDRESS argument that could not be understood.
public struct BandAddressError: Error, Equatable, Sendable, CustomStringConvertible {
    public var text: String
    public var reason: String
    public var description: String { "'\(text)': \(reason)" }
}

extension BandAddress {
    /// The peer a recording of a connection to this address names in its LE Connection Complete
    /// event: the band's address and type, or, for a simulated band reached over a Unix socket,
    /// the all-zero public address (it has none; a replay then names the device by its Device
    /// Information serial number, or by `--device`).
    public var recordedPeer: LEAddress {
        switch self {
        case .bluetooth(let device, _): device
        case .simulator: LEAddress(.any, type: .public)
        }
    }
}
