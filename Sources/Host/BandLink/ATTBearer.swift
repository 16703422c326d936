import BandKitSystem
/// A link that carries whole ATT PDUs, one per datagram.
///
/// This is the seam between the radio and everything above it: an L2CAP LE ATT channel
/// (CID 4) through BlueZ, a Unix `SOCK_SEQPACKET` socket to `bandsim serve`, or an
/// in-memory pair in tests all carry exactly the same PDUs (Core 5.4 Vol 3 Part F §3.3:
/// one ATT PDU per L2CAP SDU). The GATT client and the simulated band's GATT server only
/// ever see this protocol.
///
/// Blocking, single-threaded: `receive` waits in `poll()` (never a sleep loop) up to its
/// timeout. Buffers are the caller's; nothing here allocates per PDU.
public protocol ATTBearer: AnyObject {
    /// ATT_MTU in force: the largest PDU either side may send. 23 until an MTU exchange.
    var mtu: Int { get set }

    /// A descriptor that becomes readable when a PDU (or hang-up) is waiting, for callers
    /// that multiplex several links and timers in one `poll()`. Nil for in-memory links.
    var pollDescriptor: Int32? { get }

    /// Sends one PDU. Fails with ``LinkError/pduTooLarge`` if it exceeds `mtu`.
    func send(_ pdu: UnsafeRawBufferPointer) throws(LinkError)

    /// Waits up to `timeout` (nil: forever) for one PDU and copies it into `buffer`.
    /// Returns the PDU's length, or nil when the timeout passed with nothing to read.
    /// A PDU longer than `buffer` is an error (``LinkError/pduTooLarge``), never silently cut.
    func receive(into buffer: UnsafeMutableRawBufferPointer, timeout: Duration?) throws(LinkError) -> Int?

    /// Closes the link; later calls fail with ``LinkError/closed``. Idempotent.
    func close()
}

extension ATTBearer {
    /// Sends an array (cold paths and tests).
    public func send(_ pdu: [UInt8]) throws(LinkError) {
        let result: Result<Void, LinkError> = pdu.withUnsafeBytes { raw in
            do throws(LinkError) { try send(raw); return .success(()) } catch { return .failure(error) }
        }
        try result.get()
    }

    /// Receives into a fresh array (cold paths and tests).
    public func receive(timeout: Duration?) throws(LinkError) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 1024)
        let result: Result<Int?, LinkError> = buffer.withUnsafeMutableBytes { raw in
            do throws(LinkError) { return .success(try receive(into: raw, timeout: timeout)) } catch { return .failure(error) }
        }
        guard let n = try result.get() else { return nil }
        return Array(buffer[0..<n])
    }
}

/// Why a link failed.
public enum LinkError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The peer hung up, or the link was closed locally.
    case closed
    /// A PDU did not fit the MTU or the receive buffer.
    case pduTooLarge(size: Int, limit: Int)
    /// A system call failed; `call` names it, `errno` says why.
    case system(call: String, errno: Int32)
    /// Link-level security could not be raised (pairing refused or timed out).
    case securityFailed(String)

    public var description: String {
        switch self {
        case .closed: return "link closed"
        case .pduTooLarge(let size, let limit): return "PDU of \(size) bytes exceeds the limit of \(limit)"
        case .system(let call, let errno): return "\(call) failed: \(Errno(rawValue: errno))"
        case .securityFailed(let why): return "security: \(why)"
        }
    }
}

