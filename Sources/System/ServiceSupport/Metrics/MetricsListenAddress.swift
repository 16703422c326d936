#if canImport(Glibc)
import Glibc
#endif
import BandKitSystem

/// Where the metrics server listens: `HOST:PORT` with an IPv4 address, `[IPv6]:PORT`, or
/// `localhost:PORT` (127.0.0.1), as `--metrics 127.0.0.1:9469` gives it.
public struct MetricsListenAddress: Equatable, Sendable, CustomStringConvertible {
    /// The address as written (`127.0.0.1`, `::1`), without brackets.
    public let host: String
    /// The port; 0 asks the kernel for a free one (tests).
    public var port: UInt16
    let family: Int32
    private let addressBytes: [UInt8]

    /// Parses `HOST:PORT`. Throws ``MetricsServerError/invalidAddress(_:)`` naming the text.
    public init(parsing text: String) throws(MetricsServerError) {
        guard let colon = text.lastIndex(of: ":") else { throw .invalidAddress(text) }
        var host = String(text[..<colon])
        let portText = text[text.index(after: colon)...]
        guard !portText.isEmpty, portText.utf8.count <= 5, portText.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
              let port = UInt16(portText) else { throw .invalidAddress(text) }
        var family = AF_INET
        if host.hasPrefix("[") && host.hasSuffix("]") && host.count > 2 {
            host = String(host.dropFirst().dropLast())
            family = AF_INET6
        } else if host == "localhost" {
            host = "127.0.0.1"
        }
        var bytes = [UInt8](repeating: 0, count: 16)
        guard !host.isEmpty, !host.utf8.contains(0), bytes.withUnsafeMutableBytes({ inet_pton(family, host, $0.baseAddress) }) == 1 else {
            throw .invalidAddress(text)
        }
        self.host = host
        self.port = port
        self.family = family
        addressBytes = Array(bytes.prefix(family == AF_INET ? 4 : 16))
    }

    /// `127.0.0.1:9469`, `[::1]:9469`.
    public var description: String { family == AF_INET6 ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// 127.0.0.0/8 or ::1.
    public var isLoopback: Bool {
        family == AF_INET ? addressBytes[0] == 127 : addressBytes == [UInt8](repeating: 0, count: 15) + [1]
    }

    /// The `Host` values a client of this (loopback) address sends, lower case.
    var loopbackHosts: Set<String> {
        var hosts: Set<String> = ["127.0.0.1:\(port)", "localhost:\(port)", "[::1]:\(port)", description.lowercased()]
        if port == 80 { hosts.formUnion(["127.0.0.1", "localhost", "[::1]", family == AF_INET6 ? "[\(host)]" : host]) }
        return hosts
    }

    func withSocketAddress<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        if family == AF_INET {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            withUnsafeMutableBytes(of: &address.sin_addr) { $0.copyBytes(from: addressBytes) }
            return withUnsafeBytes(of: address) { body($0) }
        }
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_port = port.bigEndian
        withUnsafeMutableBytes(of: &address.sin6_addr) { $0.copyBytes(from: addressBytes) }
        return withUnsafeBytes(of: address) { body($0) }
    }
}

/// Why the metrics server could not start.
public enum MetricsServerError: Error, Equatable, CustomStringConvertible {
    /// Not `HOST:PORT` with an IP address (or localhost) and a port of 0–65535.
    case invalidAddress(String)
    /// Another process listens on the address.
    case addressInUse(MetricsListenAddress)
    /// A system call failed: the call, the address, the error.
    case callFailed(String, MetricsListenAddress, Errno)

    public var description: String {
        switch self {
        case .invalidAddress(let text):
            "\(TerminalText.escaped(text)) is not a metrics address: HOST:PORT with an IPv4 address, [IPv6] or localhost, e.g. 127.0.0.1:9469"
        case .addressInUse(let address): "the metrics address \(address) is in use: another process listens on port \(address.port)"
        case .callFailed(let call, let address, let error): "\(call) \(address): \(error)"
        }
    }
}
