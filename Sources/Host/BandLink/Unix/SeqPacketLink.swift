#if canImport(Glibc)
import Glibc
#endif
import BandKitSystem

/// An ATT bearer over a Unix `SOCK_SEQPACKET` socket: how `band` talks to `bandsim serve`
/// without a radio, and how tests script conversations.
///
/// One ATT PDU per datagram, exactly as one PDU per L2CAP SDU on the LE ATT channel, so
/// everything above the link behaves the same on both. See ``PacketSocket`` for the
/// receive rules (timeouts through `poll`, oversized datagrams are errors, hang-up is
/// ``LinkError/closed``).
public final class SeqPacketLink: ATTBearer {
    public var mtu: Int
    /// How long `send` waits for room when the peer is not reading. Never forever.
    public var sendTimeout: Duration = .seconds(5)
    private let socket: PacketSocket

    /// Wraps an already connected `SOCK_SEQPACKET` descriptor; the link owns and closes it.
    public init(adopting descriptor: Int32, mtu: Int = 23, system: SystemCalls = .live) {
        self.mtu = mtu
        self.socket = PacketSocket(adopting: descriptor, system: system)
    }

    public var pollDescriptor: Int32? { socket.isOpen ? socket.descriptor : nil }

    /// Connects to a ``SeqPacketListener`` at `path`. A missing or dead server fails at once
    /// (`ENOENT`, `ECONNREFUSED`) rather than waiting.
    public static func connect(path: String, mtu: Int = 23, system: SystemCalls = .live) throws(LinkError) -> SeqPacketLink {
        let address = try UnixSocketAddress.link(path: path)
        let fd: Int32
        switch system.socket(domain: AF_UNIX, type: SocketFlags.seqPacket | SocketFlags.closeOnExec, protocol: 0) {
        case .success(let made): fd = made
        case .failure(let error): throw .system("socket", error)
        }
        let link = SeqPacketLink(adopting: fd, mtu: mtu, system: system)
        var outcome = address.withBytes { system.connect(fd, address: $0) }
        if case .failure(let error) = outcome, error == .interrupted || error == .inProgress {
            outcome = system.awaitConnection(fd, timeout: .seconds(5))
        }
        if case .failure(let error) = outcome { throw .system("connect \(path)", error) }
        return link
    }

    /// Two links joined back to back by `socketpair(AF_UNIX, SOCK_SEQPACKET)`: the scripted-
    /// conversation fixture (BlueZ's unit/test-gatt.c shape), usable from a single thread.
    public static func pair(mtu: Int = 23, system: SystemCalls = .live) throws(LinkError) -> (SeqPacketLink, SeqPacketLink) {
        switch system.socketPair(domain: AF_UNIX, type: SocketFlags.seqPacket | SocketFlags.closeOnExec, protocol: 0) {
        case .success(let (a, b)):
            return (SeqPacketLink(adopting: a, mtu: mtu, system: system), SeqPacketLink(adopting: b, mtu: mtu, system: system))
        case .failure(let error):
            throw .system("socketpair", error)
        }
    }

    public func send(_ pdu: UnsafeRawBufferPointer) throws(LinkError) {
        guard pdu.count <= mtu else { throw .pduTooLarge(size: pdu.count, limit: mtu) }
        try socket.send(pdu, timeout: sendTimeout)
    }

    public func receive(into buffer: UnsafeMutableRawBufferPointer, timeout: Duration?) throws(LinkError) -> Int? {
        try socket.receive(into: buffer, timeout: timeout)
    }

    public func close() { socket.close() }
}
