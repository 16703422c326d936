import BandWire

/// One record of any trace container (btsnoop record, pcap record, pcapng packet block) with
/// its container framing removed: when, where in the file, and the HCI packet it carries.
///
/// What ``ATTExtractor`` consumes, so every container feeds the same HCI → L2CAP → ATT path.
/// A view: the packet's bytes are valid until the source is advanced.
public struct TraceRecord {
    public enum Content {
        /// An HCI packet, with its type, direction and adapter.
        case packet(TraceHCIPacket)
        /// A Linux monitor DEL_INDEX: the adapter is gone, and its connections with it.
        case adapterRemoved(UInt16)
        /// Nothing for the HCI path (monitor bookkeeping, a link type BandKit does not decode).
        case ignored
        /// The record's framing inside the container is broken (no H4 byte, short pseudo-header).
        case malformed(ParseError)
        /// An air capture's LL data PDU: a piece of an L2CAP message, as ACL carries it.
        case l2capFragment(LinkLayerFragment)
        /// An air capture's connection starting (CONNECT_IND) or ending (LL_TERMINATE_IND).
        case connectionChange(handle: UInt16, ConnectionTraceEvent.Change)
    }

    /// Zero-based position among the file's records (packets).
    public var index: Int
    /// Byte offset in the file of the record (btsnoop/pcap record header, pcapng block).
    public var offset: Int
    public var unixMicroseconds: Int64
    public var content: Content

    @inlinable
    public init(index: Int, offset: Int, unixMicroseconds: Int64, content: Content) {
        self.index = index
        self.offset = offset
        self.unixMicroseconds = unixMicroseconds
        self.content = content
    }

    /// A btsnoop record through its datalink's framing (``TraceHCIPacket/unwrap(_:datalink:)``).
    @inlinable
    public init(_ record: BtsnoopRecord, datalink: BtsnoopDatalink) {
        let content: Content
        do throws(ParseError) {
            if let packet = try TraceHCIPacket.unwrap(record, datalink: datalink) {
                content = .packet(packet)
            } else if datalink == .linuxMonitor, UInt16(truncatingIfNeeded: record.flags) == MonitorOpcode.deleteIndex.rawValue {
                content = .adapterRemoved(UInt16(truncatingIfNeeded: record.flags >> 16))
            } else {
                content = .ignored
            }
        } catch {
            content = .malformed(error)
        }
        self.init(index: record.index, offset: record.offset, unixMicroseconds: record.unixMicroseconds, content: content)
    }
}

/// Anything that yields trace records in file order: btsnoop, pcapng and pcap readers
/// (``OpenedTraceFile`` picks one of them by the file's magic).
///
/// Generic, not existential: ``TraceDecoder`` is specialised per source, so the per-record
/// call is direct.
public protocol TraceRecordSource {
    associatedtype Failure: Error
    /// The next record, or nil at a clean end. Its bytes are valid until the next call.
    /// After an error every earlier record has been delivered.
    mutating func nextTraceRecord() throws(Failure) -> TraceRecord?
}
