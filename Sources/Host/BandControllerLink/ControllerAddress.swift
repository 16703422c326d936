/// Where a standard Bluetooth controller speaks H4: a UART (a tty, or a pty such as BlueZ's
/// `btvirt` gives) or a TCP socket (Bumble's `tcp-server`, test harnesses).
public enum ControllerAddress: Equatable, Sendable, CustomStringConvertible {
    case serial(path: String)
    case tcp(host: String, port: UInt16)

    /// Parses `PATH` or `tcp:HOST:PORT` (an IPv6 host in brackets: `tcp:[::1]:9000`); nil with
    /// the reason when the text is neither.
    public static func parse(_ text: String) -> Result<ControllerAddress, ControllerAddressError> {
        guard text.hasPrefix("tcp:") else {
            guard !text.isEmpty, !text.utf8.contains(0) else { return .failure(ControllerAddressError(text: text, reason: "an empty path")) }
            return .success(.serial(path: text))
        }
        let rest = text.dropFirst(4)
        guard let colon = rest.lastIndex(of: ":") else {
            return .failure(ControllerAddressError(text: text, reason: "no port (tcp:HOST:PORT)"))
        }
        var host = String(rest[rest.startIndex..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { return .failure(ControllerAddressError(text: text, reason: "no host (tcp:HOST:PORT)")) }
        guard let port = UInt16(rest[rest.index(after: colon)...]), port > 0 else {
            return .failure(ControllerAddressError(text: text, reason: "the port must be 1–65535"))
        }
        return .success(.tcp(host: host, port: port))
    }

    public var description: String {
        switch self {
        case .serial(let path): path
        case .tcp(let host, let port): host.contains(":") ? "tcp:[\(host)]:\(port)" : "tcp:\(host):\(port)"
        }
    }
}

/// Why a controller address could not be read.
public struct ControllerAddressError: Error, Equatable, Sendable, CustomStringConvertible {
    public var text: String
    public var reason: String
    public var description: String { "'\(text)' is not a controller (PATH or tcp:HOST:PORT): \(reason)" }
}

/// How the UART to the controller runs: 8N1 always, at this rate, with or without RTS/CTS.
public struct SerialSettings: Equatable, Sendable {
    /// The rates H4 controllers use: 115200 (BlueZ's default, Zephyr's `hci_uart` on many
    /// boards) and 1000000.
    public static let supportedBaudRates = [115_200, 230_400, 460_800, 921_600, 1_000_000]
    public var baudRate: Int
    /// Hardware flow control: H4 has no other, so a controller wired without RTS/CTS loses
    /// bytes under load.
    public var hardwareFlowControl: Bool

    public init(baudRate: Int = 1_000_000, hardwareFlowControl: Bool = true) {
        self.baudRate = baudRate
        self.hardwareFlowControl = hardwareFlowControl
    }
}
