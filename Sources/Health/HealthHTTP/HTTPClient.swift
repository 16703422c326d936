import BandKitSystem
internal import CMicroHTTPD
#if canImport(Glibc)
import Glibc
#endif

/// The client of a stream, as far as a stream needs it: whether it has hung up. A stream that
/// waits with ``wait(for:milliseconds:)`` wakes the moment its client closes the connection, so a
/// page that is closed gives its slot back at once (not at the next write, which a quiet stream
/// makes only every few seconds, while the socket sits in CLOSE-WAIT).
public struct HTTPClient: Sendable {
    public enum Wake: Equatable, Sendable {
        /// `signal` became readable.
        case signalled
        /// The client closed its side or the connection failed.
        case left
        case timedOut
    }

    let descriptor: Int32

    /// Waits until `signal` (a descriptor, e.g. an eventfd; -1: none) is readable, the client
    /// hangs up, or `milliseconds` pass. Bytes the client sends meanwhile are read and dropped
    /// (a request is complete before its stream starts; nothing else is expected).
    public func wait(for signal: Int32, milliseconds: Int32) -> Wake {
        let readable = Int16(POLLIN)
        let hangUp: Int16 = bandkit_pollrdhup() | Int16(POLLHUP) | Int16(POLLERR) | Int16(POLLNVAL)
        var entries = [pollfd(fd: signal, events: readable, revents: 0),
                       pollfd(fd: descriptor, events: readable | bandkit_pollrdhup(), revents: 0)]
        var buffer = [UInt8](repeating: 0, count: 512)
        while true {
            guard case .success(let count) = valueOrErrno({ poll(&entries, 2, milliseconds) }), count > 0 else { return .timedOut }
            let client = entries[1].revents
            if client & hangUp != 0 { return .left }
            if client & readable != 0 {
                switch valueOrErrno({ recv(descriptor, &buffer, buffer.count, bandkit_msg_nowait()) }) {
                case .success(0): return .left
                case .failure(let error) where error != .wouldBlock: return .left
                default: break
                }
            }
            if entries[0].revents != 0 { return .signalled }
            entries[1].revents = 0
        }
    }

    /// Whether the client has hung up, without waiting.
    public var hasLeft: Bool { descriptor >= 0 && wait(for: -1, milliseconds: 0) == .left }
}
