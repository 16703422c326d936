/// Which way a packet went, seen from the host that recorded the trace.
///
/// btsnoop H1/H4 flag bit 0 is 1 for controller → host (received); Linux monitor records
/// encode it in the opcode (ACL_TX_PKT vs ACL_RX_PKT) [BZ `src/shared/btsnoop.h`]. Closed
/// on purpose: there are exactly two ways.
public enum TraceDirection: UInt8, Hashable, Sendable, CustomStringConvertible {
    /// Sent by the recording host (host → controller).
    case tx = 0
    /// Received by the recording host (controller → host).
    case rx = 1

    public var reversed: TraceDirection { self == .tx ? .rx : .tx }
    public var description: String { self == .tx ? "tx" : "rx" }
}
