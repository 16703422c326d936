/// Turns the raw (adapter, HCI handle) of trace events into ``TraceConnection``s that tell
/// reused handles apart: a connection event on a handle that already carried a connection
/// starts a new instance. Both replay passes use this one rule, so they agree.
public struct ConnectionResolver: Sendable {
    private struct Key: Hashable, Sendable {
        var adapter: UInt16
        var handle: UInt16
    }
    private var instances: [Key: Int] = [:]
    /// Handles whose current instance has been seen (a connection event or a PDU).
    private var used: Set<Key> = []

    public init() {}

    public mutating func connected(_ raw: TraceConnection) {
        let key = Key(adapter: raw.adapter, handle: raw.handle)
        if used.contains(key) { instances[key, default: 0] += 1 }
        used.insert(key)
    }

    public mutating func sawPDU(_ raw: TraceConnection) {
        used.insert(Key(adapter: raw.adapter, handle: raw.handle))
    }

    public func resolve(_ raw: TraceConnection) -> TraceConnection {
        TraceConnection(adapter: raw.adapter, handle: raw.handle, instance: instances[Key(adapter: raw.adapter, handle: raw.handle)] ?? 0)
    }
}
