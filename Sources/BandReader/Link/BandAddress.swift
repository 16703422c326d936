/// Where a band is: a Bluetooth LE device address, or a simulated band's Unix socket.
///
/// Text forms (the `band` command's ADDRESS argument, and the keystore's key):
///
/// | text | meaning |
/// |---|---|
/// | `AA:BB:CC:DD:EE:FF` | an LE device reached through BlueZ (public address unless `--random`) |
/// | `sim:PATH` | `bandsim serve` listening on the `SOCK_SEQPACKET` socket at PATH |
public enum BandAddress: Hashable, Sendable, CustomStringConvertible {
    case bluetooth(BluetoothDeviceAddress, addressType: LEAddressType, adapter: String)
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
        guard let address = BluetoothDeviceAddress(text) else {
            throw BandAddressError(text: text, reason: "expected AA:BB:CC:DD:EE:FF (six hex byte pairs) or sim:PATH")
        }
        guard adapter.hasPrefix("hci"), let index = Int(adapter.dropFirst(3)), index >= 0, index < 0x10000 else {
            throw BandAddressError(text: adapter, reason: "adapter must be hciN, e.g. hci0")
        }
        self = .bluetooth(address, addressType: random ? .random : .public, adapter: adapter)
    }

    /// The key under which the keystore files this band: the address text, without adapter or type.
    public var keystoreKey: String {
        switch self {
        case .bluetooth(let address, _, _): return address.description
        case .simulator(let path): return "sim:" + path
        }
    }

    public var description: String {
        switch self {
        case .bluetooth(let address, let type, let adapter):
            return "\(address) (\(type == .random ? "random" : "public"), \(adapter))"
        case .simulator(let path): return "sim:\(path)"
        }
    }
}

/// LE device address type (Core 5.4 Vol 6 Part B §1.3).
public enum LEAddressType: Hashable, Sendable {
    case `public`
    case random
}

/// A 48-bit Bluetooth device address, written most significant byte first (`AA:BB:CC:DD:EE:FF`).
public struct BluetoothDeviceAddress: Hashable, Sendable, CustomStringConvertible {
    /// Most significant byte first, as written; the HCI wire order (`bdaddr_t`) is the reverse.
    public let bytes: [UInt8]

    public init?(_ text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 6 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard part.count == 2, part.allSatisfy(\.isHexDigit), let byte = UInt8(part, radix: 16) else { return nil }
            bytes.append(byte)
        }
        self.bytes = bytes
    }

    public var description: String {
        bytes.map { byte in
            let text = String(byte, radix: 16, uppercase: true)
            return byte < 0x10 ? "0" + text : text
        }.joined(separator: ":")
    }
}

/// An ADDRESS argument that could not be understood.
public struct BandAddressError: Error, Equatable, Sendable, CustomStringConvertible {
    public var text: String
    public var reason: String
    public var description: String { "'\(text)': \(reason)" }
}
