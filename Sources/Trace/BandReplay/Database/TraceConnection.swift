/// Which end of a recorded link sent a PDU.
///
/// A trace is recorded on one host (a phone's HCI log, `btmon`, or BandKit's own
/// `TraceRecorder`); its records say "sent" or "received" from that host's side.
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
///
/// Controllers reuse handles, so a trace with several connections one after another may
/// show the same handle again; ``instance`` tells them apart (0 for the first).
public struct TraceConnection: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var adapter: UInt16
    public var handle: UInt16
    public var instance: Int

    public init(adapter: UInt16 = 0, handle: UInt16, instance: Int = 0) {
        self.adapter = adapter
        self.handle = handle
        self.instance = instance
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.adapter, lhs.handle, lhs.instance) < (rhs.adapter, rhs.handle, rhs.instance)
    }

    public var description: String {
        var text = "connection 0x" + String(handle, radix: 16)
        if instance > 0 { text += " (#\(instance + 1))" }
        if adapter != 0 { text += " on adapter \(adapter)" }
        return text
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
