/// Which end of a recorded link sent a PDU.
///
/// A trace is recorded on one host (a phone's HCI log, `btmon`, or BandKit's own
/// ``TraceRecorder``); its records say "sent" or "received" from that host's side.
/// Either end may be the GATT server, so the reconstruction names ends, not roles.
public enum ATTSender: Hashable, Sendable, CustomStringConvertible {
    /// The host that recorded the trace (btsnoop "sent", host → controller).
    case recordingHost
    /// The device at the other end of the connection (btsnoop "received").
    case remoteDevice

    public var other: ATTSender { self == .recordingHost ? .remoteDevice : .recordingHost }

    public var description: String { self == .recordingHost ? "recording host" : "remote device" }
}

/// One LE connection in a trace: the HCI connection handle on an adapter.
public struct TraceConnection: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var adapter: UInt16
    public var handle: UInt16

    public init(adapter: UInt16 = 0, handle: UInt16) {
        self.adapter = adapter
        self.handle = handle
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.adapter, lhs.handle) < (rhs.adapter, rhs.handle)
    }

    public var description: String {
        let hex = "0x" + String(handle, radix: 16)
        return adapter == 0 ? "connection \(hex)" : "connection \(hex) on adapter \(adapter)"
    }
}

/// A GATT server in a trace: one end of one connection.
public struct ATTServerSide: Hashable, Sendable, CustomStringConvertible {
    public var connection: TraceConnection
    public var server: ATTSender

    public init(connection: TraceConnection, server: ATTSender) {
        self.connection = connection
        self.server = server
    }

    public var description: String { "\(connection), server: \(server)" }
}
