#if canImport(Glibc)
import Glibc
#endif
import BandKitSystem

/// What a descriptor is ready for, as `poll(2)` reports it.
public struct PollEvents: OptionSet, Hashable, Sendable {
    public let rawValue: Int16
    public init(rawValue: Int16) { self.rawValue = rawValue }

    /// Data (or a new connection, or end of file) is waiting.
    public static let readable = PollEvents(rawValue: Int16(POLLIN))
    /// A write would not block.
    public static let writable = PollEvents(rawValue: Int16(POLLOUT))
    /// The peer hung up (always reported, never needs asking for).
    public static let hangUp = PollEvents(rawValue: Int16(POLLHUP))
    /// The peer shut down its writing side (`POLLRDHUP`).
    public static let peerClosedWriting = PollEvents(rawValue: SocketFlags.pollReadHangUp)
    /// An error is pending on the descriptor (always reported).
    public static let error = PollEvents(rawValue: Int16(POLLERR))
    /// The descriptor is not open (always reported).
    public static let invalid = PollEvents(rawValue: Int16(POLLNVAL))

    /// Any of the conditions that end a connection.
    public static let endOfStream: PollEvents = [.hangUp, .peerClosedWriting, .error, .invalid]
}
